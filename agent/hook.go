package agent

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/guardlocks/guard/guard"
)

// HookOptions are the inputs of `guard agent-hook <agent>`.
type HookOptions struct {
	Env *guard.Env
	// Agent is the hook protocol: claude or gemini.
	Agent string
	// Claim is --claim: a write into a free area claims it (also [agent] claim in
	// .guard.toml).
	Claim bool
	// Classify tells publication commands (wired in from the publish package).
	Classify ClassifyFunc
	// Sandbox is [agent] sandbox as a flag gives it (--sandbox is SandboxOn); ""
	// reads it from .guard.toml (see sandbox.go).
	Sandbox guard.SandboxMode
	// ClaudeManaged is Claude Code's managed settings file on this system (its
	// permission rules bind above the user's and the project's); "" for none.
	ClaudeManaged string
	// Exact reports whether the exact sandbox (user and mount namespaces) can run a
	// command here: nil when it can (wired in from the sandbox package; nil Exact
	// is never).
	Exact func() error
	// ClientArgs are the command lines of the hook's parent processes, nearest first
	// (how the client was started: Gemini CLI's and Codex's approval and sandbox
	// modes are not in their hook input); nil when they cannot be read.
	ClientArgs func() [][]string
}

// RunHook answers one tool call. Every answer is exit 0: a decision (deny, ask; allow
// only with a sandbox rewrite, see sandbox.go) is a JSON document on stdout in the
// agent's format; no decision is an empty stdout for Claude Code and `{}` for Gemini
// CLI (which parses stdout as JSON). Malformed input
// and internal errors are denials (fail closed). Only an unknown agent name is a
// usage error (exit 2, which both agents also treat as a block).
func RunHook(opts HookOptions) error {
	env := opts.Env
	if !slices.Contains(Agents, opts.Agent) {
		return guard.Fail(guard.BadInput, "agent-hook: unknown agent %q (supported: %s)", opts.Agent, strings.Join(Agents, ", "))
	}
	if env.StdinTTY {
		// A person ran it by hand: waiting for JSON on a terminal would look like a hang.
		return guard.Fail(guard.BadInput, "agent-hook: reads the %s hook's JSON on stdin; see guard agent-install to let the agent run it", opts.Agent)
	}
	v := hookVerdict(opts)
	if v.Decision == Ask && opts.Agent == Gemini && opts.ClientArgs != nil {
		// Headless Gemini CLI cannot ask anyone: the ask would stop the session for
		// good (it never exits while guard mcp is connected). Refuse, saying so.
		if argv := clientArgv(opts.ClientArgs(), "gemini"); argv != nil && geminiHeadless(argv) {
			v.Decision, v.Reason = Deny, v.Reason+"\n"+noOneToAsk
			v.UpdatedInput = nil
		}
	}
	for _, w := range v.Warnings {
		fmt.Fprintf(env.Stderr, "guard: warning: %s\n", w)
	}
	for _, c := range v.Claimed {
		fmt.Fprintf(env.Stderr, "guard: claimed %s\n", c)
	}
	if (v.Decision == Deny || v.Decision == Ask) && !v.AgentRules {
		// The actor is the identity the decision was made for (a session id when
		// that is all the agent is known by), the owner of the agent's claims.
		guard.RecordGate(env, guard.EventRefused, "agent-hook", v.Identity.Owner, env.Dir, string(v.Decision)+" ("+opts.Agent+"): "+v.Reason)
	}
	return WriteAnswer(env.Stdout, opts.Agent, v)
}

// hookVerdict answers the call on stdin; the verdict names the identity it was made
// for (the agent's as far as it is known when guard cannot decide).
func hookVerdict(opts HookOptions) (v *Verdict) {
	env := opts.Env
	var call *Call
	defer func() {
		// A bug must not let a tool call through: answer with a denial instead.
		if r := recover(); r != nil {
			v = &Verdict{Decision: Deny, Reason: fmt.Sprintf("guard: internal error (%v); guard refuses when it cannot decide (fail closed). Please report it.", r)}
		}
		if v.Identity.Owner == "" {
			session := ""
			if call != nil {
				session = call.SessionID
			}
			v.Identity.Owner = guard.AgentOwner(env, session)
		}
	}()
	call, err := ReadCall(opts.Agent, env.Stdin, env.Dir)
	if err != nil {
		return &Verdict{Decision: Deny, Reason: "guard: " + err.Error() + "; guard refuses what it cannot read (fail closed)."}
	}
	subject, err := guard.ResolveSubject(env, call.Cwd, guard.Identity{})
	if err != nil {
		return &Verdict{Decision: Deny, Reason: fmt.Sprintf("guard: cannot read the configuration: %v; fix it to continue (fail closed).", err)}
	}
	dopts := DecideOptions{Classify: opts.Classify, Claim: opts.Claim || subject.Config.Agent.Claim, Subject: subject}
	var plan *sandboxPlan
	if call.Kind == KindShell {
		mode := opts.Sandbox
		if mode == "" {
			mode = subject.Config.Agent.Sandbox.Mode()
		}
		plan = planSandbox(env, call, subject, mode, opts)
		dopts.Strict = plan.strict
	}
	decided, err := Decide(env, call, dopts)
	if err != nil {
		return &Verdict{Decision: Deny, Reason: fmt.Sprintf("guard: %v (fail closed).", err)}
	}
	if plan == nil {
		return decided
	}
	out := plan.apply(env, call, subject, decided)
	out.Identity = decided.Identity
	return out
}

