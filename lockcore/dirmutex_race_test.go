package lockcore

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The overlap race runs real processes too: the test binary re-executed with
// GUARD_LOCKCORE_OVERLAP set runs TestOverlapRaceChild, which claims, for each line
// "<dir>" read from stdin, the lock of its scope (GUARD_LOCKCORE_SCOPE; empty for
// LOCK.txt) in dir and answers "won" or "lost".
const overlapChildEnv = "GUARD_LOCKCORE_OVERLAP"

func TestOverlapRaceChild(t *testing.T) {
	if os.Getenv(overlapChildEnv) == "" {
		t.Skip("helper process for the overlap race test")
	}
	owner, scope := os.Getenv("GUARD_LOCKCORE_OWNER"), os.Getenv("GUARD_LOCKCORE_SCOPE")
	in := bufio.NewScanner(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		s := Spec{Dir: in.Text(), Kind: Exclusive, Scope: scope, Owner: owner, Host: "h", Expires: "1h"}
		now := time.Now()
		res, err := Acquire(s, AcquireOptions{Now: now, Respect: anyOtherLockRefuses(now)})
		switch {
		case err == nil && res.Action == Created:
			fmt.Fprintln(out, "won")
		case err == nil:
			fmt.Fprintf(out, "err unexpected action %s\n", res.Action)
		default:
			if _, ok := err.(*ConflictError); ok {
				fmt.Fprintln(out, "lost")
			} else {
				fmt.Fprintf(out, "err %v\n", err)
			}
		}
		_ = out.Flush()
	}
	os.Exit(0)
}

// TestRaceOverlappingLocksOfTwoOwnersHaveExactlyOneWinner: LOCK.txt and LOCK.web.txt
// are different files, so link(2) alone cannot make their creators exclusive; the
// directory's creation mutex must. Each round, owners taking the two names in one
// fresh directory start at once: exactly one of them may win.
func TestRaceOverlappingLocksOfTwoOwnersHaveExactlyOneWinner(t *testing.T) {
	type kid struct {
		in  io.WriteCloser
		out *bufio.Reader
	}
	// Two owners per name (four processes) make the window easy to hit without the
	// mutex; every one of them has a distinct owner, so only one claim may stand.
	scopes := []string{"", "web", "", "web"}
	var kids []kid
	for i, scope := range scopes {
		cmd := exec.Command(os.Args[0], "-test.run=^TestOverlapRaceChild$")
		cmd.Env = append(os.Environ(), overlapChildEnv+"=1", fmt.Sprintf("GUARD_LOCKCORE_OWNER=o%d", i), "GUARD_LOCKCORE_SCOPE="+scope)
		in, err := cmd.StdinPipe()
		require.NoError(t, err)
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		cmd.Stderr = os.Stderr
		require.NoError(t, cmd.Start())
		kids = append(kids, kid{in, bufio.NewReader(out)})
		t.Cleanup(func() { _ = in.Close(); _ = cmd.Wait() })
	}
	base := t.TempDir()
	for r := 0; r < 40; r++ {
		dir := filepath.Join(base, fmt.Sprint(r))
		require.NoError(t, os.Mkdir(dir, 0o755))
		answers := make([]string, len(kids))
		var wg sync.WaitGroup
		for i, k := range kids {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := io.WriteString(k.in, dir+"\n"); err != nil {
					answers[i] = "err " + err.Error()
					return
				}
				s, err := k.out.ReadString('\n')
				answers[i] = strings.TrimSpace(s)
				if err != nil {
					answers[i] = "err " + err.Error()
				}
			}()
		}
		wg.Wait()
		won := 0
		for i, a := range answers {
			switch a {
			case "won":
				won++
			case "lost":
			default:
				t.Fatalf("round %d, child %d: %s", r, i, a)
			}
		}
		require.Equal(t, 1, won, "round %d: %v", r, answers)
		locks, err := ReadDir(dir, time.Local)
		require.NoError(t, err)
		require.Len(t, locks, 1, "round %d", r)
		assertNoScratch(t, dir)
	}
}

// A creation mutex left by a killed claimant holds no flock: the next claim takes it,
// removes it on release, and it never reads as a lock.
func TestAStaleCreationMutexNeitherBlocksNorCountsAsALock(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, DirMutexName), nil, 0o644))
	locks, err := ReadDir(dir, time.Local)
	require.NoError(t, err)
	require.Empty(t, locks)
	res, err := Acquire(spec(dir), AcquireOptions{Now: t0})
	require.NoError(t, err)
	require.Equal(t, Created, res.Action)
	assertNoScratch(t, dir)
}

// anyOtherLockRefuses is the smallest RESPECT that makes LOCK.txt and LOCK.web.txt of
// two owners exclusive: any other live lock of another owner in the directory refuses.
// The rule itself is guard's (Policy.CheckClaim); this test is about the mutex under
// which Acquire asks it.
func anyOtherLockRefuses(now time.Time) func(Spec, string) ([]string, error) {
	return func(s Spec, path string) ([]string, error) {
		locks, err := ReadDir(s.Dir, nil)
		if err != nil {
			return nil, err
		}
		for _, l := range locks {
			if l.Path != path && l.Active(now) && l.Owner != s.Owner {
				return nil, &ConflictError{Lock: l, Reason: "it covers " + s.Dir}
			}
		}
		return nil, nil
	}
}
