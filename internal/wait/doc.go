// Package wait holds the two things a process needs to wait for a file to change
// hands without burning a core: a first-come, first-served queue of waiters on one
// machine (Join, Ticket) and a watcher that wakes on file-system notifications with
// a slow poll where they do not work (Watch).
//
// It knows nothing of locks: lockcore decides what to wait for and when to try, and
// uses this package to sleep between tries.
//
// What the queue guarantees, among the processes that use the same queue directory:
//
//   - Order: tickets are numbered in the order Join returned (the numbering runs
//     under an OS file lock on the directory's queue.lock), and a ticket is the head
//     when no live ticket with a smaller number exists.
//   - A dead waiter blocks nobody: each ticket file is held under an OS file lock
//     (flock, LockFileEx) for as long as its process holds the ticket, and the kernel
//     drops that lock when the process dies, however it dies (SIGKILL included). A
//     ticket whose file is no longer locked is dead; whoever sees it first removes it.
//   - No stampede: only the head is told to try; the others sleep until a ticket in
//     front of them goes.
//
// What it does not guarantee: order between processes that wait without the queue
// (another tool, a guard on another machine sharing a network folder), and order on
// a file system without file locks (Join then fails and the caller waits unqueued).
package wait
