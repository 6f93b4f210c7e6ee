package lockcore

import (
	"bufio"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The race and crash tests run real processes: the test binary re-executed with
// GUARD_LOCKCORE_CHILD set runs TestLockRaceChild, which serves commands read from
// stdin. One pool of children serves every round, so each round is 50 real processes
// racing without paying 50 process starts per round.
const childEnv = "GUARD_LOCKCORE_CHILD"

func TestLockRaceChild(t *testing.T) {
	mode := os.Getenv(childEnv)
	if mode == "" {
		t.Skip("helper process for the race tests")
	}
	owner := os.Getenv("GUARD_LOCKCORE_OWNER")
	if mode == "crash" {
		// Create and release as fast as possible until killed.
		dir := os.Getenv("GUARD_LOCKCORE_DIR")
		s := Spec{Dir: dir, Kind: Exclusive, Owner: owner, Host: "h", Expires: "1h", Purpose: strings.Repeat("p", 2000)}
		fmt.Println("ready")
		for {
			res, err := Acquire(s, AcquireOptions{Now: time.Now()})
			if err == nil {
				_, _ = Release(res.Path, ReleaseOptions{Owner: owner, Now: time.Now()})
			}
		}
	}
	if mode == "mutex" {
		// Enter the critical section n times: claim, log enter/exit, release.
		dir, log := os.Getenv("GUARD_LOCKCORE_DIR"), os.Getenv("GUARD_LOCKCORE_LOG")
		s := Spec{Dir: dir, Kind: Exclusive, Owner: owner, Host: "h", Expires: "1h"}
		for n := 0; n < 20; {
			res, err := Acquire(s, AcquireOptions{Now: time.Now()})
			if err != nil {
				if _, ok := err.(*ConflictError); !ok {
					fmt.Fprintln(os.Stderr, "acquire:", err)
					os.Exit(1)
				}
				time.Sleep(100 * time.Microsecond)
				continue
			}
			f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
			if err != nil {
				os.Exit(1)
			}
			fmt.Fprintf(f, "enter %s\n", owner)
			time.Sleep(200 * time.Microsecond) // give a second holder, if any, time to show
			fmt.Fprintf(f, "exit %s\n", owner)
			_ = f.Close()
			if _, err := Release(res.Path, ReleaseOptions{Owner: owner, Now: time.Now()}); err != nil {
				fmt.Fprintln(os.Stderr, "release:", err)
				os.Exit(1)
			}
			n++
		}
		os.Exit(0)
	}
	in := bufio.NewScanner(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		cmd, dir, _ := strings.Cut(in.Text(), " ")
		s := Spec{Dir: dir, Kind: Exclusive, Owner: owner, Host: "h", Expires: "1h", Purpose: strings.Repeat("p", 500)}
		res, err := Acquire(s, AcquireOptions{Now: time.Now()})
		var ce *ConflictError
		switch {
		case err == nil && (cmd == "create" && res.Action == Created || cmd == "takeover" && res.Action == TookOver):
			fmt.Fprintf(out, "won %d\n", res.Fence)
		case err == nil:
			fmt.Fprintf(out, "err unexpected action %s\n", res.Action)
		case asConflict(err, &ce):
			// What a loser read must be a whole lock: an owner and a fence.
			f, ok := ce.Lock.Fence()
			if ce.Lock.Owner == "" || !ok || !strings.Contains(strings.Join(ce.Lock.Fields.Lines, "\n"), "scope: project") {
				fmt.Fprintf(out, "torn %q\n", strings.Join(ce.Lock.Fields.Lines, "|"))
			} else {
				fmt.Fprintf(out, "lost %s %d\n", ce.Lock.Owner, f)
			}
		default:
			fmt.Fprintf(out, "err %v\n", err)
		}
		_ = out.Flush()
	}
	os.Exit(0)
}

func asConflict(err error, ce **ConflictError) bool {
	c, ok := err.(*ConflictError)
	*ce = c
	return ok
}

type child struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startChildren(t *testing.T, n int) []*child {
	t.Helper()
	kids := make([]*child, n)
	for i := range kids {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLockRaceChild$")
		cmd.Env = append(os.Environ(), childEnv+"=serve", fmt.Sprintf("GUARD_LOCKCORE_OWNER=p%02d", i))
		in, err := cmd.StdinPipe()
		require.NoError(t, err)
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		cmd.Stderr = os.Stderr
		require.NoError(t, cmd.Start())
		kids[i] = &child{cmd: cmd, in: in, out: bufio.NewReader(out)}
	}
	t.Cleanup(func() {
		for _, k := range kids {
			_ = k.in.Close()
			_ = k.cmd.Wait()
		}
	})
	return kids
}

// round sends one command to every child at once and collects the answers.
func round(t *testing.T, kids []*child, line string) []string {
	t.Helper()
	answers := make([]string, len(kids))
	var wg sync.WaitGroup
	for i, k := range kids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := io.WriteString(k.in, line+"\n"); err != nil {
				answers[i] = "err " + err.Error()
				return
			}
			s, err := k.out.ReadString('\n')
			if err != nil {
				answers[i] = "err " + err.Error()
				return
			}
			answers[i] = strings.TrimSpace(s)
		}()
	}
	wg.Wait()
	return answers
}

