package hooks

import (
	"context"
	"fmt"
	"io"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/gitrun"
)

// RunPostReceive is `guard hook post-receive`: one history event (pushed) per ref
// update git made, with the pusher as the actor. It never fails a push (git has
// already updated the refs): what it cannot do, it says, and exits 0.
func RunPostReceive(ctx context.Context, env *guard.Env, stdin io.Reader) error {
	w := env.Stderr
	ups, err := ParseReceiveLines(stdin)
	if err != nil {
		say(w, 0, fmt.Sprintf("post-receive: %v; nothing recorded", err))
		return nil
	}
	repo, err := gitrun.OpenRepo(ctx, gitrun.New(env.Dir, env.Env))
	if err != nil {
		say(w, 0, fmt.Sprintf("post-receive: %v; nothing recorded", err))
		return nil
	}
	var p guard.Pusher
	cfg, cerr := guard.FindServerConfig(repo.CommonDir)
	if cerr == nil {
		p, cerr = guard.ResolvePusher(env, cfg)
	}
	if cerr != nil {
		say(w, 0, fmt.Sprintf("post-receive: %v; recording the push without a pusher", cerr))
	}
	for _, u := range ups {
		detail := fmt.Sprintf("%s: %s %s..%s", guard.GatePostReceive, u.Ref, gitrun.Short(u.Old), gitrun.Short(u.New))
		if p.User != "" {
			detail += fmt.Sprintf(" by %s (%s)", p.User, p.Source)
		}
		env.Record(guard.Event{Event: guard.EventPushed, Path: repo.CommonDir, Name: u.Ref, Actor: p.Owner, Detail: detail})
	}
	return nil
}
