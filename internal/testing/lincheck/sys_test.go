//go:build linux

package lincheck

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// needRoot skips a scenario that mounts or makes namespaces without root.
func needRoot(t *testing.T, what string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skipf("%s needs root (mounts, loop devices, network namespaces); run as root", what)
	}
}

// sh runs a system command and fails the test when it fails.
func sh(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// mountTmpfs mounts a tmpfs of size at a new folder and unmounts it when the test
// ends (lazily: a process still inside cannot keep it).
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "lincheck-fs-")
	if err != nil {
		t.Fatal(err)
	}
	sh(t, "mount", "-t", "tmpfs", "-o", "size="+size+",mode=0755", "tmpfs", dir)
	t.Cleanup(func() {
		_ = exec.Command("umount", "-l", dir).Run()
		os.RemoveAll(dir)
	})
	return dir
}

// loopExt4 is an ext4 file system without a journal (a journal whose write fails
// aborts, and ext4 then refuses every write until it is mounted again) on a loop device whose backing file is sparse on a
// small tmpfs of its own: filling that tmpfs (fill) makes every write-back of a block
// not yet backed fail, so that write(2) into the page cache succeeds and fsync(2)
// fails (ENOSPC or EIO), which is what a failing disk looks like to a program. It
// returns the mounted folder and the backing tmpfs.
func loopExt4(t *testing.T) (mnt, back string) {
	t.Helper()
	back = mountTmpfs(t, "8m")
	img := filepath.Join(back, "disk.img")
	sh(t, "truncate", "-s", "64M", img)
	sh(t, "mkfs.ext4", "-q", "-F", "-E", "nodiscard,lazy_itable_init=1", "-O", "^has_journal", img)
	dev := strings.TrimSpace(sh(t, "losetup", "-f", "--show", img))
	t.Cleanup(func() { _ = exec.Command("losetup", "-d", dev).Run() })
	mnt, err := os.MkdirTemp("", "lincheck-ext4-")
	if err != nil {
		t.Fatal(err)
	}
	sh(t, "mount", "-o", "errors=continue", dev, mnt)
	t.Cleanup(func() {
		// Before the loop device is detached (cleanups run last-in first-out).
		if err := exec.Command("umount", mnt).Run(); err != nil {
			_ = exec.Command("umount", "-l", mnt).Run()
		}
		os.RemoveAll(mnt)
	})
	return mnt, back
}

// fill writes a file into dir until the file system is full and returns a function
// that removes it again.
func fill(t *testing.T, dir string) (free func()) {
	t.Helper()
	p := filepath.Join(dir, "lincheck-fill")
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		t.Fatalf("fill %s: %v", dir, err)
	}
	buf := bytes.Repeat([]byte{0xa5}, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Errorf("fill %s: %v", p, err)
			}
			break
		}
	}
	// Whatever fits in the last partial block.
	for n := 32 << 10; n >= 512; n /= 2 {
		_, _ = f.Write(buf[:n])
	}
	f.Close()
	return func() { os.Remove(p) }
}

// pause stops a client's guard and its COMMAND's process group (the supervisor and
// COMMAND) with SIGSTOP, and returns the resumption: guard first, or (commandFirst)
// COMMAND's group alone, and guard once COMMAND has exited (or after 2 s).
func pause(t *testing.T, p Procs) (resume func(commandFirst bool)) {
	t.Helper()
	pgid := 0
	if p.Command != 0 {
		g, err := syscall.Getpgid(p.Command)
		if err == nil {
			pgid = g
		}
	}
	_ = syscall.Kill(p.Guard, syscall.SIGSTOP)
	if pgid > 0 {
		_ = syscall.Kill(-pgid, syscall.SIGSTOP)
	}
	return func(commandFirst bool) {
		if commandFirst && pgid > 0 {
			_ = syscall.Kill(-pgid, syscall.SIGCONT)
			for end := time.Now().Add(2 * time.Second); time.Now().Before(end) && syscall.Kill(p.Command, 0) == nil; {
				time.Sleep(10 * time.Millisecond)
			}
		}
		_ = syscall.Kill(p.Guard, syscall.SIGCONT)
		if pgid > 0 {
			_ = syscall.Kill(-pgid, syscall.SIGCONT)
		}
	}
}

// during runs fault after delay, concurrently with the clients, and waits for it at
// the end of the test.
func during(t *testing.T, delay time.Duration, fault func()) (wait func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(delay)
		fault()
	}()
	return func() { <-done }
}

func describe(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// Fault is a fault the scenario repeats: on starts it and returns its end (nil: it
// ends by itself), which comes For after the start; Gap passes before the next.
type Fault struct {
	What    string // for the log: "full-disk periods of 3 s"
	For     time.Duration
	Gap     time.Duration
	On      func() (off func())
	Checked time.Duration // the model's slack
}

// underFault runs the clients while the fault repeats (from 2 s on, until the load is
// nearly over), checks the history, and logs how many faults there were and how the
// failures read.
func underFault(t *testing.T, h *Harness, f Fault) {
	t.Helper()
	n := 0
	wait := during(t, 2*time.Second, func() {
		for end := time.Now().Add(h.Config.Duration - 4*time.Second - f.For); time.Now().Before(end); {
			off := f.On()
			n++
			time.Sleep(f.For)
			if off != nil {
				off()
			}
			time.Sleep(f.Gap)
		}
	})
	h.Run(context.Background())
	wait()
	h.Check(f.Checked)
	t.Logf("%s: faults: %d %s", t.Name(), n, f.What)
	logErrors(t, h)
}
