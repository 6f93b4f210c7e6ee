package wait

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMain lets the tests run this binary as a waiter process: it joins the queue,
// says "joined", waits to be the head, says "head" and then holds the ticket until
// stdin closes.
func TestMain(m *testing.M) {
	if dir := os.Getenv("WAIT_TEST_QUEUE"); dir != "" {
		t, err := Join(dir)
		if err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		fmt.Println("joined")
		if err := t.WaitHead(context.Background(), nil); err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		fmt.Println("head")
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		t.Leave()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

type waiter struct {
	cmd   *exec.Cmd
	stdin interface{ Close() error }
	lines chan string
}

func startWaiter(t *testing.T, dir string) *waiter {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=XXX")
	cmd.Env = append(os.Environ(), "WAIT_TEST_QUEUE="+dir)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &waiter{cmd: cmd, stdin: in, lines: make(chan string, 4)}
	go func() {
		s := bufio.NewScanner(out)
		for s.Scan() {
			w.lines <- s.Text()
		}
		close(w.lines)
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return w
}

func (w *waiter) expect(t *testing.T, want string, within time.Duration) {
	t.Helper()
	select {
	case l := <-w.lines:
		if l != want {
			t.Fatalf("waiter %d said %q, want %q", w.cmd.Process.Pid, l, want)
		}
	case <-time.After(within):
		t.Fatalf("waiter %d did not say %q within %s", w.cmd.Process.Pid, want, within)
	}
}

func (w *waiter) quiet(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case l := <-w.lines:
		t.Fatalf("waiter %d said %q early", w.cmd.Process.Pid, l)
	case <-time.After(d):
	}
}

func TestQueueHeadsInJoinOrder(t *testing.T) {
	dir := t.TempDir()
	var ws []*waiter
	for i := 0; i < 5; i++ {
		w := startWaiter(t, dir)
		w.expect(t, "joined", 10*time.Second)
		ws = append(ws, w)
	}
	ws[0].expect(t, "head", 5*time.Second)
	for i := 1; i < len(ws); i++ {
		ws[i].quiet(t, 100*time.Millisecond)
		_ = ws[i-1].stdin.Close() // the head leaves
		ws[i].expect(t, "head", 2*time.Second)
	}
}

func TestQueueSurvivesAKilledWaiter(t *testing.T) {
	dir := t.TempDir()
	a, b, c := startWaiter(t, dir), (*waiter)(nil), (*waiter)(nil)
	a.expect(t, "joined", 10*time.Second)
	a.expect(t, "head", 5*time.Second)
	b = startWaiter(t, dir)
	b.expect(t, "joined", 10*time.Second)
	c = startWaiter(t, dir)
	c.expect(t, "joined", 10*time.Second)
	// b dies in the queue without leaving it: its ticket file stays, its OS lock goes.
	if err := b.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = b.cmd.Wait()
	c.quiet(t, 200*time.Millisecond) // a is still the head
	_ = a.stdin.Close()
	c.expect(t, "head", QueuePoll+3*time.Second)
	left, _ := filepath.Glob(filepath.Join(dir, "*"+ticketSuffix))
	if len(left) != 1 || !strings.HasSuffix(left[0], ticketName(3)) {
		t.Fatalf("tickets left = %v, want only c's (3): the dead one is reaped", left)
	}
}

func TestLeaveIsIdempotentAndFreesTheHead(t *testing.T) {
	dir := t.TempDir()
	a, err := Join(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Join(dir)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := b.Ahead(); n != 1 {
		t.Fatalf("ahead of b = %d, want 1", n)
	}
	a.Leave()
	a.Leave()
	if n, _ := b.Ahead(); n != 0 {
		t.Fatalf("ahead of b after a left = %d, want 0", n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := b.WaitHead(ctx, nil); err != nil {
		t.Fatal(err)
	}
	b.Leave()
}

func TestWaitHeadStopsAtTheDeadline(t *testing.T) {
	dir := t.TempDir()
	a, _ := Join(dir)
	defer a.Leave()
	b, _ := Join(dir)
	defer b.Leave()
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	var reported []int
	err := b.WaitHead(ctx, func(n int) { reported = append(reported, n) })
	if err != context.DeadlineExceeded {
		t.Fatalf("err = %v, want the deadline", err)
	}
	if len(reported) != 1 || reported[0] != 1 {
		t.Fatalf("reported %v, want [1]", reported)
	}
}

func TestJoinForWaitsOnlyForOverlappingTickets(t *testing.T) {
	dir := t.TempDir()
	same := func(mine string) func(string) bool { return func(theirs string) bool { return theirs == mine } }
	a, err := JoinFor(dir, "x", same("x"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Leave()
	b, _ := JoinFor(dir, "y", same("y"))
	defer b.Leave()
	c, _ := JoinFor(dir, "x", same("x"))
	defer c.Leave()
	if n, _ := b.Ahead(); n != 0 {
		t.Fatalf("ahead of y = %d, want 0 (x does not overlap it)", n)
	}
	if n, _ := c.Ahead(); n != 1 {
		t.Fatalf("ahead of the second x = %d, want 1", n)
	}
	q, err := Queued(dir, same("x"))
	if err != nil || len(q) != 2 || q[0].Want != "x" || q[0].PID != os.Getpid() || q[0].Seq >= q[1].Seq {
		t.Fatalf("Queued = %+v, %v; want both x tickets in order", q, err)
	}
	if _, err := JoinFor(dir, "two\nlines", nil); err == nil {
		t.Fatal("a want of two lines was accepted")
	}
	if q, err := Queued(filepath.Join(dir, "none"), nil); err != nil || q != nil {
		t.Fatalf("Queued of a missing queue = %v, %v", q, err)
	}
}
