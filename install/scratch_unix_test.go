//go:build unix

package install

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/cmd/guard/exitcode"
	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/filelock"
	"github.com/guardlocks/guard/internal/testing/guardtest"
	"github.com/guardlocks/guard/internal/testing/guardtest/envtest"
	"github.com/guardlocks/guard/internal/testing/testenv"
	"github.com/guardlocks/guard/internal/wait"
	"github.com/guardlocks/guard/lockcore"
)

// TestMain lets the tests run this binary as a guard process that holds scratch files
// as guard's writers and waiters do (each under its OS lock) and then is killed, or
// keeps them while it lives: INSTALL_TEST_HOLD lists "temp:PATH", "mutex:PATH" and
// "ticket:QUEUEDIR" items separated by newlines; it says "ready" and waits for stdin.
func TestMain(m *testing.M) {
	if spec := os.Getenv("INSTALL_TEST_HOLD"); spec != "" {
		for _, item := range strings.Split(spec, "\n") {
			kind, p, _ := strings.Cut(item, ":")
			var err error
			switch kind {
			case "temp": // as lockcore.writeTemp and atomicfile.Write: created, then locked
				var f *os.File
				if f, err = os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644); err == nil {
					if err = filelock.TryLock(f); err == nil {
						_, err = f.WriteString("owner: half-written\n")
					}
				}
			case "mutex":
				_, err = filelock.Mutex{Path: p, Transient: true}.Lock(context.Background())
			case "ticket":
				_, err = wait.Join(p)
			}
			if err != nil {
				fmt.Println("error", err)
				os.Exit(2)
			}
		}
		fmt.Println("ready")
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// holder starts a process holding items; it is killed at the end of the test.
func holder(t *testing.T, items ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=XXX")
	cmd.Env = append(os.Environ(), "INSTALL_TEST_HOLD="+strings.Join(items, "\n"))
	_, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, _ := bufio.NewReader(out).ReadString('\n')
	require.Equal(t, "ready\n", line)
	return cmd
}

// kill ends a holder with SIGKILL, as a crash would: nothing of it cleans up.
func kill(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	pid := cmd.Process.Pid
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	require.False(t, processAlive(pid), "the killed process is gone")
	return pid
}

func makeOld(t *testing.T, d time.Duration, paths ...string) {
	t.Helper()
	at := time.Now().Add(-d)
	for _, p := range paths {
		require.NoError(t, os.Chtimes(p, at, at))
	}
}

func TestDoctorFindsAndSweepsStrandedScratch(t *testing.T) {
	base := t.TempDir()
	top := filepath.Join(base, "repo")
	require.NoError(t, os.MkdirAll(filepath.Join(top, "src", ".claude"), 0o755))
	vars := map[string]string{"PATH": testenv.Path(), "HOME": base, "XDG_STATE_HOME": filepath.Join(base, "state"),
		"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": filepath.Join(base, "gitconfig")}
	guardtest.InitRepo(t, top)
	state := filepath.Join(base, "state", "guard")
	hooks := filepath.Join(top, ".git", "hooks")

	// What a killed claim, a killed hook installer, a killed agent-install and a
	// killed waiter leave behind.
	deadTemp := filepath.Join(top, "src", ".LOCK.txt.0123456789abcdef.tmp")
	deadMutex := filepath.Join(top, lockcore.DirMutexName)
	deadHook := filepath.Join(hooks, ".pre-commit.4242.tmp")
	deadSettings := filepath.Join(top, "src", ".claude", ".settings.json.77.tmp")
	deadQueue := filepath.Join(state, "queue", "claims") // guard.QueueDir: the one queue of claims
	deadImport := filepath.Join(state, "events.jsonl.import")
	dead := holder(t, "temp:"+deadTemp, "mutex:"+deadMutex, "temp:"+deadHook, "temp:"+deadSettings, "ticket:"+deadQueue, "mutex:"+deadImport)
	deadPID := kill(t, dead)
	deadTicket := filepath.Join(deadQueue, "00000000000000000001.ticket")
	require.FileExists(t, deadTicket)

	// What a live process holds, just as old.
	liveTemp := filepath.Join(top, ".LOCK.web.txt.fedcba9876543210.tmp")
	liveQueue := lockcore.QueueDir(filepath.Join(state, "queue"), filepath.Join(top, "LOCK.web.txt")) // an earlier version's per-lock queue
	live := holder(t, "temp:"+liveTemp, "ticket:"+liveQueue)
	liveTicket := filepath.Join(liveQueue, "00000000000000000001.ticket")

	// A stranded file that is too young, and files that only look like scratch.
	young := filepath.Join(top, "src", ".LOCK.api.txt.00000000000000aa.tmp")
	require.NoError(t, os.WriteFile(young, nil, 0o644))
	lockFile := filepath.Join(top, "src", "LOCK.old.txt")
	userTemp := filepath.Join(top, "src", ".notes.123.tmp")           // a user's, not guard's
	userSettings := filepath.Join(top, "src", ".settings.json.5.tmp") // not in an agent folder
	queueLock := filepath.Join(deadQueue, "queue.lock")
	for _, p := range []string{lockFile, userTemp, userSettings} {
		require.NoError(t, os.WriteFile(p, []byte("created: 2020-01-01T00:00:00\n"), 0o644))
	}
	old := []string{deadTemp, deadMutex, deadHook, deadSettings, deadTicket, deadImport, liveTemp, liveTicket, lockFile, userTemp, userSettings, queueLock}
	makeOld(t, 2*time.Hour, old...)

	env := func() (*guard.Env, *bytes.Buffer) {
		var out bytes.Buffer
		return envtest.New(envtest.Streams(&out, &out), envtest.Clock(lockcore.ClockFunc(time.Now)),
			envtest.Identity("u", "h"), envtest.Dir(top), envtest.Vars(vars)).Env, &out
	}

	e, stdout := env()
	err := RunDoctor(context.Background(), DoctorOptions{Env: e, JSON: true, StateMutexes: []string{"events.jsonl.import"}})
	var rep DoctorReport
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &rep), stdout.String())
	byPath := map[string]ScratchReport{}
	for _, s := range rep.Scratch {
		byPath[s.Path] = s
	}
	stranded := []string{deadTemp, deadMutex, deadHook, deadSettings, deadTicket, deadImport}
	for _, p := range stranded {
		s, ok := byPath[p]
		if assert.True(t, ok, "reported: %s", p) {
			assert.True(t, s.Stranded, p)
			assert.False(t, s.Held, p)
			assert.GreaterOrEqual(t, s.AgeSeconds, int64(7190), p)
		}
	}
	assert.Equal(t, "ticket", byPath[deadTicket].Kind)
	assert.Equal(t, deadPID, byPath[deadTicket].PID)
	require.NotNil(t, byPath[deadTicket].PIDAlive)
	assert.False(t, *byPath[deadTicket].PIDAlive)
	assert.Equal(t, "mutex", byPath[deadMutex].Kind)
	assert.Equal(t, "mutex", byPath[deadImport].Kind)
	assert.Equal(t, "temp", byPath[deadHook].Kind)
	for _, p := range []string{liveTemp, liveTicket} {
		assert.True(t, byPath[p].Held, p)
		assert.False(t, byPath[p].Stranded, p)
	}
	assert.Equal(t, live.Process.Pid, byPath[liveTicket].PID)
	assert.False(t, byPath[young].Stranded, "too young to call stranded")
	assert.False(t, byPath[young].Held)
	for _, p := range []string{lockFile, userTemp, userSettings, queueLock} {
		_, ok := byPath[p]
		assert.False(t, ok, "not scratch: %s", p)
	}
	assert.Len(t, rep.Scratch, 9)
	assert.Equal(t, exitcode.Refused, exitcode.Of(err), "stranded scratch files are problems")
	for _, p := range stranded {
		assert.Contains(t, rep.Problems, fmt.Sprintf("stranded scratch file %s (%s, 2h0m old, held by no process): `guard doctor --sweep` removes it", p, byPath[p].Kind))
	}
	for _, p := range append(stranded, liveTemp, liveTicket, young) {
		assert.FileExists(t, p, "doctor without --sweep removes nothing")
	}

	// The text report names each file with its age and state.
	e, stdout = env()
	_ = RunDoctor(context.Background(), DoctorOptions{Env: e, StateMutexes: []string{"events.jsonl.import"}})
	text := stdout.String()
	assert.Contains(t, text, "scratch files: 9\n")
	assert.Contains(t, text, fmt.Sprintf("  ticket     2h0m  %s pid %d (gone): stranded (guard doctor --sweep removes it)\n", deadTicket, deadPID))
	assert.Contains(t, text, fmt.Sprintf("  temp       2h0m  %s: in use\n", liveTemp))
	assert.Contains(t, text, fmt.Sprintf("  temp         0s  %s: recent, nobody holds it\n", young))

	e, stdout = env()
	err = RunDoctor(context.Background(), DoctorOptions{Env: e, JSON: true, Sweep: true, StateMutexes: []string{"events.jsonl.import"}})
	rep = DoctorReport{}
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &rep), stdout.String())
	removed := 0
	for _, s := range rep.Scratch {
		if s.Removed {
			removed++
			assert.Contains(t, stranded, s.Path)
		}
	}
	assert.Equal(t, len(stranded), removed)
	for _, p := range stranded {
		assert.NoFileExists(t, p, "swept")
	}
	for _, p := range []string{liveTemp, liveTicket, young, lockFile, userTemp, userSettings, queueLock} {
		assert.FileExists(t, p, "kept")
	}
	for _, p := range rep.Problems {
		assert.NotContains(t, p, "stranded", "nothing stranded is left")
	}
	_ = err

	// Once the live holder is killed too, its files become stranded (after the age).
	kill(t, live)
	e, stdout = env()
	_ = RunDoctor(context.Background(), DoctorOptions{Env: e, JSON: true, Sweep: true})
	assert.NoFileExists(t, liveTemp)
	assert.NoFileExists(t, liveTicket)
	assert.FileExists(t, young)
}

func TestSweepKeepsATicketWhoseProcessRuns(t *testing.T) {
	// A ticket nobody locks but whose recorded process still runs (a file system
	// where the lock was lost, a reused pid) is kept: the pid must be gone too.
	q := t.TempDir()
	p := filepath.Join(q, "00000000000000000001.ticket")
	require.NoError(t, os.WriteFile(p, []byte(fmt.Sprintf("pid: %d\n", os.Getpid())), 0o600))
	makeOld(t, time.Hour, p)
	r := judgeScratch(p, "ticket", os.Getpid(), time.Now())
	assert.False(t, r.Held)
	require.NotNil(t, r.PIDAlive)
	assert.True(t, *r.PIDAlive)
	assert.False(t, r.Stranded)
}
