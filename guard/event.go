package guard

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/guardlocks/guard/lockcore"
)

// The events of CONTRACT.md section 9: what guard's commands did (acquired, renewed,
// released, taken_over, pruned, waiting), what a gate said (refused, bypassed), and what
// the watcher saw (expired, and the others when another tool or a person did them).
const (
	EventAcquired  = "acquired"
	EventRenewed   = "renewed"
	EventReleased  = "released"
	EventExpired   = "expired"
	EventTakenOver = "taken_over"
	EventPruned    = "pruned"
	EventWaiting   = "waiting"
	EventRefused   = "refused"
	EventBypassed  = "bypassed"
)

// Events lists the event names, in the contract's order.
var Events = []string{EventAcquired, EventRenewed, EventReleased, EventExpired, EventTakenOver,
	EventPruned, EventWaiting, EventRefused, EventBypassed, EventPushed}

// Event is one thing that happened to a lock or at a gate. Empty fields are absent and
// print as null.
type Event struct {
	Time     time.Time
	Event    string
	Path     string
	Name     string
	Kind     string
	Scope    string
	Owner    string
	Host     string
	Fence    *int64
	Resource string
	// Actor is who caused it, when known (an owner, "web", a gate's identity).
	Actor string
	// Detail is a sentence: the refusal's reason, the bypass's reason, the gate.
	Detail string
}

// LockEvent is the event of kind name about lock l (its fields filled from the lock).
func LockEvent(name string, l *lockcore.Lock) Event {
	ev := Event{Event: name, Path: l.Path, Name: l.File, Kind: string(l.Kind), Scope: l.Scope,
		Owner: l.Owner, Host: l.Name.Host, Resource: l.Resource}
	if ev.Host == "" {
		ev.Host = l.Host
	}
	if f, ok := l.Fence(); ok {
		ev.Fence = &f
	}
	return ev
}

type eventJSON struct {
	Time     string  `json:"time"`
	Event    string  `json:"event"`
	Path     *string `json:"path"`
	Name     *string `json:"name"`
	Kind     *string `json:"kind"`
	Scope    *string `json:"scope"`
	Owner    *string `json:"owner"`
	Host     *string `json:"host"`
	Fence    *int64  `json:"fence"`
	Resource *string `json:"resource"`
	Actor    *string `json:"actor"`
	Detail   *string `json:"detail"`
}

func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func fromNull(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// MarshalJSON writes the contract's event object: every field present, absent ones null.
func (e Event) MarshalJSON() ([]byte, error) {
	return json.Marshal(eventJSON{
		Time: e.Time.Format(time.RFC3339Nano), Event: e.Event, Path: orNull(e.Path), Name: orNull(e.Name),
		Kind: orNull(e.Kind), Scope: orNull(e.Scope), Owner: orNull(e.Owner), Host: orNull(e.Host),
		Fence: e.Fence, Resource: orNull(e.Resource), Actor: orNull(e.Actor), Detail: orNull(e.Detail),
	})
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (e *Event) UnmarshalJSON(data []byte) error {
	var j eventJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	t, err := time.Parse(time.RFC3339Nano, j.Time)
	if err != nil {
		return err
	}
	*e = Event{Time: t, Event: j.Event, Path: fromNull(j.Path), Name: fromNull(j.Name), Kind: fromNull(j.Kind),
		Scope: fromNull(j.Scope), Owner: fromNull(j.Owner), Host: fromNull(j.Host), Fence: j.Fence,
		Resource: fromNull(j.Resource), Actor: fromNull(j.Actor), Detail: fromNull(j.Detail)}
	return nil
}

// Record hands ev to the env's recorder (the history), stamped with the env's clock when
// it has no time. Without a recorder it does nothing: recording never changes an answer,
// and a gate that cannot record still answers.
func (e *Env) Record(ev Event) {
	if e == nil || e.Recorder == nil {
		return
	}
	if ev.Time.IsZero() && e.Clock != nil {
		ev.Time = e.Clock.Now()
	}
	e.Recorder(ev)
}

// maxRefusalEvents bounds the events one refusal records: a 100,000-file commit into a
// locked folder is one refusal, not 100,000 events.
const maxRefusalEvents = 20

// RecordDecision records a refusal by gate (pre-commit, pre-push, ci, check, publish,
// agent-hook, ...): one refused event per blocking lock, caused by the owner the
// policy judged (Block.Actor; actor for a block that names none). An allowed decision
// records nothing.
func RecordDecision(env *Env, gate, actor string, d *Decision) {
	if d == nil || d.Allowed || env == nil || env.Recorder == nil {
		return
	}
	for i, b := range d.Blocking {
		if i == maxRefusalEvents {
			break
		}
		ev := Event{Event: EventRefused, Path: b.Path}
		if b.Lock != nil {
			ev = LockEvent(EventRefused, b.Lock)
		}
		ev.Actor = b.Actor
		if ev.Actor == "" {
			ev.Actor = actor
		}
		ev.Detail = fmt.Sprintf("%s: %s refused for %s: %s", gate, strings.Join(d.Ops, ","), b.Path, b.Reason)
		env.Record(ev)
	}
}

// RecordGate records a gate's refusal or bypass that no Decision describes (a marker, a
// command guard cannot judge, GUARD_BYPASS). actor is the owner the gate judged (the
// identity its policy was made for), not what the environment claims.
func RecordGate(env *Env, event, gate, actor, path, detail string) {
	env.Record(Event{Event: event, Path: path, Actor: actor, Detail: gate + ": " + detail})
}
