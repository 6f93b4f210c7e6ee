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
	// Sandbox is --sandbox: every Bash command let through runs under guard sandbox
	// (also [agent] sandbox in .guard.toml; see sandbox.go).
	Sandbox bool
	// ClaudeManaged is Claude Code's managed settings file on this system (its
	// permission rules bind above the user's and the project's); "" for none.
	ClaudeManaged string
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
		return guard.Exitf(guard.ExitUsage, "agent-hook: unknown agent %q (supported: %s)", opts.Agent, strings.Join(Agents, ", "))
	}
	if env.StdinTTY {
		// A person ran it by hand: waiting for JSON on a terminal would look like a hang.
		return guard.Exitf(guard.ExitUsage, "agent-hook: reads the %s hook's JSON on stdin; see guard agent-install to let the agent run it", opts.Agent)
	}
	v := hookVerdict(opts)
	for _, w := range v.Warnings {
		fmt.Fprintf(env.Stderr, "guard: warning: %s\n", w)
	}
	for _, c := range v.Claimed {
		fmt.Fprintf(env.Stderr, "guard: claimed %s\n", c)
	}
	if (v.Decision == Deny || v.Decision == Ask) && !v.AgentRules {
		guard.RecordGate(env, guard.EventRefused, "agent-hook", env.Env("GUARD_OWNER"), env.Dir, string(v.Decision)+" ("+opts.Agent+"): "+v.Reason)
	}
	return WriteAnswer(env.Stdout, opts.Agent, v)
}

func hookVerdict(opts HookOptions) (v *Verdict) {
	defer func() {
		// A bug must not let a tool call through: answer with a denial instead.
		if r := recover(); r != nil {
			v = &Verdict{Decision: Deny, Reason: fmt.Sprintf("guard: internal error (%v); guard refuses when it cannot decide (fail closed). Please report it.", r)}
		}
	}()
	env := opts.Env
	call, err := ReadCall(opts.Agent, env.Stdin, env.Dir)
	if err != nil {
		return &Verdict{Decision: Deny, Reason: "guard: " + err.Error() + "; guard refuses what it cannot read (fail closed)."}
	}
	subject, err := guard.ResolveSubject(env, call.Cwd, guard.Identity{})
	if err != nil {
		return &Verdict{Decision: Deny, Reason: fmt.Sprintf("guard: cannot read the configuration: %v; fix it to continue (fail closed).", err)}
	}
	decided, err := Decide(env, call, DecideOptions{Classify: opts.Classify, Claim: opts.Claim || subject.Config.Agent.Claim, Subject: subject})
	if err != nil {
		return &Verdict{Decision: Deny, Reason: fmt.Sprintf("guard: %v (fail closed).", err)}
	}
	if call.Kind == KindShell && (opts.Sandbox || subject.Config.Agent.Sandbox) {
		return sandboxVerdict(env, call, subject, decided, sandboxOptions{ClaudeManaged: opts.ClaudeManaged})
	}
	return decided
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
}

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
			doc = claudeAnswer{claudeDecision{HookEventName: "PreToolUse", PermissionDecision: string(v.Decision), PermissionDecisionReason: v.Reason}}
		}
	case Gemini:
		switch v.Decision {
		case None:
			doc = geminiAnswer{}
		case Ask:
			// Gemini CLI honours ask even under --approval-mode yolo: it prompts the
			// user, showing systemMessage (0.61; headless -p stops there without running
			// the tool). The reason goes in both fields.
			doc = geminiAnswer{Decision: "ask", Reason: v.Reason, SystemMessage: v.Reason}
		default:
			doc = geminiAnswer{Decision: string(v.Decision), Reason: v.Reason}
		}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}
