package agent

import (
	"fmt"
	"github.com/guardlocks/guard/internal/lazyre"
	"path/filepath"
	"strings"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/cmdline"
	"github.com/guardlocks/guard/lockcore"
)

// guardTools is guard itself.
var guardTools = []tool{
	{[]string{"guard"}, func(c *command, _ string, args []shellWord) { c.guardProgram(args) }},
}

// guard's own commands, run by an agent in its shell, are judged like any other
// program (CONTRACT.md section 4): an agent claims, renews and releases its own locks,
// but it does not force another's lock away, act under another identity, take guard's
// hooks out or undo a lockdown someone else made. What guard runs under `guard run`
// and `guard sandbox` is read as the command it is.

// GuardCall is one `guard ...` command found in a shell command line.
type GuardCall struct {
	// Text is the command as found (wrappers removed), for messages.
	Text string
	// Cwd is the folder it runs in ("" when it cannot be located).
	Cwd string
	// Sub is the subcommand ("" for none).
	Sub string
	// Force, Undo, Commit, Resource and Team say which of those options it has.
	Force, Undo, Commit, Resource, Team bool
	// Owner is the --owner value when OwnerSet; OwnerDynamic when it is only known
	// when the command runs.
	Owner                  string
	OwnerSet, OwnerDynamic bool
	// Dir is the folder the DIR operand (lock, run) names, absolute; the call's
	// folder without one; "" when it cannot be located (a word only known when it
	// runs).
	Dir string
	// Allows are the --allow (sandbox) and --sandbox-allow (run) paths, absolute
	// ("" for one that cannot be located).
	Allows []string
	// EnvReset is set when a wrapper before guard clears or replaces the environment
	// (env -i, sudo, su ...): GUARD_OWNER no longer reaches it.
	EnvReset bool
}

// guardValueFlags are the options of guard's subcommands that take a value (the
// next word when not glued with "=").
var guardValueFlags = setOf("expires", "host", "mode", "operations", "owner", "purpose",
	"quarantine", "release-condition", "resource", "scope", "team", "until", "wait", "grace",
	"sandbox-allow", "allow", "token", "roots-file", "reason", "agent", "lock-name",
	"session", "hook", "config")

// guardReadOnly are guard's subcommands that change no lock, hook or setting.
var guardReadOnly = setOf("", "status", "check", "scan", "history", "version", "doctor",
	"help", "completion", "ci", "hook", "permissions", "preflight", "audit", "watch")

// guardLocking are the subcommands that only write lock files (judged in
// guardCall) or run a command read here.
var guardLocking = setOf("lock", "unlock", "renew", "run", "sandbox", "lockdown", "agent-release", "uninstall", "agent-uninstall")

// guardProgram reads a guard command line; what guard runs (run, sandbox) is read as
// a command of its own.
func (c *command) guardProgram(args []shellWord) {
	g := GuardCall{Text: c.text, Cwd: c.cwd, Dir: c.cwd, EnvReset: envResetBefore(c.full)}
	dirSet := false
	var rest []shellWord
	for i := 0; i < len(args); i++ {
		t := args[i].Text
		switch {
		case t == "--":
			rest = args[i+1:]
			i = len(args)
			continue
		case t == "-h" || t == "--help" || t == "-v" || t == "--version":
			g.Sub = "help"
			continue
		case strings.HasPrefix(t, "--"):
			name, value, glued := strings.Cut(t[2:], "=")
			var w shellWord
			if guardValueFlags[name] {
				switch {
				case glued:
					w = trimWord(args[i], len(name)+3, value)
				case i+1 < len(args):
					i++
					w = args[i]
				}
			}
			switch name {
			case "force":
				g.Force = true
			case "undo":
				g.Undo = true
			case "commit":
				g.Commit = true
			case "resource":
				g.Resource = true
			case "team":
				g.Team = true
			case "owner":
				g.Owner, g.OwnerSet, g.OwnerDynamic = w.Text, true, w.Dynamic
			case "allow", "sandbox-allow":
				g.Allows = append(g.Allows, c.guardPath(w))
			}
			continue
		case strings.HasPrefix(t, "-") && t != "-":
			continue
		}
		if g.Sub == "" && i == 0 {
			g.Sub = t
			continue
		}
		if !dirSet {
			g.Dir, dirSet = c.guardPath(args[i]), true
		}
	}
	c.a.out.Guard = append(c.a.out.Guard, g)
	if !guardReadOnly[g.Sub] && !guardLocking[g.Sub] && g.Sub != "help" {
		// install, agent-install, team, serve, prune ...: what they write besides
		// lock files (hooks, settings) is not read here.
		c.a.unknown("guard cannot know what " + quoteCmd(c.text) + " writes")
	}
	if len(rest) > 0 && (g.Sub == "run" || g.Sub == "sandbox" || g.Sub == "publish") {
		sub := &command{a: c.a, stmt: c.stmt, cwd: c.cwd, depth: c.depth + 1, piped: c.piped}
		sub.run(rest)
		return
	}
}

