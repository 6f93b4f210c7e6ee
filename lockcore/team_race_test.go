package lockcore

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Child processes re-run this test binary with GUARD_TEAM_CHILD set; the parent tests
// below start them all, then release them together through a start file.
const teamChildEnv = "GUARD_TEAM_CHILD"

// TestTeamChildProcess is the body of a child process; run normally it does nothing.
func TestTeamChildProcess(t *testing.T) {
	what := os.Getenv(teamChildEnv)
	if what == "" {
		t.Skip("only runs as a child process of the team race tests")
	}
	path, agent, start := os.Getenv("TEAM_PATH"), os.Getenv("TEAM_AGENT"), os.Getenv("TEAM_START")
	for deadline := time.Now().Add(10 * time.Second); start != ""; {
		if _, err := os.Stat(start); err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	var err error
	switch what {
	case "checkin":
		_, err = UpdateTeamLock(path, teamNow, TeamOp{Action: TeamCheckin, Agent: agent, Role: "worker", Task: "race"}, TeamUpdateOptions{GuardTimeout: 20 * time.Second})
	case "claim":
		_, err = UpdateTeamLock(path, teamNow, TeamOp{Action: TeamClaim, Agent: agent, Section: SectionFileClaims, Resources: []string{"src", "tests"}}, TeamUpdateOptions{GuardTimeout: 20 * time.Second})
	case "churn":
		// Check in new agents until killed.
		for i := 0; ; i++ {
			if _, err = UpdateTeamLock(path, teamNow, TeamOp{Action: TeamCheckin, Agent: fmt.Sprintf("%s-%d", agent, i), Role: "r", Task: "t"}, TeamUpdateOptions{GuardTimeout: 20 * time.Second}); err != nil {
				break
			}
		}
	case "hold-and-die":
		if _, err = acquireTeamGuard(path, time.Second); err == nil {
			os.Exit(23) // the OS must drop the guard with the process
		}
	}
	var ce *TeamConflictError
	switch {
	case err == nil:
		os.Exit(0)
	case errors.As(err, &ce):
		os.Exit(1)
	default:
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}

type teamChild struct {
	cmd    *exec.Cmd
	stderr strings.Builder
}

func startTeamChildren(t *testing.T, n int, what, path string) ([]*teamChild, string) {
	t.Helper()
	start := filepath.Join(t.TempDir(), "go")
	var kids []*teamChild
	for i := 0; i < n; i++ {
		k := &teamChild{cmd: exec.Command(os.Args[0], "-test.run=^TestTeamChildProcess$", "-test.count=1")}
		k.cmd.Env = append(os.Environ(), teamChildEnv+"="+what, "TEAM_PATH="+path,
			fmt.Sprintf("TEAM_AGENT=agent-%02d", i), "TEAM_START="+start)
		k.cmd.Stderr = &k.stderr
		require.NoError(t, k.cmd.Start())
		kids = append(kids, k)
	}
	return kids, start
}

func waitTeamChildren(t *testing.T, kids []*teamChild) []int {
	t.Helper()
	codes := make([]int, len(kids))
	for i, k := range kids {
		err := k.cmd.Wait()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			codes[i] = ee.ExitCode()
		} else {
			require.NoError(t, err)
		}
		if codes[i] == 2 {
			t.Errorf("child %d failed: %s", i, k.stderr.String())
		}
	}
	return codes
}

func TestTwentyAgentsCheckingInAtOnceAreAllRecorded(t *testing.T) {
	for round := 0; round < 3; round++ {
		twentyCheckIns(t)
	}
}

func twentyCheckIns(t *testing.T) {
	p := newTeamFile(t, "LOCK.team.LAPTOP.txt")
	kids, start := startTeamChildren(t, 20, "checkin", p)
	require.NoError(t, os.WriteFile(start, nil, 0o644))
	codes := waitTeamChildren(t, kids)
	for i, c := range codes {
		assert.Equal(t, 0, c, "child %d", i)
	}
	tl, err := ReadTeamLock(p)
	require.NoError(t, err)
	seen := map[string]bool{}
	for _, e := range tl.Presence {
		seen[e.Agent] = true
	}
	for i := 0; i < 20; i++ {
		assert.True(t, seen[fmt.Sprintf("agent-%02d", i)], "agent-%02d lost", i)
	}
	assert.Len(t, tl.Presence, 20)
	entries, err := os.ReadDir(filepath.Dir(p))
	require.NoError(t, err)
	for _, e := range entries {
		assert.False(t, strings.HasSuffix(e.Name(), ".tmp"), "temp file %s left behind", e.Name())
	}
}

func TestFourProcessesClaimingOneBundleHaveExactlyOneWinner(t *testing.T) {
	for round := 0; round < 3; round++ {
		p := newTeamFile(t, "LOCK.team.LAPTOP.txt")
		kids, start := startTeamChildren(t, 4, "claim", p)
		require.NoError(t, os.WriteFile(start, nil, 0o644))
		codes := waitTeamChildren(t, kids)
		wins, losses := 0, 0
		for _, c := range codes {
			switch c {
			case 0:
				wins++
			case 1:
				losses++
			}
		}
		assert.Equal(t, 1, wins, "round %d: %v", round, codes)
		assert.Equal(t, 3, losses, "round %d: %v", round, codes)
		assert.Equal(t, 1, strings.Count(readTeam(t, p), "EDITING  order="))
	}
}

func TestTheGuardIsReleasedWhenItsHolderDies(t *testing.T) {
	p := newTeamFile(t, "LOCK.team.LAPTOP.txt")
	kids, start := startTeamChildren(t, 1, "hold-and-die", p)
	require.NoError(t, os.WriteFile(start, nil, 0o644))
	codes := waitTeamChildren(t, kids)
	require.Equal(t, 23, codes[0])
	began := time.Now()
	release, err := acquireTeamGuard(p, time.Second)
	require.NoError(t, err)
	release()
	assert.Less(t, time.Since(began), time.Second)
	assert.FileExists(t, p+".guard")
	assert.True(t, strings.HasSuffix(p+".guard", ".txt.guard"))
}

func TestAWriterKilledMidUpdateLeavesACompleteFile(t *testing.T) {
	p := newTeamFile(t, "LOCK.team.LAPTOP.txt")
	seen := map[string]bool{}
	for round := 0; round < 15; round++ {
		kids, start := startTeamChildren(t, 1, "churn", p)
		require.NoError(t, os.WriteFile(start, nil, 0o644))
		time.Sleep(time.Duration(5+round*4) * time.Millisecond)
		require.NoError(t, kids[0].cmd.Process.Kill())
		_ = kids[0].cmd.Wait()

		tl, err := ReadTeamLock(p)
		require.NoError(t, err, "round %d: the file must be complete and valid", round)
		now := map[string]bool{}
		for _, e := range tl.Presence {
			now[e.Agent] = true
		}
		for a := range seen {
			assert.True(t, now[a], "round %d: %s was lost", round, a)
		}
		seen = now
		release, err := acquireTeamGuard(p, time.Second)
		require.NoError(t, err, "the dead writer's guard is free")
		release()
	}
	assert.NotEmpty(t, seen)
}
