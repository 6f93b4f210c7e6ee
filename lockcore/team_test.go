package lockcore

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/guardlocks/guard/internal/atomicfile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var teamNow = time.Date(2026, 9, 20, 10, 0, 0, 0, time.FixedZone("", 2*3600))

const teamHeader = "owner: lead\ncreated: 2026-09-20T09:00:00\nhost: LAPTOP\nfence: 1\nexpires_after: 24h\nmode: hard\nscope: project\n"

// newTeamLock writes a team lock as guard lock --team does and returns its path.
func newTeamFile(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, name)
	host := TeamLockHost(name)
	body := strings.Replace(teamHeader, "host: LAPTOP", "host: "+host, 1) + TeamSectionsTemplate()
	require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	return p
}

func writeTeam(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "LOCK.team.LAPTOP.txt")
	require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	return p
}

func readTeam(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(b)
}

func teamClaim(p, agent string, queue bool, res ...string) (TeamResult, error) {
	return UpdateTeamLock(p, teamNow, TeamOp{Action: TeamClaim, Agent: agent, Section: SectionFileClaims, Resources: res, Queue: queue}, TeamUpdateOptions{})
}

func teamRelease(p, agent string, res ...string) (TeamResult, error) {
	return UpdateTeamLock(p, teamNow, TeamOp{Action: TeamRelease, Agent: agent, Section: SectionFileClaims, Resources: res}, TeamUpdateOptions{})
}

func teamLines(t *testing.T, p string, sec TeamSection) []string {
	t.Helper()
	tl, err := ReadTeamLock(p)
	require.NoError(t, err)
	var out []string
	for _, i := range tl.entryLines(sec) {
		out = append(out, tl.lines[i])
	}
	return out
}

func TestTeamSectionsTemplateHasEachMarkerOnceInOrder(t *testing.T) {
	p := newTeamFile(t, "LOCK.team.LAPTOP.txt")
	body := readTeam(t, p)
	last := -1
	for _, m := range teamSectionMarkers {
		assert.Equal(t, 1, strings.Count(body, m+"\n"), m)
		i := strings.Index(body, m)
		assert.Greater(t, i, last, "%s out of order", m)
		last = i
	}
	assert.Contains(t, body, "host: LAPTOP")
	assert.Contains(t, body, "order=000001")
	tl, err := ReadTeamLock(p)
	require.NoError(t, err)
	assert.False(t, tl.Migrated)
	assert.Empty(t, tl.Presence)
	assert.Equal(t, "lead", tl.Header["owner"])
}

func TestPathsOverlap(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{"src", "src/module.py", true},
		{"SRC/Module.py", "src/module.py", true},
		{"src2", "src", false},
		{"tests", "src", false},
		{`src\a`, "src/a/b", true},
	}
	for _, c := range cases {
		t.Run(c.a+" and "+c.b, func(t *testing.T) {
			assert.Equal(t, c.want, PathsOverlap(c.a, c.b))
		})
	}
}

func TestTeamClaimWritesOneBundleAndRefusesOverlap(t *testing.T) {
	p := newTeamFile(t, "LOCK.team.LAPTOP.txt")
	res, err := teamClaim(p, "agent-1", false, "src/module.py", "tests/test_module.py")
	require.NoError(t, err)
	assert.True(t, res.Changed)
	assert.Equal(t, []string{"[agent-1] EDITING  order=000001 | src/module.py | tests/test_module.py"}, teamLines(t, p, SectionFileClaims))

	before := readTeam(t, p)
	_, err = teamClaim(p, "agent-2", false, "docs", "src")
	var ce *TeamConflictError
	require.ErrorAs(t, err, &ce)
	assert.Contains(t, err.Error(), "agent-1")
	assert.Equal(t, before, readTeam(t, p), "a refused bundle writes nothing")
	assert.NotContains(t, readTeam(t, p), "docs")
}

