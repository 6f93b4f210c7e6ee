// Package lincheck (test-only) checks histories of lock operations made by real guard
// processes for linearizability against a model of a lock with fences, with
// porcupine. The harness (harness.go) runs the clients and records every operation
// with the harness's monotonic clock; this file is the model and the check.
//
// The model is one lock name with a lease:
//
//   - at most one holder at a time: a grant to another client is legal only once the
//     holder released, or once its lease may have ended;
//   - fences strictly increase from grant to grant (a renewal keeps its fence);
//   - a write is accepted only from the current holder under the current fence, and
//     never with a fence below one the store accepted before;
//   - a renewal or a release succeeds only for the current holder and its fence;
//   - a waiter (--wait) is a claim like any other: granted only after a release or
//     an expiry.
//
// Expiry makes "at most one holder" a matter of time. Porcupine linearizes each
// operation at some point between its invocation and its response and knows nothing
// of clocks, so the times travel in the operations: a grant records the earliest
// moment its lease can end, LeaseLo = invocation + TTL - Slack (the lease cannot have
// started before the claim was invoked; Slack covers the lock file's created being
// written to the second, up to 1 s earlier than the claim, and the scheduling of the
// machine). A later grant to another client that returned before LeaseLo, with no
// release between them, is two holders at once. A renewal moves LeaseLo to its own
// invocation + TTL - Slack. guard run's own renewals are not seen by the harness, so
// a run's lease is modelled as its claim's alone: the lenient side, which can miss a
// run that failed to renew but never accuses a correct one; scenarios assert
// directly that no run without a fault loses its lock.
//
// Operations whose outcome is unknown (an error, a timeout: the request may have
// taken effect) are nondeterministic: a failed release may or may not have
// released. A failed claim is taken as not granted: had it been granted in the
// backend, the client does not know it, never writes under it, and the grant can only
// refuse others (a refusal is always legal: the model checks safety, not liveness).
package lincheck

import (
	"fmt"
	"hash/fnv"
	"time"

	"github.com/anishathalye/porcupine"
)

// Kind is what an operation did.
type Kind int

// The operations of a history.
const (
	// Acquire is guard lock (with or without --wait), or guard run's claim (its
	// response is COMMAND's first word to the harness).
	Acquire Kind = iota
	// Renew is guard renew.
	Renew
	// Release is guard unlock.
	Release
	// Write is a write to the fenced store under Fence.
	Write
	// RunEnd is guard run from COMMAND's last word to guard's exit: exit 0 releases.
	RunEnd
)

func (k Kind) String() string {
	return [...]string{"acquire", "renew", "release", "write", "run-end"}[k]
}

// Input is an operation's invocation. Call and Return repeat the operation's
// interval (nanoseconds since the history's start) for the model's lease arithmetic.
type Input struct {
	Kind   Kind
	Client int
	// Fence is the fence the client acts under (all but Acquire).
	Fence int64
	// Via is the command, for the visualisation ("guard lock --wait 2s").
	Via string
	// Keep marks a RunEnd of a guard run that found the lock already held by its
	// client (it renewed it, and leaves it in place at the end).
	Keep         bool
	Call, Return int64
}

// Output is an operation's response.
type Output struct {
	// OK: granted, renewed, released, accepted (RunEnd: guard run exited 0).
	OK bool
	// Fence is the fence an Acquire was granted.
	Fence int64
	// Unknown marks a failure that may still have taken effect (exit 2, a timeout).
	Unknown bool
	// Code is the process's exit code (-1: none).
	Code int
	// Detail is the first line of what the process said, for the visualisation.
	Detail string
}

// State is the model's state: the holder and what the store accepted.
type State struct {
	Holder   int // -1: none
	Fence    int64
	LeaseLo  int64 // earliest end of the holder's lease (ns since start)
	MaxFence int64 // largest fence ever granted
	StoreMax int64 // largest fence the store accepted
}

// Model is the lock model for one scenario.
type Model struct {
	// TTL is the lifetime every claim asks for (--expires).
	TTL time.Duration
	// Slack is the clock uncertainty taken off every lease (see the package doc).
	Slack time.Duration
}

func (m Model) leaseLo(call int64) int64 { return call + int64(m.TTL) - int64(m.Slack) }

