package command

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/progress"
	"github.com/guardlocks/guard/lockcore"
)

// parseWait reads --wait: <number><s|m|h|d> (any case, spaces allowed, as
// expires_after), or "0" (and "") for no wait.
func parseWait(v string) (time.Duration, error) {
	if s := strings.TrimSpace(v); s == "" || strings.Trim(s, "0") == "" {
		return 0, nil
	}
	d, ok, overflow := lockcore.ParseDuration(v)
	if !ok || overflow {
		return 0, guard.Fail(guard.BadInput, "--wait %q is not <number><s|m|h|d> (0 does not wait)", v)
	}
	return d, nil
}

// waitProgress reports what a waiting claim waits for on stderr: at a terminal one
// line rewritten every second with the time waited and the limit ("waiting for
// /p/LOCK.txt held by bob: parser refactor, 1m20s of 30m"), elsewhere one line
// whenever the lock waited for changes. stop ends the reporting (and the terminal's
// line).
func waitProgress(env *guard.Env, cmd string, wait time.Duration) (onWait func(lockcore.WaitState), stop func()) {
	if wait <= 0 {
		return nil, func() {}
	}
	var mu sync.Mutex
	var cur *lockcore.WaitState
	lastText := ""
	line := func(s lockcore.WaitState) string {
		text := "waiting for " + s.Path
		if s.Blocker != nil {
			text = "waiting for " + s.Blocker.Path + " held by " + lockcore.HolderText(s.Blocker)
		}
		if s.Ahead > 0 {
			text += fmt.Sprintf(" (%d waiter(s) in front)", s.Ahead)
		}
		return text
	}
	lastRecorded := ""
	// draw rewrites the terminal's line (mu held): \r and erase to the end of the line.
	shown := false
	draw := func() {
		elapsed := env.Clock.Now().Sub(cur.Since).Truncate(time.Second)
		fmt.Fprintf(env.Stderr, "\r%s, %s of %s\x1b[K", line(*cur), progress.Duration(elapsed), progress.Duration(wait))
		shown = true
	}
	onWait = func(s lockcore.WaitState) {
		mu.Lock()
		defer mu.Unlock()
		cur = &s
		// The history gets one waiting event per lock waited for (not one per wake-up).
		key := s.Path
		if s.Blocker != nil {
			key = s.Blocker.Path
		}
		if t := line(s); key != lastRecorded {
			lastRecorded = key
			ev := guard.Event{Event: guard.EventWaiting, Path: s.Path, Detail: cmd + ": " + t}
			if s.Blocker != nil {
				ev = guard.LockEvent(guard.EventWaiting, s.Blocker)
				ev.Detail = cmd + ": " + t
			}
			env.Record(ev)
		}
		if env.StderrTTY {
			draw()
		} else {
			if t := line(s); t != lastText {
				fmt.Fprintf(env.Stderr, "guard %s: %s (up to %s)\n", cmd, t, progress.Duration(wait))
				lastText = t
			}
		}
	}
	if !env.StderrTTY {
		return onWait, func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			mu.Lock()
			if cur != nil {
				draw()
			}
			mu.Unlock()
			select {
			case <-done:
				mu.Lock()
				if shown {
					// Erased: what follows (the claimed lock, a refusal) starts clean.
					fmt.Fprint(env.Stderr, "\r\x1b[K")
				}
				mu.Unlock()
				return
			case <-tick.C:
			}
		}
	}()
	return onWait, func() {
		close(done)
		wg.Wait()
	}
}