func TestTeamQueueIsFirstComeFirstServed(t *testing.T) {
	p := newTeamFile(t, "LOCK.team.LAPTOP.txt")
	_, err := teamClaim(p, "agent-1", false, "src")
	require.NoError(t, err)
	res, err := teamClaim(p, "agent-2", true, "src", "tests")
	require.NoError(t, err)
	assert.True(t, res.Waiting)
	res, err = teamClaim(p, "agent-3", true, "tests")
	require.NoError(t, err)
	assert.True(t, res.Waiting, "nobody overtakes an older waiter, even for a free resource")
	assert.Equal(t, []string{
		"[agent-1] EDITING  order=000001 | src",
		"[agent-2] WAITING order=000002 | src | tests",
		"[agent-3] WAITING order=000003 | tests",
	}, teamLines(t, p, SectionFileClaims))

	res, err = teamRelease(p, "agent-1", "src")
	require.NoError(t, err)
	assert.Equal(t, []string{"agent-2"}, res.Promoted)
	assert.Contains(t, res.Message, "FIFO promotion: agent-2")
	assert.Equal(t, []string{
		"[agent-2] EDITING  order=000002 | src | tests",
		"[agent-3] WAITING order=000003 | tests",
	}, teamLines(t, p, SectionFileClaims))

	// Without --queue a claim behind a waiter fails and names it.
	_, err = teamClaim(p, "agent-4", false, "tests/x.py")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "agent-2")
}

func TestTeamSameAgentBundlesAndIdempotentRelease(t *testing.T) {
	p := newTeamFile(t, "LOCK.team.LAPTOP.txt")
	_, err := teamClaim(p, "agent-1", false, "src/a.py")
	require.NoError(t, err)
	_, err = teamClaim(p, "agent-1", false, "tests/test_a.py")
	require.NoError(t, err)
	assert.Equal(t, []string{
		"[agent-1] EDITING  order=000001 | src/a.py",
		"[agent-1] EDITING  order=000002 | tests/test_a.py",
	}, teamLines(t, p, SectionFileClaims))

	before := readTeam(t, p)
	res, err := teamClaim(p, "agent-1", false, "src/a.py")
	require.NoError(t, err, "the same bundle again is a no-op")
	assert.False(t, res.Changed)
	assert.Equal(t, before, readTeam(t, p))

	_, err = teamClaim(p, "agent-1", false, "src")
	require.Error(t, err, "an agent's own overlapping bundle is refused")

	res, err = teamRelease(p, "agent-1", "src/a.py")
	require.NoError(t, err)
	assert.True(t, res.Changed)
	after := readTeam(t, p)
	res, err = teamRelease(p, "agent-1", "src/a.py")
	require.NoError(t, err)
	assert.False(t, res.Changed)
	assert.Equal(t, after, readTeam(t, p), "a second release changes nothing")
	assert.Equal(t, []string{"[agent-1] EDITING  order=000002 | tests/test_a.py"}, teamLines(t, p, SectionFileClaims))
}

func TestTeamToolClaimsCompareCasefolded(t *testing.T) {
	p := newTeamFile(t, "LOCK.team.LAPTOP.txt")
	op := TeamOp{Action: TeamClaim, Agent: "agent-1", Section: SectionToolClaims, Resources: []string{"MCP::FileCommander"}}
	_, err := UpdateTeamLock(p, teamNow, op, TeamUpdateOptions{})
	require.NoError(t, err)
	op.Agent, op.Resources = "agent-2", []string{"mcp::filecommander"}
	_, err = UpdateTeamLock(p, teamNow, op, TeamUpdateOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "agent-1")
	op.Queue = true
	_, err = UpdateTeamLock(p, teamNow, op, TeamUpdateOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{
		"[agent-1] USING   order=000001 | mcp::filecommander",
		"[agent-2] WAITING order=000002 | mcp::filecommander",
	}, teamLines(t, p, SectionToolClaims))
}

