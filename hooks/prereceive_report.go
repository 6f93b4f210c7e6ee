package hooks

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/guardlocks/guard/guard"
)

// say writes text to w as lines of at most about 100 columns, each starting with
// "guard: " (git shows them as `remote: guard: ...`), continuation lines indented.
func say(w io.Writer, indent int, text string) {
	const width = 100
	first := "guard: " + strings.Repeat("  ", indent)
	rest := first + "  "
	line := first
	empty := true
	for _, word := range strings.Fields(text) {
		if !empty && len(line)+1+len(word) > width {
			fmt.Fprintln(w, line)
			line, empty = rest, true
		}
		if !empty {
			line += " "
		}
		line += word
		empty = false
	}
	if !empty {
		fmt.Fprintln(w, line)
	}
}

// finish prints the verdict and gives the hook's exit: 0 to let git update the refs,
// 1 refused, 2 when a bypass cannot be recorded. The push option guard.bypass lets a
// refusal through for users in [server] bypass_users, recorded in the bypass log and
// the history; for anyone else it changes nothing.
func (r *receiver) finish(checks []*receiveCheck) error {
	w := r.env.Stderr
	refused := 0
	decisions := make([]*guard.Decision, 0, len(checks))
	for _, c := range checks {
		decisions = append(decisions, c.dec)
		for _, wn := range c.dec.Warnings {
			say(w, 0, "warning: "+c.lt.scrub(wn))
		}
		if c.dec.Allowed {
			continue
		}
		refused++
		guard.RecordDecision(r.env, r.hook, r.pusher.Owner, c.dec)
		r.explain(c)
	}
	v := guard.JudgeCommit(r.env, r.hook, decisions, nil, &guard.ServerAsk{Config: r.cfg, Pusher: r.pusher, Options: PushOptions(r.env)})
	b := v.Bypass
	if v.Pass() {
		if b.Asked {
			say(w, 0, fmt.Sprintf("%s: nothing was refused, so push option %s was not needed", r.hook, guard.BypassOption))
		}
		return nil
	}
	if b.Asked && b.Err == nil {
		if v.Bypassed() {
			logPath, err := r.writeBypass(checks, b.Reason)
			if err != nil {
				say(w, 0, fmt.Sprintf("%s: %s is set but the bypass cannot be recorded: %v; refusing (fail closed): a bypass needs its audit trail", r.hook, guard.BypassOption, err))
				return guard.Explained(guard.BadInput)
			}
			guard.RecordGate(r.env, guard.EventBypassed, r.hook, r.pusher.Owner, r.repo.CommonDir,
				fmt.Sprintf("%s %q by %s let a refused push through", guard.BypassOption, b.Reason, r.pusher.User))
			say(w, 0, fmt.Sprintf("%s: %s by %s (%q): letting this push through; recorded in %s", r.hook, guard.BypassOption, r.pusher.User, b.Reason, logPath))
			return nil
		}
		say(w, 0, fmt.Sprintf("%s: %s", r.hook, b.Why))
		guard.RecordGate(r.env, guard.EventRefused, r.hook, r.pusher.Owner, r.repo.CommonDir,
			fmt.Sprintf("%s %q by %s refused: not in [server] bypass_users", guard.BypassOption, b.Reason, r.pusher.User))
	} else if b.Err != nil {
		say(w, 0, fmt.Sprintf("%s: %v", r.hook, b.Err))
	}
	plural := "s"
	if refused == 1 {
		plural = ""
	}
	say(w, 0, fmt.Sprintf("%s: %d ref update%s refused for %s; no ref was updated.", r.hook, refused, plural, r.who()))
	return guard.Explained(guard.Refused)
}

// who names the pusher as the gate judged them.
func (r *receiver) who() string {
	if r.pusher.Owner != r.pusher.User {
		return fmt.Sprintf("%s (lock owner %s)", r.pusher.User, r.pusher.Owner)
	}
	return r.pusher.User
}

// maxShownPaths is how many blocked paths one lock's refusal lists.
const maxShownPaths = 5

// explain writes one refused update: per lock (or reason) the paths, whose lock, why,
// and what to do now, in short lines with repository-relative names.
func (r *receiver) explain(c *receiveCheck) {
	w := r.env.Stderr
	say(w, 0, fmt.Sprintf("%s: refusing %s (%s by %s):", r.hook, c.u, strings.Join(c.ops, "+"), r.who()))
	type group struct {
		b     guard.Block
		paths []string
	}
	var groups []*group
	byKey := map[string]*group{}
	for _, b := range c.dec.Blocking {
		key := b.Reason
		if b.Lock != nil {
			key = b.Lock.Path
		}
		g := byKey[key]
		if g == nil {
			g = &group{b: b}
			byKey[key] = g
			groups = append(groups, g)
		}
		g.paths = append(g.paths, c.lt.rel(b.Path))
	}
	for _, g := range groups {
		sort.Strings(g.paths)
		shown := g.paths
		more := ""
		if len(shown) > maxShownPaths {
			more = fmt.Sprintf(" (and %d more)", len(shown)-maxShownPaths)
			shown = shown[:maxShownPaths]
		}
		l := g.b.Lock
		if l == nil {
			say(w, 1, strings.Join(shown, ", ")+more+": "+c.lt.scrub(g.b.Reason))
			continue
		}
		say(w, 1, strings.Join(shown, ", ")+more+": "+c.lt.scrub(g.b.Reason))
		var facts []string
		if l.Purpose != "" {
			facts = append(facts, "purpose: "+l.Purpose)
		}
		if at, ok := l.ExpiresAt(); ok {
			facts = append(facts, "expires "+at.UTC().Format("2006-01-02 15:04 UTC"))
		}
		if len(facts) > 0 {
			say(w, 2, strings.Join(facts, "; "))
		}
		owner := l.Owner
		if owner == "" {
			owner = "its owner"
		}
		if l.HeldIn != "" {
			say(w, 2, fmt.Sprintf("what now: ask %s to release it (guard unlock), or wait until it expires; then push again", owner))
		} else {
			say(w, 2, fmt.Sprintf("what now: ask %s to release it (remove %s in a commit and push that), or wait until it expires; then push again", owner, c.lt.rel(l.Path)))
		}
	}
	for _, n := range c.notes {
		say(w, 1, n)
	}
}

// writeBypass appends the bypass to the repository's log and returns the log's path.
func (r *receiver) writeBypass(checks []*receiveCheck, reason string) (string, error) {
	e := guard.BypassEntry{
		Time: guard.BypassTime(r.env.Clock.Now()), Owner: r.pusher.Owner, User: r.pusher.User,
		Reason: reason, Hook: r.hook, Refused: true,
	}
	seenOp := map[string]bool{}
	for _, c := range checks {
		e.Refs = append(e.Refs, c.u.String())
		for _, op := range c.ops {
			if !seenOp[op] {
				seenOp[op] = true
				e.Ops = append(e.Ops, op)
			}
		}
		e.Paths = append(e.Paths, c.paths...)
		for _, b := range c.dec.Blocking {
			bb := guard.BypassBlock{Path: c.lt.rel(b.Path), Reason: c.lt.scrub(b.Reason)}
			if b.Lock != nil {
				bb.Lock, bb.Owner = c.lt.rel(b.Lock.Path), b.Lock.Owner
			}
			e.Blocking = append(e.Blocking, bb)
		}
	}
	if e.Ops == nil {
		e.Ops = []string{}
	}
	p := r.repo.BypassLogPath()
	return p, guard.AppendBypass(p, e)
}
