package command

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/guardlocks/guard/guard"
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
		return 0, guard.Exitf(guard.ExitUsage, "--wait %q is not <number><s|m|h|d> (0 does not wait)", v)
	}
	return d, nil
}

// waitProgress reports what a waiting claim waits for on stderr: at a terminal one
// line rewritten every second ("waiting for /p/LOCK.txt held by bob: parser
// refactor, 12s"), elsewhere one line whenever the lock waited for changes. stop
// ends the reporting (and the terminal's line).
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
		if !env.StderrTTY {
			if t := line(s); t != lastText {
				fmt.Fprintf(env.Stderr, "guard %s: %s (up to %s)\n", cmd, t, wait)
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
		shown := false
		for {
			mu.Lock()
			if cur != nil {
				elapsed := env.Clock.Now().Sub(cur.Since).Truncate(time.Second)
				// \r and erase to the end of the line: the line is rewritten in place.
				fmt.Fprintf(env.Stderr, "\r%s, %s\x1b[K", line(*cur), elapsed)
				shown = true
			}
			mu.Unlock()
			select {
			case <-done:
				if shown {
					fmt.Fprintln(env.Stderr)
				}
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