func TestTeamPresenceHasOneLinePerAgent(t *testing.T) {
	p := newTeamFile(t, "LOCK.team.LAPTOP.txt")
	in := func(agent, task string) {
		_, err := UpdateTeamLock(p, teamNow, TeamOp{Action: TeamCheckin, Agent: agent, Role: "writer", Task: task}, TeamUpdateOptions{})
		require.NoError(t, err)
	}
	in("agent-1", "docs")
	in("agent-2", "tests")
	in("AGENT-1", "code")
	assert.Equal(t, []string{
		"[loop-01] | [agent-2] | writer | tests | 2026-09-20T10:00:00+02:00",
		"[loop-01] | [AGENT-1] | writer | code | 2026-09-20T10:00:00+02:00",
	}, teamLines(t, p, SectionPresence))
}

func TestTeamCheckoutRemovesClaimsAndDeletesTheLastLock(t *testing.T) {
	p := newTeamFile(t, "LOCK.team.LAPTOP.txt")
	for _, a := range []string{"agent-1", "agent-2"} {
		_, err := UpdateTeamLock(p, teamNow, TeamOp{Action: TeamCheckin, Agent: a, Role: "r", Task: "t"}, TeamUpdateOptions{})
		require.NoError(t, err)
	}
	_, err := teamClaim(p, "agent-1", false, "src")
	require.NoError(t, err)
	_, err = teamClaim(p, "agent-2", true, "src")
	require.NoError(t, err)

	res, err := UpdateTeamLock(p, teamNow, TeamOp{Action: TeamCheckout, Agent: "agent-1"}, TeamUpdateOptions{})
	require.NoError(t, err)
	assert.False(t, res.Deleted)
	assert.Equal(t, []string{"agent-2"}, res.Promoted)
	assert.Equal(t, []string{"[agent-2] EDITING  order=000002 | src"}, teamLines(t, p, SectionFileClaims))

	res, err = UpdateTeamLock(p, teamNow, TeamOp{Action: TeamCheckout, Agent: "agent-2"}, TeamUpdateOptions{})
	require.NoError(t, err)
	assert.True(t, res.Deleted)
	assert.NoFileExists(t, p)
	assert.FileExists(t, p+".guard", "the guard is never deleted")

	_, err = UpdateTeamLock(p, teamNow, TeamOp{Action: TeamCheckin, Agent: "agent-1", Role: "r", Task: "t"}, TeamUpdateOptions{})
	assert.ErrorIs(t, err, ErrTeamLockMissing)
}

func TestTeamMessagesAreAppended(t *testing.T) {
	p := newTeamFile(t, "LOCK.team.LAPTOP.txt")
	for _, m := range []string{"first", "second: with colon | and pipe"} {
		_, err := UpdateTeamLock(p, teamNow, TeamOp{Action: TeamPostMessage, Agent: "agent-1", Text: m}, TeamUpdateOptions{})
		require.NoError(t, err)
	}
	assert.Equal(t, []string{
		"[2026-09-20T10:00:00+02:00] [agent-1]: first",
		"[2026-09-20T10:00:00+02:00] [agent-1]: second: with colon | and pipe",
	}, teamLines(t, p, SectionMessages))
	assert.True(t, strings.HasSuffix(readTeam(t, p), "and pipe\n"))
}

