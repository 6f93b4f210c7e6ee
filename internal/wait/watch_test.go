package wait

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestWatcherWakesOnARemovalItCaresAbout(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "LOCK.txt")
	if err := os.WriteFile(p, []byte("owner: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := Watch(func(n string) bool { return strings.HasPrefix(n, "LOCK") }, dir)
	defer w.Close()
	if w.Interval() != SlowPoll {
		t.Skipf("no file-system notifications here (interval %s)", w.Interval())
	}
	// Noise first: an entry the watcher was not asked about.
	_ = os.WriteFile(filepath.Join(dir, "other.go"), nil, 0o644)
	go func() {
		time.Sleep(100 * time.Millisecond)
		_ = os.Remove(p)
	}()
	start := time.Now()
	ctx := context.Background()
	if err := w.Next(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("woke after %s, want about 100ms", d)
	}
	if _, err := os.Stat(p); err == nil {
		t.Fatal("woke before the removal (the noise woke it)")
	}
}

func TestWatcherPollsWhereItCannotWatch(t *testing.T) {
	w := Watch(nil, filepath.Join(t.TempDir(), "missing"))
	defer w.Close()
	if w.Interval() != FastPoll {
		t.Fatalf("interval = %s, want the fast poll for a directory it cannot watch", w.Interval())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := w.Next(ctx, time.Hour); err != context.Canceled {
		t.Fatalf("err = %v, want Canceled", err)
	}
}
