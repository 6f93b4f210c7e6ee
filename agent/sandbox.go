package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/guardlocks/guard/guard"
)

// [agent] sandbox (CONTRACT.md section 4): under "auto" (the default) and true, every
// shell command the hook lets through is rewritten to run under `guard sandbox` as
// the identity the hook judged, so that the kernel refuses its writes into areas
// locked against the agent whatever program makes them (section 11). A rewrite
// must neither add a prompt the client would not have shown nor lose one it would
// have, and each client judges the command it is handed, not the one proposed:
//
//   - Claude Code applies updatedInput; with "allow" the rewritten command runs
//     without a prompt, with "ask" the user approves it, with no decision Claude
//     judges it against rules written for the original (observed with 2.1). So guard
//     judges the original against Claude's own rules (claude_permissions.go): allow
//     where they would have run it without a prompt, ask otherwise, deny where they
//     deny it.
//   - Codex applies updatedInput only with "allow", which there means "not blocked":
//     the rewritten command then goes through Codex's approval and exec-policy rules,
//     where a rule naming the original no longer matches. guard rewrites only where
//     Codex asks nothing and nothing matches: approval never (permission_mode
//     bypassPermissions), no Codex sandbox of its own (which guard sandbox does not
//     nest in), and no .rules file.
//   - Gemini CLI applies hookSpecificOutput.tool_input before its policy engine
//     judges the call, so the policy sees the rewritten command. guard rewrites only
//     where that policy allows every shell command: yolo mode (read from the client's
//     command line: the hook input does not carry it) and no policy file or tools
//     setting of the user's, the project's or the system's.
//
// Where the exact sandbox (user and mount namespaces, HookOptions.Exact) cannot run,
// or the client cannot take the rewrite without changing its prompts, "auto" falls
// back to the strict rule (near a lock, what guard cannot judge is asked), and true
// refuses the command. A session started under guard sandbox (GUARD_SANDBOX is 1 or
// more) is confined already: nothing is rewritten.

// SandboxShell is the shell the rewritten command runs the original with, as Claude
// Code picks its own: CLAUDE_CODE_SHELL, else SHELL, when it names bash or zsh; else
// bash from the PATH.
func SandboxShell(env *guard.Env) string {
	for _, v := range []string{"CLAUDE_CODE_SHELL", "SHELL"} {
		if s := env.Env(v); filepath.IsAbs(s) && (strings.Contains(s, "bash") || strings.Contains(s, "zsh")) {
			return s
		}
	}
	return "bash"
}

// sandboxPrefix is the rewritten command up to the quoted original: guard sandbox
// judging as the identity the hook judged as, then the shell's -c.
func sandboxPrefix(exe string, id guard.Identity, shell string) string {
	return shellQuote(exe) + " sandbox --owner " + shellQuote(id.Owner) + " --host " + shellQuote(id.Host) + " -- " + shellQuote(shell) + " -c "
}

// SandboxCommand is command rewritten to run under guard sandbox as id: the guard
// binary exe, `sandbox --owner O --host H --`, the shell, -c, and command in single
// quotes (each ' written '\”), so that the shell receives it byte for byte.
func SandboxCommand(exe string, id guard.Identity, shell, command string) string {
	return sandboxPrefix(exe, id, shell) + singleQuote(command)
}

// singleQuote always quotes (shellQuote leaves plain words bare).
func singleQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// alreadySandboxed reports whether command is exactly what SandboxCommand makes for
// this identity: it is not wrapped again. Any other `guard sandbox ...` (another
// owner, --allow, another binary, something after it) is wrapped like any command:
// the outer sandbox judges as the agent, and Landlock rules only ever add up.
func alreadySandboxed(command, exe string, id guard.Identity, shell string) bool {
	rest, ok := strings.CutPrefix(command, sandboxPrefix(exe, id, shell))
	if !ok || len(rest) < 2 || rest[0] != '\'' || rest[len(rest)-1] != '\'' {
		return false
	}
	inner := strings.ReplaceAll(rest[1:len(rest)-1], `'\''`, "'")
	return singleQuote(inner) == rest
}

// rewriteInput returns tool_input (its JSON text) with command replaced by the
// sandboxed command. The original's JSON string is carried over escape for escape
// (only its quotes are rewritten), so that whatever Claude Code encoded (a lone
// surrogate, an escaped control character) comes back as it went; every other field
// keeps its text and its place.
func rewriteInput(input json.RawMessage, prefix, command string) (json.RawMessage, error) {
	obj, err := parseObject(input)
	if err != nil {
		return nil, fmt.Errorf("tool_input: %w", err)
	}
	raw, ok := obj.get("command")
	if !ok {
		return nil, fmt.Errorf("tool_input has no command")
	}
	wrapped, err := wrapJSONString(prefix, raw)
	if err != nil {
		return nil, err
	}
	// The JSON text must say exactly the sandboxed command.
	var got string
	if err := json.Unmarshal(wrapped, &got); err != nil || got != prefix+singleQuote(command) {
		return nil, fmt.Errorf("the rewritten command does not read back as written (%v)", err)
	}
	obj.set("command", wrapped)
	return obj.MarshalJSON()
}

