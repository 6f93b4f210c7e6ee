package wait

import (
	"os"
	"path/filepath"
)

// TicketFile is a ticket found in a queue directory, for a person (guard doctor)
// looking at what waiters left.
type TicketFile struct {
	Path string
	// PID is the process that took the ticket, as it wrote it (0 when unreadable).
	PID int
}

// Tickets lists the tickets of every queue directory under root (the parent of the
// queue directories, StateDir/queue).
func Tickets(root string) []TicketFile {
	dirs, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	var out []TicketFile
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		for _, t := range tickets(filepath.Join(root, d.Name())) {
			pid, _, _ := readTicket(t.path)
			out = append(out, TicketFile{Path: t.path, PID: pid})
		}
	}
	return out
}

// RemoveDeadTicket removes the ticket at p if no process holds it, under its queue's
// lock (as a waiter reaping a dead ticket does, so a ticket being created is never
// taken for dead). It reports whether the ticket is gone.
func RemoveDeadTicket(p string) (bool, error) {
	unlock, err := lockQueue(filepath.Dir(p))
	if err != nil {
		return false, err
	}
	defer unlock()
	return reap(p), nil
}
