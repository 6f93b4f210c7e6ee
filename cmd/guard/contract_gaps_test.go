package main

// Gaps the contract review found between the binary and CONTRACT.md, now closed: each
// test pins the promise that was broken.

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestContractGapRefusalHintUnlocksAScopedLock(t *testing.T) {
	dir := t.TempDir()
	ctMkdir(t, dir, "web")
	lock := ctWrite(t, dir, "LOCK.web.txt", "owner: alice\n"+ctLive)
	_, errOut, code := ctRun(t, dir, []string{"GUARD_OWNER=bob"}, "", "check", "web/a.js")
	require.Equal(t, 1, code)
	m := regexp.MustCompile("ask alice to run `guard unlock ([^`]*)`").FindStringSubmatch(errOut)
	require.NotNil(t, m, errOut)
	_, errOut, code = ctRun(t, dir, []string{"GUARD_OWNER=alice"}, "", "unlock", m[1])
	assert.Equal(t, 0, code, "the hinted command works: %s", errOut)
	assert.NoFileExists(t, lock)
}

func TestContractGapCheckJSONHasExactlyThePromisedKeys(t *testing.T) {
	out, _, code := ctRun(t, t.TempDir(), nil, "", "check", "--json", "x")
	require.Equal(t, 0, code)
	assert.Equal(t, []string{"allowed", "blocking", "ok", "op", "warnings"}, ctKeys(ctObject(t, out)))
}

func TestContractGapUnknownLockKeysAreShown(t *testing.T) {
	dir := t.TempDir()
	ctWrite(t, dir, "LOCK.txt", "owner: alice\n"+ctLive+"ticket: JIRA-1\n")
	_, errOut, code := ctRun(t, dir, []string{"GUARD_OWNER=bob"}, "", "check", "x")
	require.Equal(t, 1, code)
	assert.Contains(t, errOut, "JIRA-1")
	out, _, _ := ctRun(t, dir, nil, "", "status")
	assert.Contains(t, out, "JIRA-1")
}

func TestContractGapAHugeExpiresAfterDoesNotExpireALock(t *testing.T) {
	dir := t.TempDir()
	p := ctWrite(t, dir, "LOCK.txt", "owner: alice\ncreated: 2099-01-01T00:00:00\nexpires_after: 3000000d\n")
	l := ctScanOne(t, dir)
	assert.Equal(t, false, l["expired"])
	_, _, code := ctRun(t, dir, []string{"GUARD_OWNER=bob"}, "", "check", "x")
	assert.Equal(t, 1, code)
	out, _, _ := ctRun(t, dir, nil, "", "prune", dir)
	assert.Empty(t, out)
	assert.FileExists(t, p)
}

func TestContractGapTeamBadInputIsTwoEvenWithoutATeamLock(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"team", "claim", "--agent", "a1"},
		{"team", "checkin", "--agent", "a1"},
		{"team", "message", "--agent", "a1"},
	} {
		_, errOut, code := ctRun(t, dir, []string{"GUARD_HOST=h1"}, "", args...)
		assert.Equal(t, 2, code, "%v: %s", args, errOut)
	}
}

func TestContractGapAWriteThroughAFileSymlinkIntoALockedAreaIsDenied(t *testing.T) {
	dir := t.TempDir()
	ctWrite(t, dir, "locked/a", "a\n")
	ctWrite(t, dir, "locked/LOCK.txt", "owner: alice\n"+ctLive)
	ctMkdir(t, dir, "free")
	require.NoError(t, os.Symlink("../locked/a", filepath.Join(dir, "free", "link")))
	_, _, code := ctRun(t, dir, []string{"GUARD_OWNER=bob"}, "", "check", "free/link")
	assert.Equal(t, 1, code)
	out, _, code := ctRun(t, dir, []string{"GUARD_OWNER=bob"},
		ctHookInput(t, "Write", map[string]any{"file_path": filepath.Join(dir, "free", "link"), "content": "x"}, dir, "s"),
		"agent-hook", "claude")
	if code != 2 {
		decision, _ := ctDecision(t, out)
		assert.Equal(t, "deny", decision)
	}
}

func TestContractGapCheckOfAPublicationOpHonoursPrivateTxt(t *testing.T) {
	project := ctRepo(t, nil)
	ctWrite(t, project, "PRIVATE.txt", "not yet\n")
	for _, op := range []string{"registry-upload", "publish-release", "visibility-public"} {
		_, errOut, code := ctRun(t, project, nil, "", "check", "--op", op, ".")
		assert.Equal(t, 1, code, "%s: %s", op, errOut)
		assert.Contains(t, errOut, "PRIVATE.txt", op)
	}
	_, _, code := ctRun(t, project, nil, "", "check", ".")
	assert.Equal(t, 0, code, "an edit is no publication")
}
