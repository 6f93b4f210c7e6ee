package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/guardlocks/guard/command"
	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/wait"
	"github.com/guardlocks/guard/lockcore"
)

// WaitInput is the wait tool's input.
type WaitInput struct {
	Path     string  `json:"path,omitempty" jsonschema:"the file or folder you were refused, relative to the project or absolute"`
	Resource string  `json:"resource,omitempty" jsonschema:"wait for this resource URI instead of a path"`
	Timeout  float64 `json:"timeout,omitempty" jsonschema:"how long to wait at most, in seconds (default 600, at most 3600)"`
}

// MaxWait is the longest a wait tool call blocks (CONTRACT.md section 12).
const MaxWait = 3600 * time.Second

// defaultWait is a wait's limit when the call gives none.
const defaultWait = 600 * time.Second

// progressEvery is how often a waiting call tells the client it is still waiting.
const progressEvery = 5 * time.Second

// wait blocks until the path is free for the caller (guard check allows an edit: no
// lock of another covers it any more, or it is the caller's own) or the resource has
// no lock of another, at most for the timeout. It asks the same run function the check
// tool does on every wake-up; the wake-ups are the lock folders' file-system
// notifications (package wait's watcher, which polls where they fail), the blocking
// locks' expiry, and a progress tick.
func (sv *Server) wait(ctx context.Context, req *sdk.CallToolRequest, in WaitInput) (*sdk.CallToolResult, any, error) {
	if (in.Path == "") == (in.Resource == "") {
		return sv.toolError("wait: give the path you were refused, or a resource (one of them)")
	}
	if in.Timeout < 0 || in.Timeout > MaxWait.Seconds() {
		return sv.toolError("wait: timeout %v is not between 0 and %d seconds", in.Timeout, int(MaxWait.Seconds()))
	}
	limit := defaultWait
	if in.Timeout > 0 {
		limit = time.Duration(in.Timeout * float64(time.Second))
	}
	env := sv.o.Env
	start := env.Clock.Now()
	deadline := start.Add(limit)
	var w *wait.Watcher
	defer func() {
		if w != nil {
			w.Close()
		}
	}()
	lastProgress := time.Time{}
	for {
		o, free, blockers := sv.waitLook(in)
		if o.err != nil && !guard.OutcomeOf(o.err).IsRefusal() {
			return result(o, "")
		}
		now := env.Clock.Now()
		if free || !now.Before(deadline) {
			return waitResult(o, !free, now.Sub(start))
		}
		if w == nil {
			w = wait.Watch(nil)
		}
		next := deadline
		for _, b := range blockers {
			w.Add(filepath.Dir(b.Path))
			if b.ExpiresAt != nil {
				if at, err := time.Parse(time.RFC3339, *b.ExpiresAt); err == nil && at.After(now) && at.Before(next) {
					next = at.Add(10 * time.Millisecond)
				}
			}
		}
		if tok := req.Params.GetProgressToken(); tok != nil && now.Sub(lastProgress) >= progressEvery {
			lastProgress = now
			_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
				ProgressToken: tok, Progress: now.Sub(start).Seconds(), Total: limit.Seconds(),
				Message: waitMessage(blockers, now.Sub(start)),
			})
		}
		d := next.Sub(now)
		if d > progressEvery {
			d = progressEvery
		}
		if err := w.Next(ctx, d); err != nil {
			// Cancelled (notifications/cancelled, or the client went away).
			return nil, nil, err
		}
	}
}

// waitLook asks once: for a path, guard check (the caller's own locks do not stop
// it); for a resource, guard status --resource, where only another's lock counts.
func (sv *Server) waitLook(in WaitInput) (o outcome, free bool, blockers []lockcore.JSON) {
	owner, _ := sv.identity()
	if in.Resource != "" {
		o = sv.invoke(func(env *guard.Env) error {
			return command.RunStatus(command.StatusOptions{Env: env, Resource: in.Resource, JSON: true})
		})
		var st command.StatusJSON
		if json.Unmarshal(o.stdout, &st) != nil {
			return o, false, nil
		}
		me := owner
		if me == "" {
			me = sv.usual().Owner
		}
		for _, l := range st.Locks {
			if !strings.EqualFold(l.Owner, me) {
				blockers = append(blockers, l)
			}
		}
		return o, len(blockers) == 0 && len(st.Unreadable) == 0, blockers
	}
	o = sv.invoke(func(env *guard.Env) error {
		return command.RunCheck(command.CheckOptions{Env: env, Owner: owner, Host: sv.o.Host, JSON: true, Paths: []string{sv.abs(in.Path)}})
	})
	var dec guard.DecisionJSON
	if json.Unmarshal(o.stdout, &dec) != nil {
		return o, false, nil
	}
	for _, b := range dec.Blocking {
		if b.Lock != nil {
			blockers = append(blockers, *b.Lock)
		}
	}
	return o, dec.Allowed, blockers
}

// waitResult is the command's JSON with "timed_out" and "waited_seconds" added.
func waitResult(o outcome, timedOut bool, waited time.Duration) (*sdk.CallToolResult, any, error) {
	var doc map[string]any
	if err := json.Unmarshal(o.stdout, &doc); err != nil {
		return result(o, "")
	}
	doc["timed_out"] = timedOut
	doc["waited_seconds"] = waited.Round(time.Millisecond).Seconds()
	data, err := json.Marshal(doc)
	if err != nil {
		return nil, nil, err
	}
	text := string(data)
	if timedOut {
		text += "\nguard: still locked after the wait: wait again, work in another area, or ask the person you work for"
	}
	return &sdk.CallToolResult{Meta: exitMeta(o.code), Content: []sdk.Content{&sdk.TextContent{Text: text}}}, json.RawMessage(data), nil
}

func waitMessage(blockers []lockcore.JSON, waited time.Duration) string {
	var held []string
	for _, b := range blockers {
		h := b.Path + " held by " + b.Owner
		if b.Purpose != "" {
			h += " (" + b.Purpose + ")"
		}
		held = append(held, h)
	}
	if len(held) == 0 {
		return fmt.Sprintf("waiting, %s", waited.Round(time.Second))
	}
	return fmt.Sprintf("waiting for %s, %s", strings.Join(held, "; "), waited.Round(time.Second))
}