// Step is the model's transition: the states the operation may lead to (none: it
// cannot have happened in this state).
func (m Model) Step(s State, in Input, out Output) []State {
	c := in.Client
	holds := s.Holder == c && s.Fence == in.Fence
	released := s
	released.Holder, released.Fence, released.LeaseLo = -1, 0, 0
	switch in.Kind {
	case Acquire:
		if !out.OK {
			return []State{s}
		}
		if s.Holder == c && out.Fence == s.Fence {
			// The own live lock renewed by guard lock: same fence, longer lease.
			s.LeaseLo = max(s.LeaseLo, m.leaseLo(in.Call))
			return []State{s}
		}
		if out.Fence <= s.MaxFence {
			return nil // fences must strictly increase
		}
		if s.Holder >= 0 && in.Return < s.LeaseLo {
			return nil // two holders: the previous lease cannot have ended yet
		}
		return []State{{Holder: c, Fence: out.Fence, LeaseLo: m.leaseLo(in.Call), MaxFence: out.Fence, StoreMax: s.StoreMax}}
	case Renew:
		if !out.OK {
			return []State{s}
		}
		if !holds {
			return nil // renewed a lock that is not (or no longer) the caller's
		}
		s.LeaseLo = max(s.LeaseLo, m.leaseLo(in.Call))
		return []State{s}
	case Release:
		switch {
		case out.OK && holds:
			return []State{released}
		case out.OK:
			return nil // released what it did not hold
		case out.Unknown && holds:
			return []State{s, released}
		}
		return []State{s}
	case Write:
		if !out.OK {
			return []State{s}
		}
		if !holds || in.Fence < s.StoreMax {
			return nil // a write under a superseded (or never granted) fence accepted
		}
		s.StoreMax = in.Fence
		return []State{s}
	case RunEnd:
		switch {
		case in.Keep && out.OK:
			if !holds {
				return nil // exited 0 though its lock was lost while COMMAND ran
			}
			return []State{s}
		case out.OK && holds:
			return []State{released}
		case out.OK:
			return nil // guard run exited 0 though its lock was lost while COMMAND ran
		case out.Code == 5 || !holds:
			return []State{s} // lost (5): guard run releases nothing
		}
		return []State{s, released} // a failed release may have released
	}
	return nil
}

// Porcupine is the model as porcupine takes it.
func (m Model) Porcupine() porcupine.Model {
	nm := porcupine.NondeterministicModel{
		Init: func() []any { return []any{State{Holder: -1}} },
		Step: func(state, input, output any) []any {
			var next []any
			for _, s := range m.Step(state.(State), input.(Input), output.(Output)) {
				next = append(next, s)
			}
			return next
		},
		Hash: func(state any) uint64 {
			h := fnv.New64a()
			fmt.Fprint(h, state)
			return h.Sum64()
		},
		DescribeOperation: func(input, output any) string {
			return Describe(input.(Input), output.(Output))
		},
		DescribeState: func(state any) string {
			s := state.(State)
			if s.Holder < 0 {
				return fmt.Sprintf("free (last fence %d, store at %d)", s.MaxFence, s.StoreMax)
			}
			return fmt.Sprintf("c%d holds fence %d, lease >= %s (store at %d)", s.Holder, s.Fence, time.Duration(s.LeaseLo), s.StoreMax)
		},
	}
	return nm.ToModel()
}

// Describe is one operation in words, for the visualisation and the test log.
func Describe(in Input, out Output) string {
	what := in.Via
	if what == "" {
		what = in.Kind.String()
	}
	res := "failed"
	switch {
	case in.Kind == Acquire && out.OK:
		res = fmt.Sprintf("fence %d", out.Fence)
	case in.Kind == Write && out.OK:
		res = "accepted"
	case in.Kind == Write:
		res = "rejected"
	case out.OK:
		res = "ok"
	case out.Unknown:
		res = "unknown"
	}
	s := fmt.Sprintf("c%d %s", in.Client, what)
	if in.Kind != Acquire {
		s += fmt.Sprintf(" [fence %d]", in.Fence)
	}
	s += " -> " + res
	if out.Code >= 0 {
		s += fmt.Sprintf(" (exit %d)", out.Code)
	}
	if out.Detail != "" {
		s += ": " + out.Detail
	}
	return s
}
