package wait

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
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
	// overlaps says which earlier tickets this one waits for (nil: all of them).
	overlaps func(want string) bool
}

// Join takes the next ticket in the queue directory dir (created if missing, 0700),
// behind every earlier ticket. It fails where the file system cannot lock files; the
// caller then waits unqueued.
func Join(dir string) (*Ticket, error) { return JoinFor(dir, "", nil) }

// JoinFor is Join for waiters that share a queue directory without all wanting the
// same thing: want (one line) is written into the ticket for the others to read, and
// the ticket waits only for the earlier tickets whose want overlaps accepts (nil:
// all of them). A ticket whose want cannot be read is waited for.
func JoinFor(dir, want string, overlaps func(theirs string) bool) (*Ticket, error) {
	if strings.ContainsAny(want, "\r\n") {
		return nil, fmt.Errorf("wait: a ticket's want is one line, not %q", want)
	}
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
	// Who holds the ticket, for a person looking into the directory, and what it
	// waits for, for the other waiters; written before the queue's lock is let go, so
	// an earlier ticket is always complete.
	_, _ = fmt.Fprintf(f, "pid: %d\n", os.Getpid())
	if want != "" {
		_, _ = fmt.Fprintf(f, "want: %s\n", want)
	}
	return &Ticket{dir: dir, path: p, seq: seq, f: f, overlaps: overlaps}, nil
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

// Ahead counts the live tickets in front of t that it waits for, removing the dead
// ones it finds.
func (t *Ticket) Ahead() (int, error) {
	n := 0
	var suspects []string
	for _, o := range tickets(t.dir) {
		if o.seq >= t.seq {
			continue
		}
		if t.overlaps != nil {
			if _, want, ok := readTicket(o.path); ok && !t.overlaps(want) {
				continue
			}
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

// Waiter is a live ticket as someone outside the queue sees it.
type Waiter struct {
	Seq uint64
	// PID is the process that holds the ticket (0 when it could not be read).
	PID int
	// Want is what the ticket says it waits for ("" when it says nothing).
	Want string
}

// Queued lists, in queue order, the live tickets in dir whose want overlaps accepts
// (nil: all), for a claim that does not queue and must not cut in front of those
// that do. Dead tickets are removed. It reads under the queue's lock, so a ticket
// being taken is either complete or not there yet. A queue directory that does not
// exist has no waiters.
func Queued(dir string, overlaps func(want string) bool) ([]Waiter, error) {
	if _, err := os.Stat(filepath.Join(dir, queueLockName)); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	unlock, err := lockQueue(dir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var out []Waiter
	for _, o := range tickets(dir) {
		switch alive(o.path) {
		case goneTicket:
			continue
		case deadTicket:
			if reap(o.path) {
				continue
			}
		}
		pid, want, ok := readTicket(o.path)
		if ok && overlaps != nil && !overlaps(want) {
			continue
		}
		out = append(out, Waiter{Seq: o.seq, PID: pid, Want: want})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out, nil
}

// readTicket reads the pid and want lines of a ticket; ok is false when the ticket
// cannot be read.
func readTicket(p string) (pid int, want string, ok bool) {
	data, err := os.ReadFile(p)
	if err != nil {
		return 0, "", false
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, found := strings.CutPrefix(l, "pid: "); found {
			pid, _ = strconv.Atoi(strings.TrimSpace(v))
		}
		if v, found := strings.CutPrefix(l, "want: "); found {
			want = v
		}
	}
	return pid, want, true
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