func TestTeamRefusesInjectionAndBadInputWithoutWriting(t *testing.T) {
	cases := []struct {
		name string
		op   TeamOp
	}{
		{"an agent with a space", TeamOp{Action: TeamClaim, Agent: "agent with space", Section: SectionFileClaims, Resources: []string{"src"}}},
		{"an agent with an embedded newline", TeamOp{Action: TeamClaim, Agent: "agent-1\ninjected", Section: SectionFileClaims, Resources: []string{"src"}}},
		{"a resource that injects a claim line", TeamOp{Action: TeamClaim, Agent: "agent-1", Section: SectionFileClaims, Resources: []string{"src\n[evil] EDITING  secrets"}}},
		{"a resource outside the project", TeamOp{Action: TeamClaim, Agent: "agent-1", Section: SectionFileClaims, Resources: []string{"../outside"}}},
		{"a drive path", TeamOp{Action: TeamClaim, Agent: "agent-1", Section: SectionFileClaims, Resources: []string{`C:\outside`}}},
		{"an absolute path", TeamOp{Action: TeamClaim, Agent: "agent-1", Section: SectionFileClaims, Resources: []string{"/etc/passwd"}}},
		{"a wildcard", TeamOp{Action: TeamClaim, Agent: "agent-1", Section: SectionFileClaims, Resources: []string{"src/*.py"}}},
		{"a dot segment", TeamOp{Action: TeamClaim, Agent: "agent-1", Section: SectionFileClaims, Resources: []string{"src/./a"}}},
		{"the project root itself", TeamOp{Action: TeamClaim, Agent: "agent-1", Section: SectionFileClaims, Resources: []string{"."}}},
		{"no resource at all", TeamOp{Action: TeamClaim, Agent: "agent-1", Section: SectionFileClaims}},
		{"a resource twice in one bundle", TeamOp{Action: TeamClaim, Agent: "agent-1", Section: SectionFileClaims, Resources: []string{"src", "SRC"}}},
		{"a tool id with a space", TeamOp{Action: TeamClaim, Agent: "agent-1", Section: SectionToolClaims, Resources: []string{"mcp tool"}}},
		{"a queued release", TeamOp{Action: TeamRelease, Agent: "agent-1", Section: SectionFileClaims, Resources: []string{"src"}, Queue: true}},
		{"a task with a pipe", TeamOp{Action: TeamCheckin, Agent: "agent-1", Role: "r", Task: "a | b"}},
		{"an empty role", TeamOp{Action: TeamCheckin, Agent: "agent-1", Role: " ", Task: "t"}},
		{"a message with a newline", TeamOp{Action: TeamPostMessage, Agent: "agent-1", Text: "a\nb"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := newTeamFile(t, "LOCK.team.LAPTOP.txt")
			before := readTeam(t, p)
			_, err := UpdateTeamLock(p, teamNow, c.op, TeamUpdateOptions{})
			require.ErrorIs(t, err, ErrTeamInput)
			assert.Equal(t, before, readTeam(t, p))
			assert.NoFileExists(t, p+".guard", "input is refused before anything is opened")
		})
	}
}

func TestTeamRefusesASymlinkedResourceLeavingTheProject(t *testing.T) {
	p := newTeamFile(t, "LOCK.team.LAPTOP.txt")
	outside := t.TempDir()
	require.NoError(t, os.Symlink(outside, filepath.Join(filepath.Dir(p), "escape")))
	_, err := teamClaim(p, "agent-1", false, "escape/file")
	require.ErrorIs(t, err, ErrTeamInput)
}

func TestTeamRefusesBadLockNames(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"LOCK.txt", "lock.team.LAPTOP.txt", "LOCK.team.txt", "LOCK.community.LAPTOP.txt"} {
		_, err := UpdateTeamLock(filepath.Join(dir, name), teamNow, TeamOp{Action: TeamCheckout, Agent: "a"}, TeamUpdateOptions{})
		assert.ErrorIs(t, err, ErrTeamInput, name)
	}
}

func TestTeamRefusesASymlinkedLockOrGuard(t *testing.T) {
	p := newTeamFile(t, "LOCK.team.LAPTOP.txt")
	link := filepath.Join(filepath.Dir(p), "LOCK.team.OTHER.txt")
	require.NoError(t, os.Symlink(p, link))
	_, err := UpdateTeamLock(link, teamNow, TeamOp{Action: TeamCheckout, Agent: "a"}, TeamUpdateOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "symbolic links are refused")

	target := filepath.Join(t.TempDir(), "elsewhere")
	require.NoError(t, os.Symlink(target, p+".guard"))
	_, err = UpdateTeamLock(p, teamNow, TeamOp{Action: TeamCheckin, Agent: "a", Role: "r", Task: "t"}, TeamUpdateOptions{})
	require.Error(t, err)
	assert.NoFileExists(t, target, "the guard's symlink is not followed")
}

