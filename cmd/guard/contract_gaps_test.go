package main

// Known gaps between the binary and CONTRACT.md. Each test is skipped with a message
// that says what is wrong; GUARD_CONTRACT_GAPS=1 runs them to see whether a gap closed.

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestContractGapRefusalHintUnlocksAScopedLock(t *testing.T) {
	ctGap(t, "the refusal for an exclusive scoped lock (LOCK.web.txt) tells its owner to run `guard unlock DIR`, "+
		"which looks for DIR/LOCK.txt and exits 1 (\"no lock at DIR/LOCK.txt\"); CONTRACT section 3: the message says "+
		"\"how to proceed\" (guard/explain.go wayOut should name the lock file, or add --scope)")
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
	ctGap(t, "`guard check --json` prints an extra key \"ops\" besides CONTRACT section 4's "+
		"{\"op\", \"allowed\", \"blocking\", \"warnings\"}; a consumer comparing the whole object fails")
	out, _, code := ctRun(t, t.TempDir(), nil, "", "check", "--json", "x")
	require.Equal(t, 0, code)
	assert.Equal(t, []string{"allowed", "blocking", "op", "warnings"}, ctKeys(ctObject(t, out)))
}

func TestContractGapUnknownLockKeysAreShown(t *testing.T) {
	ctGap(t, "CONTRACT section 1 says unknown body keys are \"kept and shown\"; they are kept in the JSON "+
		"\"fields\" object, but no human output (check's refusal, status, scan) shows them")
	dir := t.TempDir()
	ctWrite(t, dir, "LOCK.txt", "owner: alice\n"+ctLive+"ticket: JIRA-1\n")
	_, errOut, code := ctRun(t, dir, []string{"GUARD_OWNER=bob"}, "", "check", "x")
	require.Equal(t, 1, code)
	assert.Contains(t, errOut, "JIRA-1")
	out, _, _ := ctRun(t, dir, nil, "", "status")
	assert.Contains(t, out, "JIRA-1")
}

func TestContractGapAHugeExpiresAfterDoesNotExpireALock(t *testing.T) {
	ctGap(t, "a lock with created 2099-01-01 and `expires_after: 3000000d` (a valid <int><s|m|h|d>) is reported "+
		"expired, stops nobody and is pruned: lockcore mirrors the reference's Python overflow (beyond datetime.max, "+
		"or more than 999999999 days, counts as expired), but CONTRACT section 1 says a lock is expired only when "+
		"now > created + expires_after (and an invalid value means 24h), so the lock should stand")
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
	ctGap(t, "`guard team claim --agent a1` (no --resource/--tool), `team checkin` without --role/--task and "+
		"`team message` without --msg exit 1 (\"no team lock of host ...\") in a directory without a team lock, "+
		"and 2 only when one exists; CONTRACT section 4: 2 bad input (the reference's argparse also answers 2 first)")
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
	ctGap(t, "free/link -> ../locked/a: `guard check free/link` exits 0 and `guard agent-hook claude` lets Write/Edit "+
		"of free/link through, although the write lands in locked/ (under someone else's LOCK.txt); a directory "+
		"symlink (free/dirlink/a) is resolved and refused. CONTRACT section 4: writes into locked areas are denied")
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
	ctGap(t, "`guard check --op registry-upload|publish-release|visibility-public .` exits 0 in a project with "+
		"PRIVATE.txt (check consults locks only), while `guard publish`/`preflight` refuse: CONTRACT section 5 says "+
		"PRIVATE.txt refuses every publication operation, section 4 calls check \"the pre-flight answer for doing OP\" "+
		"and section 3's exit 1 covers \"a lock, a marker or a check said no\"")
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
