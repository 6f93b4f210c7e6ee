package command

import (
	"fmt"
	"os"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/lockcore"
)

// PermissionsOptions are the inputs of `guard permissions [DIR] --agent A ACTION`.
type PermissionsOptions struct {
	Env *guard.Env
	// Dir is where the action happens (default: the working directory): its
	// permissions file and those above it apply.
	Dir string
	// Agent is who wants to act (default: the resolved owner identity).
	Agent string
	// Action is the tool call, e.g. `Bash(rm -rf build)` or `mcp__github__delete_repo`.
	Action string
	JSON   bool
}

// PermissionsJSON is the --json answer of guard permissions.
type PermissionsJSON struct {
	Decision lockcore.Decision `json:"decision"`
	// OK is the verdict key every command's JSON shares: true exactly when the
	// answer is allow (exit 0).
	OK     bool   `json:"ok"`
	Agent  string `json:"agent"`
	Action string `json:"action"`
	// File is the permissions file read (null when the directory has none).
	File *string `json:"file"`
	// Rule is the rule that decided (null when the default did).
	Rule *string `json:"rule"`
	// List is deny, ask, allow or default.
	List          string `json:"list"`
	AgentExcluded bool   `json:"agent_excluded"`
}

// RunPermissions evaluates the LOCK.permissions.json (or LOCK.permissions.txt) files
// of the directory and of every directory above it for Agent doing Action, as the
// agent hook does (guard.PermissionsChain: the strictest answer wins). It prints allow, deny or ask as the
// first stdout line and why on stderr; the exit code is 0 for allow, 1 for deny, 4 for
// ask, and 2 for an unreadable or invalid permissions file. A directory without one
// allows (the format's default).
func RunPermissions(o PermissionsOptions) error {
	env := o.Env
	if o.Action == "" {
		return guard.Fail(guard.BadInput, "permissions: name the ACTION to evaluate, e.g. 'Bash(rm -rf build)'")
	}
	dir := absUnder(env.Dir, o.Dir)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		// A mistyped DIR must not read as "no permissions file, allow".
		return guard.Fail(guard.BadInput, "permissions: %s is not a directory", dir)
	}
	agent := o.Agent
	if agent == "" {
		subject, err := guard.ResolveSubject(env, dir, guard.Identity{})
		if err != nil {
			return guard.Fail(guard.BadInput, "permissions: %w", err)
		}
		agent = subject.Identity.Owner
	}
	// The chain the agent hook applies: every permissions file from DIR up to /,
	// the strictest answer wins.
	v, found, err := guard.NewPermissionsChain().Check(agent, guard.PermRequest{Dir: dir, Actions: []string{o.Action}})
	if err != nil {
		return guard.Fail(guard.BadInput, "permissions: %w", err)
	}
	ans := PermissionsJSON{Agent: agent, Action: o.Action}
	var why string
	if !found {
		ans.Decision, ans.List = lockcore.Allow, "default"
		why = fmt.Sprintf("no LOCK.permissions.json or LOCK.permissions.txt in %s or any directory above it: default allow", dir)
	} else {
		path := v.File
		ans.File = &path
		ans.Decision, ans.List, ans.AgentExcluded = v.Decision, v.List, v.AgentExcluded
		switch {
		case v.Rule != "":
			rule := v.Rule
			ans.Rule = &rule
			why = fmt.Sprintf("%s: rule %q in the %s list of %s", v.Decision, v.Rule, v.List, path)
		case v.AgentExcluded:
			why = fmt.Sprintf("%s: %s does not apply to agent %q (applies_to_agents), so its default decides", v.Decision, path, agent)
		default:
			why = fmt.Sprintf("%s: no rule of %s matches, so its default decides", v.Decision, path)
		}
		why += " (the strictest answer of the permissions files in " + dir + " and above it)"
	}
	ans.OK = ans.Decision == lockcore.Allow
	if o.JSON {
		if err := writeJSON(env.Stdout, ans); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(env.Stdout, ans.Decision)
	}
	fmt.Fprintf(env.Stderr, "guard permissions: %s\n", why)
	switch ans.Decision {
	case lockcore.Deny:
		return guard.Explained(guard.Refused)
	case lockcore.Ask:
		return guard.Explained(guard.Ask)
	}
	return nil
}