func TestTeamKeepsForeignCommentsAndUnknownHeaderFields(t *testing.T) {
	body := strings.Replace(teamHeader, "mode: hard", "mode: hard\ncustom_header: keep-me", 1) + TeamSectionsTemplate()
	body = strings.Replace(body, "# FILE-CLAIMS:\n", "# FILE-CLAIMS:\n# a note for humans\n[agent-9] EDITING  order=000007 | docs\n", 1)
	p := writeTeam(t, body)
	_, err := teamClaim(p, "agent-1", false, "src")
	require.NoError(t, err)
	got := readTeam(t, p)
	assert.Contains(t, got, "custom_header: keep-me\n")
	assert.Contains(t, got, "# FILE-CLAIMS:\n# a note for humans\n[agent-9] EDITING  order=000007 | docs\n[agent-1] EDITING  order=000008 | src\n\n# ====")
}

func TestTeamMigratesAFileWithoutMarkers(t *testing.T) {
	p := writeTeam(t, "owner: lead\nhost: LAPTOP\nmode: hard\n\n\n")
	_, err := teamClaim(p, "agent-1", false, "src")
	require.NoError(t, err)
	got := readTeam(t, p)
	assert.True(t, strings.HasPrefix(got, "owner: lead\nhost: LAPTOP\nmode: hard\n\n# ===="), got)
	assert.Contains(t, got, "# FILE-CLAIMS:\n[agent-1] EDITING  order=000001 | src\n")
	tl, err := ReadTeamLock(p)
	require.NoError(t, err)
	assert.False(t, tl.Migrated)
}

func TestTeamLegacyClaimLinesMigrateOnTheNextWrite(t *testing.T) {
	body := strings.Replace(teamHeader+TeamSectionsTemplate(), "# FILE-CLAIMS:\n", "# FILE-CLAIMS:\n[legacy-agent] EDITING  src\n", 1)
	p := writeTeam(t, body)
	_, err := teamClaim(p, "agent-1", false, "docs")
	require.NoError(t, err)
	assert.Equal(t, []string{
		"[legacy-agent] EDITING  order=000001 | src",
		"[agent-1] EDITING  order=000002 | docs",
	}, teamLines(t, p, SectionFileClaims))
}

