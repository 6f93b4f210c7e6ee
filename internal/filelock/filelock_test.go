package filelock

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestMain lets a test start this binary as a second process that holds a mutex:
// FILELOCK_HOLD=<path> takes it, prints "held", and keeps it until stdin closes.
func TestMain(m *testing.M) {
	if p := os.Getenv("FILELOCK_HOLD"); p != "" {
		release, err := Mutex{Path: p, Transient: os.Getenv("FILELOCK_TRANSIENT") != ""}.Lock(context.Background())
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(2)
		}
		fmt.Println("held")
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		release()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// holder is a second process holding the mutex at path until release or kill.
type holder struct {
	cmd   *exec.Cmd
	stdin interface{ Close() error }
}

func startHolder(t *testing.T, path string, transient bool) *holder {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = []string{"FILELOCK_HOLD=" + path}
	if transient {
		cmd.Env = append(cmd.Env, "FILELOCK_TRANSIENT=1")
	}
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	h := &holder{cmd: cmd, stdin: stdin}
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "held\n", line)
	return h
}

// release makes the holder let go and waits for it to exit.
func (h *holder) release(t *testing.T) {
	t.Helper()
	require.NoError(t, h.stdin.Close())
	require.NoError(t, h.cmd.Wait())
}

func TestMutexExcludesASecondProcessUntilItReleases(t *testing.T) {
	for _, transient := range []bool{false, true} {
		t.Run(fmt.Sprintf("transient=%v", transient), func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "m.mutex")
			m := Mutex{Path: p, Transient: transient}
			h := startHolder(t, p, transient)

			_, err := m.TryLock()
			require.ErrorIs(t, err, ErrBusy)

			got := make(chan error, 1)
			go func() {
				release, err := m.Lock(context.Background())
				if err == nil {
					release()
				}
				got <- err
			}()
			select {
			case err := <-got:
				t.Fatalf("Lock returned %v while another process holds the mutex", err)
			case <-time.After(100 * time.Millisecond):
			}
			h.release(t)
			select {
			case err := <-got:
				require.NoError(t, err)
			case <-time.After(30 * time.Second):
				t.Fatal("Lock still waiting after the holder released")
			}
			_, err = os.Lstat(p)
			if transient {
				require.ErrorIs(t, err, os.ErrNotExist, "a transient mutex leaves no file behind")
			} else {
				require.NoError(t, err, "a lasting mutex keeps its file")
			}
		})
	}
}

func TestMutexIsFreedWhenItsHolderIsKilled(t *testing.T) {
	p := filepath.Join(t.TempDir(), "m.mutex")
	h := startHolder(t, p, true)
	require.NoError(t, h.cmd.Process.Kill())
	_ = h.cmd.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	release, err := Mutex{Path: p, Transient: true}.Lock(ctx)
	require.NoError(t, err)
	release()
}

func TestLockStopsWaitingWhenTheContextEnds(t *testing.T) {
	p := filepath.Join(t.TempDir(), "m.mutex")
	startHolder(t, p, false)
	m := Mutex{Path: p}

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := m.Lock(ctx)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.ErrorContains(t, err, p)

	ctx, cancel = context.WithCancel(context.Background())
	got := make(chan error, 1)
	go func() {
		_, err := m.Lock(ctx)
		got <- err
	}()
	cancel()
	select {
	case err := <-got:
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(30 * time.Second):
		t.Fatal("Lock kept waiting after its context was cancelled")
	}
}

func TestLockOnAnOpenFileWaitsForTheOtherProcess(t *testing.T) {
	p := filepath.Join(t.TempDir(), "team.guard")
	h := startHolder(t, p, false)
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	require.NoError(t, err)
	defer f.Close()
	require.ErrorIs(t, TryLock(f), ErrBusy)
	h.release(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, Lock(ctx, f))
	require.NoError(t, Unlock(f))
}
