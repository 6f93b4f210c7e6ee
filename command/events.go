package command

import (
	"errors"
	"fmt"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/lockcore"
)

// The lock commands' events for the history (CONTRACT.md section 9). Each is one call
// at the place the command did the thing; recording never changes what it answers.

// recordClaim records what a successful claim did: acquired, renewed (the same owner
// again) or taken_over (an expired lock, or another's with --force).
func recordClaim(env *guard.Env, cmd string, res *lockcore.Acquired) {
	name := guard.EventAcquired
	detail := cmd
	switch res.Action {
	case lockcore.Renewed:
		name = guard.EventRenewed
	case lockcore.TookOver, lockcore.Replaced:
		name = guard.EventTakenOver
		if res.Previous != nil {
			detail = fmt.Sprintf("%s: from %s", cmd, res.Previous.Owner)
		}
	}
	l := res.Lock
	if l == nil {
		l = &lockcore.Lock{Path: res.Path}
	}
	ev := guard.LockEvent(name, l)
	ev.Actor, ev.Detail = l.Owner, detail
	env.Record(ev)
}

// recordLockRefusal records a claim refused by another's lock.
func recordLockRefusal(env *guard.Env, cmd, actor string, err error) {
	var ce *lockcore.ConflictError
	if !errors.As(err, &ce) || ce.Lock == nil {
		return
	}
	ev := guard.LockEvent(guard.EventRefused, ce.Lock)
	ev.Actor, ev.Detail = actor, cmd+": "+err.Error()
	env.Record(ev)
}

// recordLock records event name about lock l (released, renewed, pruned) caused by actor.
func recordLock(env *guard.Env, name string, l *lockcore.Lock, path, actor, detail string) {
	if l == nil {
		l = &lockcore.Lock{Path: path}
	}
	ev := guard.LockEvent(name, l)
	ev.Actor, ev.Detail = actor, detail
	env.Record(ev)
}