// TestTeamFailsClosedOnDamagedFiles lists every on-disk problem that must stop an
// update with the file left byte-identical.
func TestTeamFailsClosedOnDamagedFiles(t *testing.T) {
	full := teamHeader + TeamSectionsTemplate()
	inClaims := func(lines string) string {
		return strings.Replace(full, "# FILE-CLAIMS:\n", "# FILE-CLAIMS:\n"+lines, 1)
	}
	cases := []struct {
		name, body, msg string
	}{
		{"a marker-less file with a garbage line", "owner: lead\nhost: LAPTOP\nGARBAGE CLAIM\n", "unknown line"},
		{"a marker-less file with an unknown header key", "owner: lead\nhost: LAPTOP\ncolour: red\n", "unknown line"},
		{"a marker-less file with a free-form claims heading", "owner: lead\nhost: LAPTOP\n\nFiles claimed:\n- src\n", "migrated unambiguously"},
		{"a marker-less file with a commented tools heading", "owner: lead\nhost: LAPTOP\n# Tools claimed:\n", "migrated unambiguously"},
		{"a marker-less file with a presence heading", "owner: lead\nhost: LAPTOP\n## Presence:\n", "migrated unambiguously"},
		{"a marker-less file with a German heading", "owner: lead\nhost: LAPTOP\nAnwesenheit:\n", "migrated unambiguously"},
		{"a marker-less file with a queue heading", "owner: lead\nhost: LAPTOP\nWarteschlange:\n", "migrated unambiguously"},
		{"only some markers", teamHeader + "# PRESENCE:\n# FILE-CLAIMS:\n", "missing"},
		{"a duplicated marker", full + "# TOOL-CLAIMS:\n", "more than once"},
		{"markers out of order", strings.Replace(strings.Replace(full, "# PRESENCE:", "# XX", 1), "# MESSAGES:", "# MESSAGES:\n# PRESENCE:", 1), "out of order"},
		{"a duplicated header key", "owner: a\n" + full, "appears twice"},
		{"a header without owner", strings.Replace(full, "owner: lead\n", "", 1), "no owner"},
		{"a header without host", strings.Replace(full, "host: LAPTOP\n", "", 1), "no host"},
		{"an unknown mode", strings.Replace(full, "mode: hard", "mode: medium", 1), "neither hard nor soft"},
		{"a host that contradicts the name", strings.Replace(full, "host: LAPTOP", "host: DESKTOP", 1), "contradicts"},
		{"a header line without a colon", "GARBAGE\n" + full, "unknown line"},
		{"a damaged presence line", strings.Replace(full, "# PRESENCE:\n", "# PRESENCE:\nagent-1 is here\n", 1), "damaged presence line"},
		{"an order that is not a number", inClaims("[agent-1] EDITING order=oops | src\n"), "positive number"},
		{"an order of zero", inClaims("[agent-1] EDITING order=000000 | src\n"), "positive number"},
		{"a state from the wrong section", inClaims("[agent-1] USING   order=000001 | src\n"), "not valid"},
		{"a claim without resources", inClaims("[agent-1] EDITING  order=000001\n"), "no resources"},
		{"a claim of a path outside", inClaims("[agent-1] EDITING  order=000001 | ../x\n"), "segments"},
		{"a duplicated order", inClaims("[agent-1] EDITING  order=000001 | src\n[agent-2] EDITING  order=000001 | docs\n"), "appears twice"},
		{"mixed legacy and explicit lines", inClaims("[agent-1] EDITING  src\n[agent-2] EDITING  order=000002 | docs\n"), "mixes"},
		{"one agent twice in legacy lines", inClaims("[agent-1] EDITING  src\n[agent-1] EDITING  docs\n"), "ambiguous"},
		{"overlapping active bundles of two agents", inClaims("[agent-1] EDITING  order=000001 | src\n[agent-2] EDITING  order=000002 | src/a.py\n"), "overlapping"},
		{"overlapping bundles of one agent", inClaims("[agent-1] EDITING  order=000001 | src\n[agent-1] WAITING order=000002 | src/a.py\n"), "overlapping"},
		{"a claim line with an invalid agent", inClaims("[agent one] EDITING  order=000001 | src\n"), "invalid agent"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := writeTeam(t, c.body)
			_, err := teamClaim(p, "agent-5", false, "elsewhere")
			var fe *TeamFormatError
			require.ErrorAs(t, err, &fe)
			assert.Contains(t, err.Error(), c.msg)
			assert.Contains(t, err.Error(), "fail-closed")
			assert.Equal(t, c.body, readTeam(t, p), "nothing is written")
		})
	}
}

func TestTeamHostMustMatchTheLastNameSegment(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "LOCK.team.docs.LAPTOP.txt")
	require.NoError(t, os.WriteFile(p, []byte(strings.Replace(teamHeader, "LAPTOP", "laptop", 1)+TeamSectionsTemplate()), 0o644))
	_, err := teamClaim(p, "agent-1", false, "src")
	require.NoError(t, err, "hosts compare case-folded")

	require.NoError(t, os.WriteFile(p, []byte(strings.Replace(teamHeader, "LAPTOP", "docs", 1)+TeamSectionsTemplate()), 0o644))
	_, err = teamClaim(p, "agent-1", false, "src")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "contradicts")
}

