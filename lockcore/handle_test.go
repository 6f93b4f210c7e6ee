package lockcore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/guardlocks/guard/internal/testing/guardtest"
)

func holdFor(t *testing.T, dir, owner string, wait time.Duration) (*FileHandle, error) {
	t.Helper()
	return Hold(context.Background(), Request{
		Spec:     Spec{Dir: dir, Kind: Exclusive, Owner: owner, Host: "h1", Expires: "1h"},
		Wait:     wait,
		QueueDir: filepath.Join(t.TempDir(), "queue"),
	})
}

func lostWithin(t *testing.T, h *FileHandle, d time.Duration) error {
	t.Helper()
	select {
	case <-h.Lost():
		return h.Err()
	case <-time.After(d):
		t.Fatalf("the handle did not notice the loss within %s", d)
	}
	return nil
}

func TestHandleRenewsReleasesAndKeepsItsFence(t *testing.T) {
	dir := t.TempDir()
	clock := guardtest.NewClock(time.Now())
	h, err := Hold(context.Background(), Request{
		Spec:     Spec{Dir: dir, Kind: Exclusive, Owner: "alice", Host: "h1", Expires: "1h"},
		QueueDir: filepath.Join(t.TempDir(), "queue"),
		Clock:    clock,
	})
	if err != nil {
		t.Fatal(err)
	}
	if h.Acquired().Action != Created || h.Fence() == 0 || h.Path() != filepath.Join(dir, "LOCK.txt") {
		t.Fatalf("claim = %+v", h.Acquired())
	}
	before, _ := os.ReadFile(h.Path())
	clock.Advance(1100 * time.Millisecond) // created has one-second resolution
	if err := h.Renew(context.Background()); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(h.Path())
	if string(before) == string(after) {
		t.Fatal("renewal did not move created")
	}
	l, _ := ReadLock(h.Path(), nil)
	if f, _ := l.Fence(); f != h.Fence() {
		t.Fatalf("renewal changed the fence: %d, want %d", f, h.Fence())
	}
	lost := h.Lost()
	if err := h.Release(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(h.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("release left the lock file")
	}
	select {
	case <-lost:
		t.Fatal("a released handle reported a loss")
	case <-time.After(300 * time.Millisecond):
	}
}

func TestHandleNoticesTheLockFileRemoved(t *testing.T) {
	dir := t.TempDir()
	h, err := holdFor(t, dir, "alice", 0)
	if err != nil {
		t.Fatal(err)
	}
	h.Lost()
	if err := os.Remove(h.Path()); err != nil {
		t.Fatal(err)
	}
	if err := lostWithin(t, h, 2*time.Second); err == nil || !strings.Contains(err.Error(), "was removed") {
		t.Fatalf("Err = %v, want it to say the file was removed", err)
	}
}

func TestHandleNoticesAReplacementAndLeavesItAlone(t *testing.T) {
	dir := t.TempDir()
	h, err := holdFor(t, dir, "alice", 0)
	if err != nil {
		t.Fatal(err)
	}
	h.Lost()
	// bob replaces it deliberately: a new fence.
	if _, err := Acquire(Spec{Dir: dir, Kind: Exclusive, Owner: "bob", Host: "h2"}, AcquireOptions{Now: time.Now(), Force: true}); err != nil {
		t.Fatal(err)
	}
	if err := lostWithin(t, h, 2*time.Second); err == nil || !strings.Contains(err.Error(), "held by bob") {
		t.Fatalf("Err = %v, want it to name the new holder", err)
	}
	if err := h.Renew(context.Background()); !errors.Is(err, ErrNotOwner) && !errors.Is(err, ErrFenceChanged) {
		t.Fatalf("Renew of a lost lock = %v", err)
	}
	if err := h.Release(context.Background()); !errors.Is(err, ErrFenceChanged) {
		t.Fatalf("Release of a lost lock = %v, want ErrFenceChanged", err)
	}
	l, err := ReadLock(filepath.Join(dir, "LOCK.txt"), nil)
	if err != nil || l.Owner != "bob" {
		t.Fatalf("bob's lock is gone or changed: %v %v", l, err)
	}
}

func TestRefusedRenewalMarksTheHandleLost(t *testing.T) {
	dir := t.TempDir()
	h, err := holdFor(t, dir, "alice", 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(h.Path()); err != nil {
		t.Fatal(err)
	}
	if err := h.Renew(context.Background()); !errors.Is(err, ErrNoLock) {
		t.Fatalf("Renew = %v, want ErrNoLock", err)
	}
	select {
	case <-h.lost:
	default:
		t.Fatal("a refused renewal did not mark the handle lost")
	}
	if !strings.Contains(h.Err().Error(), "renewal refused") {
		t.Fatalf("Err = %v", h.Err())
	}
}

func TestHoldWaitsForAReleaseAndTimesOutNamingTheHolder(t *testing.T) {
	dir := t.TempDir()
	bob, err := holdFor(t, dir, "bob", 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = holdFor(t, dir, "alice", 200*time.Millisecond)
	var we *WaitError
	var ce *ConflictError
	if !errors.As(err, &we) || !errors.As(err, &ce) || ce.Lock.Owner != "bob" {
		t.Fatalf("err = %v, want a WaitError over bob's conflict", err)
	}
	go func() {
		time.Sleep(200 * time.Millisecond)
		_ = bob.Release(context.Background())
	}()
	alice, err := holdFor(t, dir, "alice", 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if alice.Acquired().Lock.Owner != "alice" {
		t.Fatalf("claim = %+v", alice.Acquired())
	}
}

func TestQueueDirIsOneForEverySpelling(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Skip(err)
	}
	a := QueueDir("/q", filepath.Join(dir, "LOCK.txt"))
	b := QueueDir("/q", filepath.Join(link, "lock.TXT"))
	c := QueueDir("/q", filepath.Join(dir, "LOCK.web.txt"))
	if a != b || a == c {
		t.Fatalf("queue dirs %s %s %s", a, b, c)
	}
}
