package hooks

import (
	"context"
	"fmt"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/gitrun"
)

// check is one question a hook asked the policy and its answer: for pre-commit the
// staged changes, for pre-push one pushed ref.
type check struct {
	what  string // "staged changes", "refs/heads/x -> refs/heads/x"
	ref   string // the pushed ref, for the log ("" for pre-commit)
	ops   []string
	paths []string
	dec   *guard.Decision
	// note explains a refusal beyond the decision (why guard checked what it did).
	note string
}

// outcome is what a hook found before deciding whether to let git go on.
type outcome struct {
	hook, remote, url string
	repo              gitrun.Repo
	id                guard.Identity
	checks            []check
}

// finish turns what a hook found (or the error that stopped it) into the hook's exit,
// as guard.JudgeCommit decides it: 0 to let git go on, 1 refused, 2 internal error
// (fail closed). GUARD_BYPASS lets a refusal or an error through and records it in
// the bypass log (one entry for everything the hook refused, locks, markers and
// visibility alike).
func finish(ctx context.Context, env *guard.Env, o outcome, runErr error) error {
	w := env.Stderr
	decisions := make([]*guard.Decision, 0, len(o.checks))
	for _, c := range o.checks {
		if c.dec == nil {
			continue
		}
		decisions = append(decisions, c.dec)
		if !c.dec.Allowed {
			guard.RecordDecision(env, o.hook, o.id.Owner, c.dec)
			if c.ref != "" {
				fmt.Fprintf(w, "guard: %s: push of %s refused\n", o.hook, c.what)
			}
		}
		c.dec.Explain(w)
		if !c.dec.Allowed && c.note != "" {
			fmt.Fprintf(w, "guard: %s: %s\n", o.hook, c.note)
		}
	}
	v := guard.JudgeCommit(env, o.hook, decisions, runErr, nil)
	verb := "commit"
	switch o.hook {
	case "pre-push":
		verb = "push"
	case "pre-merge-commit":
		verb = "merge"
	}
	if runErr != nil {
		fmt.Fprintf(w, "guard: %s: cannot check this %s: %v\n", o.hook, verb, runErr)
	}
	if v.Bypassed() {
		reason := v.Bypass.Reason
		logPath, err := writeBypass(ctx, env, o, reason, v.Refused, runErr)
		if err != nil {
			fmt.Fprintf(w, "guard: %s: GUARD_BYPASS is set but the bypass cannot be recorded: %v\n", o.hook, err)
			fmt.Fprintf(w, "guard: refusing (fail closed): a bypass needs its audit trail. Fix the log, or skip the hook with `git %s --no-verify`.\n", verb)
			return guard.Explained(guard.BadInput)
		}
		guard.RecordGate(env, guard.EventBypassed, o.hook, o.id.Owner, env.Dir, fmt.Sprintf("GUARD_BYPASS %q let a refused %s through", reason, verb))
		fmt.Fprintf(w, "guard: %s: GUARD_BYPASS set (%q): letting this %s through; recorded in %s\n", o.hook, reason, verb, logPath)
		return nil
	}
	switch {
	case v.Err != nil:
		fmt.Fprintf(w, "guard: refusing this %s (fail closed). Fix the cause above, or bypass once with an audit trail: GUARD_BYPASS=\"<reason>\" git %s ...\n", verb, verb)
	case v.Refused:
		fmt.Fprintf(w, "\nguard: %s refused. To override with an audit trail: GUARD_BYPASS=\"<reason>\" git %s ...\n", verb, verb)
	}
	return v.Failure()
}

// writeBypass appends the bypass to the repository's log and returns the log's path.
func writeBypass(ctx context.Context, env *guard.Env, o outcome, reason string, refused bool, runErr error) (string, error) {
	if o.repo.CommonDir == "" {
		// A hook started by git knows only its top level so far.
		r, err := gitrun.OpenRepo(ctx, gitrun.New(env.Dir, env.Env))
		if err != nil {
			return "", fmt.Errorf("no git directory to keep the log in: %w", err)
		}
		o.repo = r
	}
	e := guard.BypassEntry{
		Time: guard.BypassTime(env.Clock.Now()), Owner: o.id.Owner, Host: o.id.Host, User: env.User,
		Reason: reason, Hook: o.hook, Remote: o.remote, URL: o.url, Refused: refused,
	}
	if runErr != nil {
		e.Error = runErr.Error()
	}
	seenOp := map[string]bool{}
	for _, c := range o.checks {
		if c.ref != "" {
			e.Refs = append(e.Refs, c.ref)
		}
		for _, op := range c.ops {
			if !seenOp[op] {
				seenOp[op] = true
				e.Ops = append(e.Ops, op)
			}
		}
		e.Paths = append(e.Paths, c.paths...)
		if c.dec == nil {
			continue
		}
		for _, b := range c.dec.Blocking {
			bb := guard.BypassBlock{Path: b.Path, Reason: b.Reason}
			if b.Lock != nil {
				bb.Lock, bb.Owner = b.Lock.Path, b.Lock.Owner
			}
			e.Blocking = append(e.Blocking, bb)
		}
	}
	if e.Ops == nil {
		e.Ops = []string{}
	}
	p := o.repo.BypassLogPath()
	return p, guard.AppendBypass(p, e)
}

// recovered runs fn and turns a panic into an error, so that a bug fails the hook
// closed like any other internal error: the reason, the way to bypass it, exit 2.
func recovered(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: %v (please report it)", r)
		}
	}()
	return fn()
}