// wrapJSONString turns the JSON string literal raw (the command) into the literal of
// prefix + the command in single quotes, working on the JSON text itself.
func wrapJSONString(prefix string, raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, fmt.Errorf("tool_input.command is not a JSON string")
	}
	p, err := marshal(prefix)
	if err != nil {
		return nil, err
	}
	const quote = `'\\''` // '\'' as JSON text
	var b bytes.Buffer
	b.Write(p[:len(p)-1]) // the prefix's literal without its closing quote
	b.WriteByte('\'')
	body := raw[1 : len(raw)-1]
	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case c == '\'':
			b.WriteString(quote)
		case c == '\\' && i+1 < len(body):
			if body[i+1] == 'u' && i+5 < len(body) {
				if n, err := strconv.ParseUint(string(body[i+2:i+6]), 16, 16); err == nil && n == '\'' {
					b.WriteString(quote)
					i += 5
					continue
				}
			}
			b.Write(body[i : i+2])
			i++
		default:
			b.WriteByte(c)
		}
	}
	b.WriteString(`'"`)
	return b.Bytes(), nil
}

// SandboxedSession reports whether the hook itself runs under guard sandbox (the agent
// was started with `guard sandbox -- AGENT`): every command the agent runs is then
// confined already.
func SandboxedSession(env *guard.Env) bool {
	n, err := strconv.Atoi(env.Env("GUARD_SANDBOX"))
	return err == nil && n >= 1
}

// sandboxOptions are what the sandbox step needs besides the call.
type sandboxOptions struct {
	// ClaudeManaged is Claude Code's managed settings file ("" for none).
	ClaudeManaged string
	// ClientArgs are the parent processes' command lines: Claude Code's own holds
	// rules too (--allowedTools).
	ClientArgs [][]string
	// Required is sandbox = true: a command is rewritten even where that adds a
	// prompt.
	Required bool
}

// sandboxPlan is what [agent] sandbox does with one shell call, decided before the
// call is judged (the fallback changes how it is judged).
type sandboxPlan struct {
	// rewrite: the command runs under guard sandbox.
	rewrite bool
	// strict is the fallback of "auto" (no exact sandbox, or a client that cannot
	// take the rewrite), saying why: near a lock, what guard cannot judge is asked.
	strict string
	// refuse: sandbox = true and the command cannot run sandboxed, because of this.
	refuse        string
	claudeManaged string
	// clientArgs are the parent processes' command lines (HookOptions.ClientArgs).
	clientArgs [][]string
	// required is sandbox = true: every command is rewritten, even where that adds a
	// prompt.
	required bool
}

// planSandbox decides what mode does with call.
func planSandbox(env *guard.Env, call *Call, subject *guard.Subject, mode guard.SandboxMode, opts HookOptions) *sandboxPlan {
	p := &sandboxPlan{claudeManaged: opts.ClaudeManaged, required: mode == guard.SandboxOn}
	if mode == guard.SandboxOff || SandboxedSession(env) {
		return p
	}
	why := ""
	if opts.Exact == nil {
		why = "guard cannot tell whether the exact sandbox runs here"
	} else if err := opts.Exact(); err != nil {
		why = "the exact sandbox cannot run here (" + err.Error() + ")"
	}
	if why == "" {
		if opts.ClientArgs != nil {
			p.clientArgs = opts.ClientArgs()
		}
		why = clientKeepsPrompts(env, call, p.clientArgs)
	}
	switch {
	case why == "":
		p.rewrite = true
	case mode == guard.SandboxOn:
		p.refuse = why
	default:
		p.strict = "guard sandbox cannot run it: " + why
	}
	return p
}

// apply turns the verdict about the original command into the answer.
func (p *sandboxPlan) apply(env *guard.Env, call *Call, subject *guard.Subject, v *Verdict) *Verdict {
	switch {
	case p.rewrite:
		return sandboxVerdict(env, call, subject, v, sandboxOptions{ClaudeManaged: p.claudeManaged, ClientArgs: p.clientArgs, Required: p.required})
	case p.refuse != "" && v.Decision != Deny:
		return &Verdict{Decision: Deny, Warnings: v.Warnings, Reason: fmt.Sprintf(
			"guard: [agent] sandbox = true, but this command cannot run under guard sandbox: %s; guard does not run it unsandboxed (fail closed).\n"+
				"  what now: start the whole session sandboxed, `guard sandbox -- %s` (every command it runs is then confined), or set [agent] sandbox = \"auto\" in %s.",
			p.refuse, call.Agent, configName(subject))}
	}
	return v
}

