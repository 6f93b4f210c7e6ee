package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/guardlocks/guard/command"
	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/gitrun"
	"github.com/guardlocks/guard/lockcore"
	"github.com/guardlocks/guard/watch"
)

// LocksURI is the resource that lists the project's active locks.
const LocksURI = "guard://locks"

// debounce gathers the events of one change (a claim is a create and a write) into
// one update notification.
const debounce = 100 * time.Millisecond

func (sv *Server) addResources() {
	sv.sdk.AddResource(&sdk.Resource{
		URI: LocksURI, Name: "locks", Title: "Active locks of this project", MIMEType: "application/json",
		Description: `The project's active locks as guard status --json shapes them ({"dir","locked","locks":[...]}), ` +
			`every lock in the project rather than those above one folder. Subscribe to be told when a lock is taken, renewed or released.`,
	}, sv.readLocks)
}

// projectRoot is the folder whose locks the resource lists: the repository holding
// the server's working directory, else that directory.
func (sv *Server) projectRoot() string {
	if top := gitrun.RepoTop(sv.o.Env.Dir); top != "" {
		return top
	}
	return sv.o.Env.Dir
}

// LocksJSON is the guard://locks document: guard status --json's shape, listing every
// active lock in the project (guard scan of its root).
type LocksJSON struct {
	Dir    string          `json:"dir"`
	Locked bool            `json:"locked"`
	Locks  []lockcore.JSON `json:"locks"`
}

func (sv *Server) readLocks(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	root := sv.projectRoot()
	o := sv.invoke(func(env *guard.Env) error {
		return command.RunScan(command.ScanOptions{Env: env, RootsInput: command.RootsInput{Roots: []string{root}}, JSON: true})
	})
	if o.err != nil {
		return nil, fmt.Errorf("guard://locks: %s", o.stderr)
	}
	doc := LocksJSON{Dir: root, Locks: []lockcore.JSON{}}
	if err := json.Unmarshal(o.stdout, &doc.Locks); err != nil {
		return nil, fmt.Errorf("guard://locks: guard scan's JSON: %w", err)
	}
	doc.Locked = len(doc.Locks) > 0
	data, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: LocksURI, MIMEType: "application/json", Text: string(data)}}}, nil
}

// subscribe starts, for the first subscriber, the watcher guard watch uses on the
// project: every lock event it reports (taken, renewed, released, expired, taken
// over) becomes one notifications/resources/updated for guard://locks.
func (sv *Server) subscribe(reqCtx context.Context, req *sdk.SubscribeRequest) error {
	if req.Params.URI != LocksURI {
		return fmt.Errorf("guard mcp has no resource %q to subscribe to (only %s)", req.Params.URI, LocksURI)
	}
	sv.watchMu.Lock()
	defer sv.watchMu.Unlock()
	if sv.watchCancel != nil {
		return nil
	}
	env := sv.o.Env
	_, roots, err := command.ResolveRoots(env, command.RootsInput{Roots: []string{sv.projectRoot()}})
	if err != nil {
		return err
	}
	// The watch outlives the subscribe request: it ends with the server (stopWatch).
	ctx, cancel := context.WithCancel(context.WithoutCancel(reqCtx))
	ready := make(chan struct{})
	var once sync.Once
	sv.watchCancel, sv.watchDone = cancel, make(chan struct{})
	changed := make(chan struct{}, 1)
	go func() {
		defer close(sv.watchDone)
		go sv.notifyLoop(ctx, changed)
		_ = watch.Run(ctx, watch.Options{
			Env: env, Roots: roots,
			Emit: func(guard.Event) {
				select {
				case changed <- struct{}{}:
				default:
				}
			},
			Ready: func() { once.Do(func() { close(ready) }) },
		})
		once.Do(func() { close(ready) })
	}()
	// Subscribed means watched: a change made after the answer is reported.
	select {
	case <-ready:
	case <-time.After(10 * time.Second):
	}
	return nil
}

// notifyLoop sends one update per burst of changes.
func (sv *Server) notifyLoop(ctx context.Context, changed <-chan struct{}) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-changed:
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(debounce):
		}
		select {
		case <-changed:
		default:
		}
		_ = sv.sdk.ResourceUpdated(ctx, &sdk.ResourceUpdatedNotificationParams{URI: LocksURI})
	}
}

// stopWatch ends the watcher, if one runs.
func (sv *Server) stopWatch() {
	sv.watchMu.Lock()
	cancel, done := sv.watchCancel, sv.watchDone
	sv.watchMu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}