func TestWriteTeamFileAtomicLeavesNoTempOnFailure(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "LOCK.team.LAPTOP.txt")
	require.NoError(t, os.MkdirAll(filepath.Join(target, "sub"), 0o755))
	err := atomicfile.Write(target, []byte("x\n"), 0o644)
	require.Error(t, err, "renaming a file over a non-empty directory fails")
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		assert.False(t, strings.HasSuffix(e.Name(), ".tmp"), "temp file %s left behind", e.Name())
	}
	assert.DirExists(t, target)
}

func TestWriteTeamFileAtomicKeepsTheTargetMode(t *testing.T) {
	p := newTeamFile(t, "LOCK.team.LAPTOP.txt")
	require.NoError(t, os.Chmod(p, 0o600))
	_, err := teamClaim(p, "agent-1", false, "src")
	require.NoError(t, err)
	st, err := os.Stat(p)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
}

func TestTeamGuardTimesOutWhileHeld(t *testing.T) {
	p := newTeamFile(t, "LOCK.team.LAPTOP.txt")
	release, err := acquireTeamGuard(p, time.Second)
	require.NoError(t, err)
	defer release()
	before := readTeam(t, p)
	_, err = UpdateTeamLock(p, teamNow, TeamOp{Action: TeamCheckin, Agent: "a", Role: "r", Task: "t"}, TeamUpdateOptions{GuardTimeout: 100 * time.Millisecond})
	require.ErrorIs(t, err, ErrTeamGuardTimeout)
	assert.Equal(t, before, readTeam(t, p))
	assert.True(t, strings.HasSuffix(p+".guard", ".txt.guard"))
}

func TestReadTeamLockOfAMarkerlessFileIsLenient(t *testing.T) {
	p := writeTeam(t, "owner: lead\nhost: LAPTOP\ntoken: abc\n")
	tl, err := ReadTeamLock(p)
	require.NoError(t, err)
	assert.True(t, tl.Migrated)
	assert.Empty(t, tl.FileClaims)
	_, err = ReadTeamLock(filepath.Join(t.TempDir(), "LOCK.team.X.txt"))
	assert.True(t, errors.Is(err, os.ErrNotExist))
}

func FuzzParseTeamLock(f *testing.F) {
	full := teamHeader + TeamSectionsTemplate()
	f.Add(full)
	f.Add(strings.Replace(full, "# FILE-CLAIMS:\n", "# FILE-CLAIMS:\n[a] EDITING  order=000001 | src | docs\n[b] WAITING order=000002 | src\n", 1))
	f.Add(strings.Replace(full, "# FILE-CLAIMS:\n", "# FILE-CLAIMS:\n[legacy] EDITING  src\n", 1))
	f.Add(strings.Replace(full, "# PRESENCE:\n", "# PRESENCE:\n[loop-01] | [a] | r | t | 2026-09-20T10:00:00+02:00\n", 1))
	f.Add("owner: a\nhost: LAPTOP\n")
	f.Add("owner: a\nhost: LAPTOP\nFiles claimed:\n")
	f.Add("# PRESENCE:\n# MESSAGES:\n")
	f.Add("\ufeff" + full + "\r\n\x00")
	dir := f.TempDir()
	path := filepath.Join(dir, "LOCK.team.LAPTOP.txt")
	f.Fuzz(func(t *testing.T, body string) {
		for _, strict := range []bool{false, true} {
			tl, err := ParseTeamLock(path, []byte(body), strict)
			if err != nil {
				var fe *TeamFormatError
				require.ErrorAs(t, err, &fe)
				continue
			}
			if tl.Migrated {
				if !strict {
					// The lenient read of a marker-less file checks no header; a
					// migration (strict) does.
					continue
				}
				tl, err = tl.migrate()
				require.NoError(t, err, "a file that passes the strict check migrates")
			}
			// A parsed file re-renders; claims re-rendered from the parse parse again to
			// the same claims.
			tl.markBundles(SectionFileClaims)
			tl.markBundles(SectionToolClaims)
			out := tl.render()
			again, err := ParseTeamLock(path, []byte(out), true)
			require.NoError(t, err, "re-rendered file must parse:\n%s", out)
			assert.Equal(t, len(tl.FileClaims), len(again.FileClaims))
			assert.Equal(t, len(tl.ToolClaims), len(again.ToolClaims))
			assert.Equal(t, len(tl.Presence), len(again.Presence))
			for _, b := range again.FileClaims {
				for _, r := range b.Resources {
					assert.False(t, strings.ContainsAny(r, "|\n\r"), r)
				}
			}
		}
	})
}