// claudeAnswer is Claude Code's PreToolUse hook output.
type claudeAnswer struct {
	HookSpecificOutput claudeDecision `json:"hookSpecificOutput"`
}

type claudeDecision struct {
	HookEventName            string `json:"hookEventName"`
	PermissionDecision       string `json:"permissionDecision"`
	PermissionDecisionReason string `json:"permissionDecisionReason"`
	// UpdatedInput replaces the tool's input (the sandboxed Bash command).
	UpdatedInput json.RawMessage `json:"updatedInput,omitempty"`
}

// geminiAnswer is Gemini CLI's BeforeTool hook output.
type geminiAnswer struct {
	Decision string `json:"decision,omitempty"`
	Reason   string `json:"reason,omitempty"`
	// SystemMessage is what Gemini CLI shows the user with its approval prompt (an
	// ask's reason is not shown there).
	SystemMessage string `json:"systemMessage,omitempty"`
	// HookSpecificOutput carries the rewritten tool_input (the sandboxed command).
	HookSpecificOutput *geminiSpecific `json:"hookSpecificOutput,omitempty"`
}

type geminiSpecific struct {
	HookEventName string          `json:"hookEventName"`
	ToolInput     json.RawMessage `json:"tool_input"`
}

// noOneToAsk ends the refusal that stands for an ask in a headless Gemini CLI.
const noOneToAsk = "Gemini CLI runs headless here (gemini -p): no one can approve, so guard refuses: ask the user to run this step, to run Gemini CLI interactively, or to change the rule."

func cannotAsk(agent string) string {
	return agent + " hooks cannot ask for approval, so guard refuses: ask the user to run this step, or to change the rule."
}

// WriteAnswer writes v in agent's hook output format.
func WriteAnswer(w io.Writer, agent string, v *Verdict) error {
	var doc any
	switch agent {
	case Claude:
		if v.Decision == None {
			return nil
		}
		doc = claudeAnswer{claudeDecision{HookEventName: "PreToolUse", PermissionDecision: string(v.Decision), PermissionDecisionReason: v.Reason, UpdatedInput: v.UpdatedInput}}
	case Codex:
		// Claude Code's format; Codex's PreToolUse honours deny only, so an ask is
		// refused with the reason saying how to go ahead.
		switch v.Decision {
		case None:
			return nil
		case Ask:
			doc = claudeAnswer{claudeDecision{HookEventName: "PreToolUse", PermissionDecision: string(Deny), PermissionDecisionReason: v.Reason + "\n" + cannotAsk("Codex")}}
		default:
			// An allow is only ever a rewrite, which Codex applies only with it.
			doc = claudeAnswer{claudeDecision{HookEventName: "PreToolUse", PermissionDecision: string(v.Decision), PermissionDecisionReason: v.Reason, UpdatedInput: v.UpdatedInput}}
		}
	case Gemini:
		var a geminiAnswer
		switch v.Decision {
		case Ask:
			// Gemini CLI honours ask even under --approval-mode yolo: it prompts the
			// user, showing systemMessage (0.61; headless -p stops there without running
			// the tool). The reason goes in both fields.
			a = geminiAnswer{Decision: "ask", Reason: v.Reason, SystemMessage: v.Reason}
		case Deny:
			a = geminiAnswer{Decision: string(v.Decision), Reason: v.Reason}
		}
		if v.UpdatedInput != nil && v.Decision != Deny {
			a.HookSpecificOutput = &geminiSpecific{HookEventName: "BeforeTool", ToolInput: v.UpdatedInput}
		}
		doc = a
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}