func raceRounds() int {
	if testing.Short() {
		return 10
	}
	return 100
}

func TestRaceFiftyProcessesClaimingOneLockHaveExactlyOneWinner(t *testing.T) {
	kids := startChildren(t, 50)
	base := t.TempDir()
	for r := 0; r < raceRounds(); r++ {
		dir := filepath.Join(base, fmt.Sprint(r))
		require.NoError(t, os.Mkdir(dir, 0o755))
		answers := round(t, kids, "create "+dir)
		winners := checkRound(t, r, answers)
		require.Len(t, winners, 1, "round %d: %v", r, answers)
		l, err := ReadLock(filepath.Join(dir, "LOCK.txt"), time.Local)
		require.NoError(t, err)
		assert.Equal(t, winners[0], l.Owner, "round %d", r)
		assertNoScratch(t, dir)
	}
}

func TestRaceFiftyProcessesTakingOverOneExpiredLockHaveExactlyOneWinner(t *testing.T) {
	kids := startChildren(t, 50)
	base := t.TempDir()
	for r := 0; r < raceRounds(); r++ {
		dir := filepath.Join(base, fmt.Sprint(r))
		require.NoError(t, os.Mkdir(dir, 0o755))
		old := time.Now().Add(-2 * time.Hour)
		stale := Spec{Dir: dir, Kind: Exclusive, Owner: "crashed", Host: "h", Expires: "1h"}
		require.NoError(t, os.WriteFile(stale.Path(), stale.Body(old, 1000), 0o644))
		answers := round(t, kids, "takeover "+dir)
		winners := checkRound(t, r, answers)
		require.Len(t, winners, 1, "round %d: %v", r, answers)
		l, err := ReadLock(stale.Path(), time.Local)
		require.NoError(t, err)
		assert.Equal(t, winners[0], l.Owner, "round %d", r)
		f, ok := l.Fence()
		assert.True(t, ok)
		assert.Greater(t, f, int64(1000))
		assertNoScratch(t, dir)
	}
}

// checkRound returns the winners' owners and fails on torn reads, errors, and losers
// that saw someone other than the winner.
func checkRound(t *testing.T, r int, answers []string) []string {
	t.Helper()
	var winners []string
	seen := map[string]bool{}
	for i, a := range answers {
		switch {
		case strings.HasPrefix(a, "won "):
			winners = append(winners, fmt.Sprintf("p%02d", i))
		case strings.HasPrefix(a, "lost "):
			seen[strings.Fields(a)[1]] = true
		default:
			t.Fatalf("round %d, child %d: %s", r, i, a)
		}
	}
	if len(winners) == 1 {
		for o := range seen {
			assert.Equal(t, winners[0], o, "round %d: a loser saw a lock of someone who did not win", r)
		}
	}
	return winners
}

func TestCrashKilledCreatorsLeaveNoLockOrAWholeOne(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	iterations := 50
	for i := 0; i < iterations; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLockRaceChild$")
		cmd.Env = append(os.Environ(), childEnv+"=crash", "GUARD_LOCKCORE_OWNER=crasher", "GUARD_LOCKCORE_DIR="+dir)
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		_, err = bufio.NewReader(out).ReadString('\n')
		require.NoError(t, err)
		time.Sleep(time.Duration(rng.Intn(3000)) * time.Microsecond)
		require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
		_ = cmd.Wait()

		p := filepath.Join(dir, "LOCK.txt")
		if data, err := os.ReadFile(p); err == nil {
			l, err := ParseLock(p, data, time.Now(), time.Local)
			require.NoError(t, err)
			_, ok := l.Fence()
			require.True(t, ok && l.Owner == "crasher" && strings.HasSuffix(string(data), "scope: project\n"), "iteration %d: torn lock %q", i, data)
			require.NoError(t, os.Remove(p))
		}
		// Whatever scratch the killed writer left is never a lock.
		locks, err := ReadDir(dir, time.Local)
		require.NoError(t, err)
		require.Empty(t, locks)
	}
	// The next creation sweeps the debris of every killed writer.
	_, err := Acquire(spec(dir), AcquireOptions{Now: time.Now()})
	require.NoError(t, err)
	assertNoScratch(t, dir)
}

func TestRaceLockAndUnlockGiveMutualExclusion(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(t.TempDir(), "log")
	var cmds []*exec.Cmd
	for i := 0; i < 10; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLockRaceChild$")
		cmd.Env = append(os.Environ(), childEnv+"=mutex", fmt.Sprintf("GUARD_LOCKCORE_OWNER=m%02d", i), "GUARD_LOCKCORE_DIR="+dir, "GUARD_LOCKCORE_LOG="+log)
		cmd.Stderr = os.Stderr
		require.NoError(t, cmd.Start())
		cmds = append(cmds, cmd)
	}
	for _, c := range cmds {
		require.NoError(t, c.Wait())
	}
	data, err := os.ReadFile(log)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	require.Len(t, lines, 10*20*2)
	for i := 0; i < len(lines); i += 2 {
		who := strings.TrimPrefix(lines[i], "enter ")
		require.True(t, strings.HasPrefix(lines[i], "enter "), "line %d: %s", i, lines[i])
		require.Equal(t, "exit "+who, lines[i+1], "line %d: two holders at once", i)
	}
	assertNoScratch(t, dir)
}