func TestTeamCheckoutOfAStrangerKeepsTheLock(t *testing.T) {
	p := newTeamFile(t, "LOCK.team.LAPTOP.txt")
	before := readTeam(t, p)
	res, err := UpdateTeamLock(p, teamNow, TeamOp{Action: TeamCheckout, Agent: "nobody"}, TeamUpdateOptions{})
	require.NoError(t, err)
	assert.False(t, res.Deleted)
	assert.False(t, res.Changed)
	assert.Equal(t, before, readTeam(t, p), "an agent that was never checked in removes nothing")
}

func TestTeamPresenceAndMessageEditsKeepOtherLinesAsWritten(t *testing.T) {
	body := teamHeader + TeamSectionsTemplate()
	body = strings.Replace(body, "# PRESENCE:\n", "# PRESENCE:\n# [loop-001] | [agent-name] | role | task | start\nloop-7 | agent-9 |  lead | plan [v2] | 2026-01-01T00:00:00+01:00\n[loop-01] | [agent-1] | old | old | 2026-01-01T00:00:00+01:00\n", 1)
	body += "[2026-01-01T00:00:00+01:00] [agent-9]: hello\n# a comment after the messages\n\n"
	p := writeTeam(t, body)
	_, err := UpdateTeamLock(p, teamNow, TeamOp{Action: TeamCheckin, Agent: "agent-1", Role: "writer", Task: "docs [part 2]"}, TeamUpdateOptions{})
	require.NoError(t, err)
	_, err = UpdateTeamLock(p, teamNow, TeamOp{Action: TeamPostMessage, Agent: "agent-1", Text: "bye"}, TeamUpdateOptions{})
	require.NoError(t, err)
	got := readTeam(t, p)
	assert.Contains(t, got, "# PRESENCE:\n# [loop-001] | [agent-name] | role | task | start\nloop-7 | agent-9 |  lead | plan [v2] | 2026-01-01T00:00:00+01:00\n[loop-01] | [agent-1] | writer | docs [part 2] | 2026-09-20T10:00:00+02:00\n\n# ====")
	assert.True(t, strings.HasSuffix(got, "[2026-01-01T00:00:00+01:00] [agent-9]: hello\n# a comment after the messages\n[2026-09-20T10:00:00+02:00] [agent-1]: bye\n"), got)
}

func TestTeamRefusesHeadersAndBytesItCannotKeep(t *testing.T) {
	full := teamHeader + TeamSectionsTemplate()
	for name, body := range map[string]string{
		"an upper-case header key":  "Owner: x\n" + strings.Replace(full, "owner: lead\n", "", 1),
		"a file that is not UTF-8":  strings.Replace(full, "scope: project", "scope: \xff", 1),
		"a header value with a NUL": strings.Replace(full, "scope: project", "scope: a\x00b", 1),
	} {
		t.Run(name, func(t *testing.T) {
			p := writeTeam(t, body)
			_, err := teamClaim(p, "agent-1", false, "src")
			var fe *TeamFormatError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, body, readTeam(t, p))
		})
	}
}