// guardPath is the absolute path a word of a guard command names, "" when it is only
// known when the command runs.
func (c *command) guardPath(w shellWord) string {
	if w.Glob {
		return ""
	}
	p, _ := c.a.resolve(w, c.cwd)
	return p
}

// envResetBefore reports whether the wrappers in full (the command as written) clear
// or replace the environment before guard runs: env -i, env -, sudo, su, doas,
// runuser, pkexec. GUARD_OWNER then no longer reaches guard.
func envResetBefore(full string) bool {
	words := strings.Fields(full)
	env := false
	for _, w := range words {
		w = strings.Trim(w, `'"`)
		name := cmdline.Program(w)
		switch {
		case name == "guard":
			return false
		case name == "env":
			env = true
		case env && (w == "-i" || w == "-" || w == "--ignore-environment" || strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "--") && strings.Contains(w, "i")):
			return true
		case name == "sudo" || name == "su" || name == "doas" || name == "runuser" || name == "pkexec":
			return true
		}
	}
	return false
}

// guardOwnerRE finds GUARD_OWNER in a command line: an assignment (its value), an
// unset (-u GUARD_OWNER, unset GUARD_OWNER) or a read ($GUARD_OWNER).
var guardOwnerRE = lazyre.New(`(\$\{?)?GUARD_OWNER(=("[^"]*"|'[^']*'|[^\s;&|()<>]*))?`)

// ownerChange says how command sets GUARD_OWNER to something other than owner
// (another value, one only known when it runs, or no value at all), "" when it does
// not. Every mention counts: an assignment anywhere on the line (a prefix, env, export,
// inside sh -c) reaches the guard commands after it.
func ownerChange(command, owner string) string {
	for _, m := range guardOwnerRE.FindAllStringSubmatch(command, -1) {
		switch {
		case m[1] != "":
			// $GUARD_OWNER: a read.
		case m[2] == "":
			return "it unsets GUARD_OWNER"
		default:
			v := m[3]
			if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
				v = v[1 : len(v)-1]
			}
			if strings.ContainsAny(v, "$`\\") {
				return "it sets GUARD_OWNER to a value only known when it runs"
			}
			if v != owner {
				return fmt.Sprintf("it sets GUARD_OWNER=%s", v)
			}
		}
	}
	return ""
}

// guardCalls judges the guard commands of a shell call as the agent d.id.
func (d *decider) guardCalls(calls []GuardCall) {
	for _, g := range calls {
		if why := d.guardCall(g); why != "" {
			// The agent's identity and where it comes from; no hint at taking another
			// (the agent refusal text suggests neither forcing nor impersonating).
			from := "from GUARD_OWNER"
			switch d.who.from {
			case guard.FromSession:
				from = "your session id"
			case guard.FromUsual:
				from = "guard's usual identity here"
			}
			d.deny(fmt.Sprintf("guard: refused %s: %s.\n  (you are %s on host %s, %s)", quoteCmd(g.Text), why, d.id.Owner, d.id.Host, from))
		}
	}
}