// sandboxVerdict rewrites the command of a call the hook lets through to run under
// guard sandbox, with the decision each client needs to keep its prompts.
func sandboxVerdict(env *guard.Env, call *Call, subject *guard.Subject, v *Verdict, o sandboxOptions) *Verdict {
	if v.Decision == Deny {
		return v
	}
	exe := env.Executable
	// The identity the verdict was made for: the sandbox judges as the hook did.
	id := v.Identity
	shell := SandboxShell(env)
	if exe == "" || id.Owner == "" || id.Host == "" {
		return &Verdict{Decision: Deny, Warnings: v.Warnings, Reason: "guard: [agent] sandbox is on, but guard cannot tell its own binary or the agent's identity, so it cannot sandbox this command (fail closed)."}
	}
	if alreadySandboxed(call.Command, exe, id, shell) {
		return v
	}
	note := fmt.Sprintf("runs this command under guard sandbox as %s on host %s (the kernel keeps the areas locked against you read-only; the command inside is exactly the one proposed)", id.Owner, id.Host)
	rewrite := func() (json.RawMessage, *Verdict) {
		input, err := rewriteInput(call.Input, sandboxPrefix(exe, id, shell), call.Command)
		if err != nil {
			return nil, &Verdict{Decision: Deny, Warnings: v.Warnings, Reason: fmt.Sprintf("guard: [agent] sandbox is on, but guard cannot rewrite this command: %v (fail closed).", err)}
		}
		return input, nil
	}
	if call.Agent != Claude {
		// planSandbox found that the client asks nothing of shell commands here: the
		// verdict is guard's own.
		input, refused := rewrite()
		if refused != nil {
			return refused
		}
		out := &Verdict{Decision: v.Decision, Reason: v.Reason, Warnings: v.Warnings, Claimed: v.Claimed, UpdatedInput: input}
		switch {
		case v.Decision == Ask:
			out.Reason = v.Reason + "\n  (guard " + note + ".)"
		case call.Agent == Codex:
			// Codex applies a rewrite only with allow.
			out.Decision, out.AgentRules, out.Reason = Allow, true, "guard: "+note+"; Codex asks for no approval in this session."
		}
		return out
	}
	ans := ClaudeAnswer{Decision: Ask, Rule: true}
	rules, err := LoadClaudeRules(ClaudeSettingsFiles(env, call.Cwd, o.ClaudeManaged))
	if err == nil {
		err = rules.AddCommandLine(clientArgv(o.ClientArgs, "claude"))
	}
	if err != nil {
		ans.Why = fmt.Sprintf("guard cannot read Claude Code's permission rules (%v)", err)
	} else {
		ans = rules.JudgeBash(call.Command, call.Cwd, call.PermissionMode, v.segments)
	}
	if ans.Decision == Deny {
		return &Verdict{Decision: Deny, Warnings: v.Warnings, AgentRules: true, Reason: fmt.Sprintf(
			"guard: %s.\n  (guard judges the command as proposed before running it under guard sandbox, where that rule would no longer match it.)", ans.Why)}
	}
	if v.Decision == None && ans.Decision == Ask && !ans.Rule && v.whole && !o.Required {
		// Under "auto": no rule of Claude Code's names the command, and guard read all of it:
		// Claude Code's own judgement (which runs read-only commands such as ls
		// without asking) decides, as without the sandbox. A rewrite would add a
		// prompt, and the kernel nothing guard did not check already.
		return v
	}
	input, refused := rewrite()
	if refused != nil {
		return refused
	}
	out := &Verdict{Warnings: v.Warnings, Claimed: v.Claimed, UpdatedInput: input}
	switch {
	case v.Decision == Ask:
		out.Decision, out.Reason = Ask, v.Reason+"\n  (guard "+note+".)"
	case ans.Decision == Allow:
		out.Decision, out.AgentRules, out.Reason = Allow, true, "guard: "+note+"; "+ans.Why+"."
	default:
		out.Decision, out.AgentRules = Ask, true
		out.Reason = "guard: " + note + ". Claude Code would ask before running it (" + ans.Why + "), so approve it here."
	}
	return out
}

// configName names the .guard.toml that governs the call, for messages.
func configName(s *guard.Subject) string {
	if s != nil && s.Config != nil && s.Config.Path != "" {
		return s.Config.Path
	}
	return guard.ConfigFileName
}
