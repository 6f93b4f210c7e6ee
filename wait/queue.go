package wait

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/guardlocks/guard/internal/filelock"
)

const (
	ticketSuffix = ".ticket"
	// queueLockName is the file whose OS lock numbers the tickets and reaps dead
	// ones. It is never removed, so every process locks the same inode.
	queueLockName = "queue.lock"
	// QueuePoll is how often a waiter that is not the head looks whether a ticket in
	// front of it died: the kernel releases a dead process's file lock without any
	// file-system event.
	QueuePoll = time.Second
)

// Ticket is a place in a queue directory, held until Leave (or the process's death).
type Ticket struct {
	dir  string
	path string
	seq  uint64
	f    *os.File
}

// Join takes the next ticket in the queue directory dir (created if missing, 0700).
// It fails where the file system cannot lock files; the caller then waits unqueued.
func Join(dir string) (*Ticket, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("wait: queue %s: %w", dir, err)
	}
	unlock, err := lockQueue(dir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var last uint64
	for _, t := range tickets(dir) {
		last = max(last, t.seq)
	}
	seq := last + 1
	p := filepath.Join(dir, ticketName(seq))
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("wait: ticket %s: %w", p, err)
	}
	if err := filelock.TryLock(f); err != nil {
		_ = f.Close()
		_ = os.Remove(p)
		return nil, fmt.Errorf("wait: ticket %s: cannot lock it: %w", p, err)
	}
	// Who holds the ticket, for a person looking into the directory.
	_, _ = fmt.Fprintf(f, "pid: %d\n", os.Getpid())
	return &Ticket{dir: dir, path: p, seq: seq, f: f}, nil
}

// Path is the ticket's file.
func (t *Ticket) Path() string { return t.path }

// Leave gives the ticket up; the next waiter becomes the head. It is safe to call
// more than once.
func (t *Ticket) Leave() {
	if t == nil || t.f == nil {
		return
	}
	filelock.RemoveLocked(t.f, t.path)
	t.f = nil
}

// Ahead counts the live tickets in front of t, removing the dead ones it finds.
func (t *Ticket) Ahead() (int, error) {
	n := 0
	var suspects []string
	for _, o := range tickets(t.dir) {
		if o.seq >= t.seq {
			continue
		}
		switch alive(o.path) {
		case liveTicket:
			n++
		case deadTicket:
			suspects = append(suspects, o.path)
		}
	}
	if len(suspects) == 0 {
		return n, nil
	}
	// A ticket is only declared dead under the queue's lock: a ticket being created
	// is locked before that lock is let go, so it can never look dead there.
	unlock, err := lockQueue(t.dir)
	if err != nil {
		return 0, err
	}
	defer unlock()
	for _, p := range suspects {
		if !reap(p) {
			n++
		}
	}
	return n, nil
}

// WaitHead blocks until t is the head of its queue or ctx is done. report, when
// set, is called with the number of live tickets in front each time it changes.
func (t *Ticket) WaitHead(ctx context.Context, report func(ahead int)) error {
	w := Watch(func(name string) bool { return strings.HasSuffix(name, ticketSuffix) }, t.dir)
	defer w.Close()
	last := -1
	for {
		n, err := t.Ahead()
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		if n != last && report != nil {
			report(n)
		}
		last = n
		if err := w.Next(ctx, QueuePoll); err != nil {
			return err
		}
	}
}

type liveness int

const (
	goneTicket liveness = iota
	liveTicket
	deadTicket
)

// alive looks at a ticket without the queue's lock.
func alive(p string) liveness {
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return goneTicket
	}
	if err != nil {
		return liveTicket // cannot tell: fail towards waiting
	}
	defer f.Close()
	if err := filelock.TryLock(f); err != nil {
		return liveTicket
	}
	return deadTicket
}

// reap removes the ticket at p if nobody holds it (called with the queue's lock
// held). It reports whether the ticket is gone.
func reap(p string) bool {
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	if err != nil {
		return false
	}
	if err := filelock.TryLock(f); err != nil {
		_ = f.Close()
		return false
	}
	if !filelock.SameFile(f, p) {
		_ = f.Close()
		return false
	}
	filelock.RemoveLocked(f, p)
	return true
}

type ticketFile struct {
	seq  uint64
	path string
}

func tickets(dir string) []ticketFile {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []ticketFile
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ticketSuffix)
		if !ok {
			continue
		}
		seq, err := strconv.ParseUint(name, 10, 64)
		if err != nil {
			continue
		}
		out = append(out, ticketFile{seq: seq, path: filepath.Join(dir, e.Name())})
	}
	return out
}

func ticketName(seq uint64) string { return fmt.Sprintf("%020d%s", seq, ticketSuffix) }

// queueLockWait bounds the wait for the queue directory's lock: its holders work for
// microseconds, so only a stopped process holds it this long.
const queueLockWait = 10 * time.Second

// lockQueue takes the queue directory's lock.
func lockQueue(dir string) (func(), error) {
	ctx, cancel := context.WithTimeout(context.Background(), queueLockWait)
	defer cancel()
	release, err := filelock.Mutex{Path: filepath.Join(dir, queueLockName)}.Lock(ctx)
	if err != nil {
		return nil, fmt.Errorf("wait: queue lock: %w", err)
	}
	return release, nil
}