// guardCall says why g is refused ("" when it is not).
func (d *decider) guardCall(g GuardCall) string {
	if guardReadOnly[g.Sub] || g.Sub == "help" {
		return ""
	}
	switch g.Sub {
	case "uninstall", "agent-uninstall":
		return "it removes guard's hooks, and an agent does not switch guard off; only a person does"
	}
	if g.OwnerSet {
		own := g.Owner == d.id.Owner
		if g.OwnerDynamic {
			// --owner "$GUARD_OWNER" is the agent's own identity when it has one.
			own = d.who.from == guard.FromGuardOwner && (g.Owner == "$GUARD_OWNER" || g.Owner == "${GUARD_OWNER}")
		}
		if !own {
			if g.OwnerDynamic {
				return "its --owner is only known when it runs, and an agent acts only as itself"
			}
			return fmt.Sprintf("--owner %s acts as someone other than this agent, and an agent acts only as itself", g.Owner)
		}
	}
	if why := ownerChange(d.call.Command, d.id.Owner); why != "" {
		return why + ", which makes guard act as someone other than this agent; an agent acts only as itself"
	}
	if g.EnvReset && !g.OwnerSet && d.who.from == guard.FromGuardOwner {
		return "a wrapper before it clears GUARD_OWNER, which makes guard act as someone other than this agent; an agent acts only as itself"
	}
	switch g.Sub {
	case "unlock":
		if g.Force {
			return "--force removes a lock whoever holds it, and an agent releases only its own locks"
		}
	case "lock", "run":
		if g.Force {
			if g.Resource || g.Team {
				return "--force replaces a lock whoever holds it, and guard cannot tell whose lock this one is"
			}
			if why := d.anotherLock(g.Dir); why != "" {
				return "--force would replace " + why + ", and an agent takes no one's lock away"
			}
		}
	case "lockdown":
		if g.Undo && g.Commit {
			return d.lockdownOwner()
		}
	}
	for _, p := range g.Allows {
		if why := d.anotherLock(p); why != "" {
			return "--allow would exempt " + why + " from the sandbox, and an agent does not exempt another's locked area"
		}
	}
	return ""
}

// anotherLock names the lock of someone else that covers dir or lies below it, ""
// when none does.
func (d *decider) anotherLock(dir string) string {
	if dir == "" {
		return "a lock in a folder only known when it runs"
	}
	subjects, err := d.subjects().Of([]string{dir}, guard.Identity{})
	if err != nil {
		return fmt.Sprintf("a lock guard cannot check (%v)", err)
	}
	for _, s := range subjects {
		s.Identity = d.who.in(s)
	}
	dec, err := guard.CheckSubjects(d.env, subjects, guard.Request{Ops: []string{OpEdit}, Descend: true})
	if err != nil {
		return fmt.Sprintf("a lock guard cannot check (%v)", err)
	}
	if dec.Allowed {
		return ""
	}
	for _, b := range dec.Blocking {
		if b.Lock != nil {
			return fmt.Sprintf("%s (held by %s)", b.Lock.Path, orUnknown(b.Lock.Owner))
		}
	}
	return "a lock over " + dir
}

// lockdownOwner says why undoing the recorded lockdown is refused: it is someone
// else's (the manifest names its owner); "" when it is the agent's own or there is
// none.
func (d *decider) lockdownOwner() string {
	dir, err := guard.StateDir(d.env)
	if err != nil {
		return fmt.Sprintf("guard cannot find whose lockdown it undoes (%v)", err)
	}
	path := filepath.Join(dir, "lockdown.json")
	m, err := lockcore.ReadLockdownManifest(path)
	if err != nil {
		return fmt.Sprintf("guard cannot read whose lockdown it undoes (%v)", err)
	}
	if len(m.Locks) == 0 || m.Owner == d.id.Owner {
		return ""
	}
	return fmt.Sprintf("it removes the locks of %s's lockdown (recorded in %s), and an agent undoes only its own", orUnknown(m.Owner), path)
}

func orUnknown(s string) string {
	if s == "" {
		return "an unknown owner"
	}
	return s
}
