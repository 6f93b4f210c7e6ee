package guard

// ServerAsk is what the server's gates know for a bypass: their configuration (its
// [server] bypass_users), the authenticated pusher and the push options.
type ServerAsk struct {
	Config  *Config
	Pusher  Pusher
	Options []string
}

// GateBypass is what a gate does with a bypass request.
type GateBypass struct {
	// Reason is the reason given (GUARD_BYPASS, or the guard.bypass push option).
	Reason string
	// Asked says a bypass was asked for, to a gate that may yield to one.
	Asked bool
	// Allowed says the gate yields to it: the caller records the bypass (AppendBypass)
	// and lets the change through, or refuses (fail closed) when it cannot record it.
	Allowed bool
	// Why says, when a bypass was asked and is not allowed, why not (the server:
	// the pusher is not in bypass_users).
	Why string
	// Err is a malformed request (a push option without a reason).
	Err error
}

// CommitVerdict is a commit or push gate's whole answer over all its questions.
type CommitVerdict struct {
	// Refused says one of the questions was refused; Err is the error that stopped the
	// gate before it could answer (the gate then refuses, exit 2, fail closed).
	Refused bool
	Err     error
	// Bypass is the bypass decision; it lets the change through only when it is
	// Allowed and there is something to let through.
	Bypass GateBypass
}

// Pass reports whether git may go on without a bypass: nothing refused, no error.
func (v CommitVerdict) Pass() bool { return !v.Refused && v.Err == nil }

// Bypassed reports whether a bypass lets a refusal or error through (once recorded).
func (v CommitVerdict) Bypassed() bool { return !v.Pass() && v.Bypass.Allowed }

// Failure is the gate's outcome without a bypass, its explanation written by the
// gate: nil when it passes, BadInput when an error stopped it (fail closed), Refused.
func (v CommitVerdict) Failure() error {
	switch {
	case v.Err != nil:
		return Explained(BadInput)
	case v.Refused:
		return Explained(Refused)
	}
	return nil
}

// JudgeCommit is the whole answer of gate from the decisions of its questions (nil
// ones skipped) and the error that stopped it, if any. The bypass decision is the one
// rule for every commit and push gate: on a client GUARD_BYPASS (Bypass: pre-commit,
// pre-merge-commit and pre-push yield, guard ci never), which lets a refusal or an
// error through; on the server (server non-nil) the push option guard.bypass, only for
// users in [server] bypass_users, which lets a refusal through: an error on the
// server is never bypassed (without a readable configuration there is no list of who
// may, and the server's gate is the one no client can skip).
func JudgeCommit(env *Env, gate string, decisions []*Decision, err error, server *ServerAsk) CommitVerdict {
	v := CommitVerdict{Err: err}
	for _, d := range decisions {
		if d != nil && !d.Allowed {
			v.Refused = true
		}
	}
	if server == nil {
		v.Bypass.Reason, v.Bypass.Asked = Bypass(env, gate)
		v.Bypass.Allowed = v.Bypass.Asked
		return v
	}
	reason, asked, berr := BypassRequest(server.Options)
	v.Bypass = GateBypass{Reason: reason, Asked: asked, Err: berr}
	if asked && berr == nil && err == nil {
		v.Bypass.Allowed, v.Bypass.Why = ServerBypass(server.Config, server.Pusher)
	}
	return v
}
