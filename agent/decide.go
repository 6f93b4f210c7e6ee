package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/lockcore"
)

// Decision is the hook's answer.
type Decision string

// The answers. None lets the call through to the agent's own permission system.
// Allow is only ever said together with a rewrite (Verdict.UpdatedInput) that runs a
// command under guard sandbox, and only where the agent's own rules would have run
// the original without a prompt (sandbox.go).
const (
	None  Decision = ""
	Deny  Decision = "deny"
	Ask   Decision = "ask"
	Allow Decision = "allow"
)

// Verdict is the decision about one tool call, with the reason the agent is shown.
type Verdict struct {
	Decision Decision
	Reason   string
	// Warnings (soft locks, scope fallbacks, what could not be judged) go to stderr.
	Warnings []string
	// Claimed lists the lease locks this call created or renewed.
	Claimed []string
	// UpdatedInput replaces the tool's input (Claude Code's updatedInput): the Bash
	// command rewritten to run under guard sandbox. nil: the call runs as it came.
	UpdatedInput json.RawMessage
	// segments are the simple commands of a shell call as guard's reader found them
	// (for the agent's own rules, sandbox.go).
	segments []Segment
	// whole is set when guard read every part of a shell call: nothing it could not
	// read, no program whose writes it cannot know (sandbox.go).
	whole bool
	// AgentRules is set when the decision is the agent's own rules passed on with a
	// rewrite (sandbox.go), not guard's: only guard's own refusals are recorded in
	// the history.
	AgentRules bool
	// Identity is who the decision was made for (the agent in the call's working
	// directory, agentOf): the sandbox rewrite runs as it, the history records it.
	Identity guard.Identity
}

// DecideOptions are what the decision needs besides the call.
type DecideOptions struct {
	// Classify tells publication commands (nil: none is recognised).
	Classify ClassifyFunc
	// Claim makes a write into a free area claim it (see claim.go).
	Claim bool
	// Subject is the call's working directory resolved by guard (its repository,
	// .guard.toml and identity); nil: resolved here.
	Subject *guard.Subject
	// Strict applies [agent] strict to this call whatever .guard.toml says, and says
	// why (the sandbox's fallback where guard sandbox cannot run it, sandbox.go);
	// "" leaves it to .guard.toml.
	Strict string
}

// agentID is who the agent making a call is, decided once per call by guard's one
// answer (guard.AgentSource, guard.AgentIdentity): every judgement of the call (its
// writes, its guard commands, its claims, the sandbox rewrite, the history) asks it,
// so that an agent's own lock never refuses its own write.
type agentID struct {
	env     *guard.Env
	session string
	// from is guard.AgentSource's answer: FromGuardOwner, FromSession or FromUsual.
	from string
}

func agentOf(env *guard.Env, call *Call) agentID {
	return agentID{env: env, session: call.SessionID, from: guard.AgentSource(env, call.SessionID)}
}

// in is the agent's identity for the paths subject s governs: GUARD_OWNER, else its
// session id, else guard's usual owner there; the host is guard's usual host.
func (a agentID) in(s *guard.Subject) guard.Identity {
	return guard.AgentIdentity(a.env, a.session, s.Identity)
}

// Identity returns who the agent is for lock ownership: GUARD_OWNER, else its
// session id (else guard's usual owner, as the subject resolved it); the host is
// guard's usual host.
func Identity(env *guard.Env, call *Call, s *guard.Subject) guard.Identity {
	return agentOf(env, call).in(s)
}

// Decide is the one decision core of every agent hook: it asks the lock policy (the
// same one `guard check` uses) about the call's write targets and operations, the
// LOCK.permissions.json files about the action, and the publication markers about
// publishing commands. Locks and denials come first; allow rules never override a
// lock. What guard cannot judge gets no decision.
func Decide(env *guard.Env, call *Call, opts DecideOptions) (*Verdict, error) {
	subject := opts.Subject
	if subject == nil {
		var err error
		if subject, err = guard.ResolveSubject(env, call.Cwd, guard.Identity{}); err != nil {
			return &Verdict{Decision: Deny, Reason: fmt.Sprintf("guard: cannot read the configuration: %v (fail closed)", err)}, nil
		}
	}
	who := agentOf(env, call)
	d := &decider{
		env: env, call: call, opts: opts, cfg: subject.Config, subject: subject,
		who: who, id: who.in(subject),
		perms: guard.NewPermissionsChain(),
	}
	d.policy = guard.NewPolicy(env, d.id)
	// guard mcp in the same client reads this to claim as exactly this session.
	guard.RecordAgentSession(env, call.Agent, call.SessionID)
	d.run()
	v := d.verdict()
	v.Identity = d.id
	if v.Decision == None && opts.Claim && len(d.written) > 0 {
		v.Claimed = d.claim()
		v.Warnings = d.warnings
	}
	return v, nil
}

type decider struct {
	env  *guard.Env
	call *Call
	opts DecideOptions
	cfg  *guard.Config
	// subject is the call's working directory as guard resolved it.
	subject *guard.Subject
	// who is the agent; id its identity in the call's working directory.
	who    agentID
	id     guard.Identity
	policy *guard.Policy
	perms  *guard.PermissionsChain

	denies   []string
	asks     []string
	warnings []string
	// written are the paths the call writes, for claims.
	written []string
	// near caches nearLock's answer.
	near *string
	// segments are the shell call's simple commands, handed on in the verdict.
	segments []Segment
	// whole: guard read the whole shell call (Verdict.whole).
	whole bool
	// resolver keeps what resolving the call's paths read (a script's forty commands
	// mostly act in one or two folders).
	resolver *guard.Resolver
}

// subjects resolves paths for the decision, reading each folder once.
func (d *decider) subjects() *guard.Resolver {
	if d.resolver == nil {
		d.resolver = guard.NewResolver(d.env)
	}
	return d.resolver
}

func (d *decider) deny(s string) { d.denies = append(d.denies, s) }
func (d *decider) warn(s string) { d.warnings = append(d.warnings, s) }

func (d *decider) run() {
	c := d.call
	switch c.Kind {
	case KindWrite:
		tools := []string{c.Action}
		if c.Action != "Write" {
			tools = append(tools, "Write")
		}
		for _, p := range c.Paths {
			d.permission(guard.PermRequest{Dir: dirOf(p), Target: p, Tools: tools})
		}
		d.locks([]string{OpEdit}, c.Paths, false, c.Tool)
		d.controlFiles(c.Paths)
		d.written = append(d.written, c.Paths...)
	case KindRead:
		for _, p := range c.Paths {
			req := guard.PermRequest{Dir: dirOf(p), Target: p, Tools: []string{"Read"}}
			if c.Action != "Read" {
				// Glob and Grep: rules may name the tool with its pattern, or Read.
				req.Tools = []string{c.Action, "Read"}
			}
			d.permission(req)
			if c.Pattern != "" {
				d.permission(guard.PermRequest{Dir: dirOf(p), Actions: []string{c.Action + "(" + c.Pattern + ")"}, ExplicitOnly: true})
			}
		}
	case KindMCP:
		d.permission(guard.PermRequest{Dir: c.Cwd, Actions: []string{c.Tool}})
	case KindOther:
		d.permission(guard.PermRequest{Dir: c.Cwd, Actions: []string{c.Action}, ExplicitOnly: true})
	case KindShell:
		d.shell()
	}
}

// dirOf is the directory whose permissions and locks govern p: p itself when it is an
// existing folder, else its parent.
func dirOf(p string) string {
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		return p
	}
	return filepath.Dir(p)
}

// permission asks the LOCK.permissions.json chain (guard.PermissionsChain: every file
// from the target's folder up to /, strictest wins, as guard permissions asks it). An
// edit (Edit, MultiEdit, NotebookEdit, Gemini's replace) is also a Write: Write(...)
// rules apply to it as well as rules naming the tool itself.
func (d *decider) permission(req guard.PermRequest) {
	v, ok, err := d.perms.Check(d.call.Agent, req)
	if err != nil {
		d.deny(fmt.Sprintf("guard: %v; guard cannot tell what it allows, so it refuses (fail closed).", err))
		return
	}
	if !ok {
		return
	}
	switch v.Decision {
	case lockcore.Deny:
		d.deny("guard: refused by LOCK.permissions.json: " + v.String() + ".\n  what now: do something else, or ask the owner of that file to change its rules.")
	case lockcore.Ask:
		d.asks = append(d.asks, "guard: LOCK.permissions.json asks for a person's approval: "+v.String()+".")
	}
}

// locks asks the policy about ops on paths and records its refusal.
func (d *decider) locks(ops, paths []string, descend bool, what string) {
	if len(paths) == 0 {
		return
	}
	// Each path is judged under the configuration of the repository holding it (its
	// host, and its owner when the agent has no session id), as guard check judges it.
	subjects, err := d.subjects().Of(paths, guard.Identity{})
	if err != nil {
		d.deny(fmt.Sprintf("guard: cannot check %s: %v; fix it to continue (fail closed)", what, err))
		return
	}
	for _, s := range subjects {
		s.Identity = d.who.in(s)
	}
	// A client that times the hook out may run the command unjudged, so a walk below
	// the command's folders (rm -rf /*) is bounded as the near-lock search is.
	req := guard.Request{Ops: ops, Descend: descend, MaxBelow: maxNearDirs, BelowUntil: d.env.Clock.Now().Add(nearLockLimit)}
	dec, err := guard.CheckSubjects(d.env, subjects, req)
	if err != nil {
		d.deny(fmt.Sprintf("guard: cannot check %s: %v (fail closed)", what, err))
		return
	}
	d.warnings = append(d.warnings, dec.Warnings...) // shown separately, on stderr
	if dec.Allowed {
		return
	}
	d.deny(refusal(dec) + fmt.Sprintf("\n  (you are %s on host %s; %s)", d.id.Owner, d.id.Host, d.who.note(d.id.Owner)))
}

// refusal is a decision's refusal explained for an agent (guard.AgentWayOut: wait,
// work elsewhere, or ask the person; never force), without its warnings, which the
// hook shows separately, on stderr.
func refusal(dec interface {
	ExplainRefusalWith(io.Writer, func(*lockcore.Lock) string)
}) string {
	var b bytes.Buffer
	dec.ExplainRefusalWith(&b, guard.AgentWayOut)
	return strings.TrimRight(b.String(), "\n")
}

// note says where the agent's identity comes from, so that it knows which locks are
// its own: a lock it claims through guard's MCP tools (or its earlier writes) is
// owned by this same identity and never stops it. An agent known only by its session
// is told to name it to guard lock in a shell: there guard cannot see the session,
// and a lock taken as guard's usual identity would refuse the agent's own writes.
func (a agentID) note(owner string) string {
	switch a.from {
	case guard.FromGuardOwner:
		return "from GUARD_OWNER; locks you claim through guard's MCP tools are yours"
	case guard.FromSession:
		return "your session id; locks you claim through guard's MCP tools are yours; from a shell, give guard lock `--owner " + owner + "` so that the lock is yours"
	}
	return "guard's usual identity here (no session id came with the call); locks you claim through guard's MCP tools are yours"
}

// shell judges a command line by its obvious effects.
func (d *decider) shell() {
	c := d.call
	a := analyzeBash(c.Command, c.Cwd, shellEnv{home: d.env.Env("HOME"), tmp: d.env.Env("TMPDIR"), cdpath: d.env.Env("CDPATH")}, d.opts.Classify)
	d.segments = a.Segments
	d.whole = len(a.Unjudged) == 0 && len(a.Unknown) == 0
	d.unreadable(a)
	d.guardCalls(a.Guard)
	for _, seg := range a.Segments {
		dir := seg.Dir
		if dir == "" {
			dir = c.Cwd
		}
		// Rules see the command both as written (Bash(sudo:*)) and without its
		// wrappers (Bash(rm:*) for `sudo rm x`).
		actions := []string{"Bash(" + seg.Text + ")"}
		if seg.Full != seg.Text {
			actions = append(actions, "Bash("+seg.Full+")")
		}
		d.permission(guard.PermRequest{Dir: dir, Actions: actions})
	}
	// Edits, grouped by whether they reach into folders (rm -r, mv, git checkout).
	var edits, deep []string
	byOp := map[string][]Effect{}
	var opOrder []string
	for _, e := range a.Effects {
		switch {
		case e.Op == OpEdit && e.Descend:
			deep = appendNew(deep, e.Path)
			// Through a link the operation reaches the folder it points at
			// (rm -rf plink/, find plink/ -delete): its locks count too.
			if real, err := filepath.EvalSymlinks(e.Path); err == nil && real != e.Path {
				deep = appendNew(deep, real)
			}
		case e.Op == OpEdit:
			edits = appendNew(edits, e.Path)
		default:
			if _, ok := byOp[e.Op]; !ok {
				opOrder = append(opOrder, e.Op)
			}
			byOp[e.Op] = append(byOp[e.Op], e)
		}
	}
	for _, p := range append(append([]string{}, edits...), deep...) {
		d.permission(guard.PermRequest{Dir: dirOf(p), Target: p, Tools: []string{"Write"}, ExplicitOnly: true})
	}
	d.locks([]string{OpEdit}, edits, false, "the command's write targets")
	d.locks([]string{OpEdit}, deep, true, "the command's write targets")
	d.controlFiles(edits)
	d.controlFiles(deep)
	d.written = append(append(d.written, edits...), deep...)
	for _, op := range opOrder {
		var paths []string
		for _, e := range byOp[op] {
			switch {
			case e.Publication && e.DryRun:
				// A rehearsal publishes nothing.
			case e.Publication:
				d.publication(e)
			default:
				paths = appendNew(paths, e.Path)
				if e.SkipsHooks {
					paths = append(paths, d.hookless(e)...)
				}
			}
		}
		d.locks([]string{op}, paths, false, op)
	}
}

// unreadable applies CONTRACT.md section 4's rule for what guard cannot read: near a
// lock that would refuse the agent it asks; elsewhere it warns. Code guard cannot
// know the writes of is asked about near such a lock only under [agent] strict.
func (d *decider) unreadable(a *BashAnalysis) {
	if len(a.Unjudged) > 0 {
		if lock := d.nearLock(); lock != "" {
			d.asks = append(d.asks, fmt.Sprintf("guard: cannot judge this command: %s.\n  %s lies in its working tree, and guard does not let a command it cannot read run unseen near a lock (fail closed).\n  what now: approve it only if it stays out of that area; or run its parts as plain commands guard can read (literal paths, no eval, no generated targets).",
				strings.Join(a.Unjudged, "; "), lock))
		} else {
			for _, s := range a.Unjudged {
				d.warn("not judged: " + s)
			}
		}
	}
	if len(a.Unknown) == 0 {
		return
	}
	if d.cfg.Agent.Strict || d.opts.Strict != "" {
		why := "[agent] strict is set in .guard.toml"
		if !d.cfg.Agent.Strict {
			why = d.opts.Strict
		}
		if lock := d.nearLock(); lock != "" {
			d.asks = append(d.asks, fmt.Sprintf("guard: cannot know what this command writes: %s.\n  %s lies in its working tree and %s, so guard asks first.\n  what now: approve it if it stays out of that area.",
				strings.Join(a.Unknown, "; "), lock, why))
			return
		}
	}
	for _, s := range a.Unknown {
		d.warn("not judged: " + s)
	}
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

func (d *decider) verdict() *Verdict {
	v := &Verdict{Warnings: d.warnings, segments: d.segments, whole: d.whole}
	switch {
	case len(d.denies) > 0:
		v.Decision, v.Reason = Deny, strings.Join(dedupe(d.denies), "\n\n")
	case len(d.asks) > 0:
		v.Decision, v.Reason = Ask, strings.Join(dedupe(d.asks), "\n")
	}
	return v
}

func dedupe(list []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// controlFiles asks before an agent writes guard's own control files (permissions
// files, the agents' hook settings) or a publication marker: LOCK-SYSTEM.md lets only
// the user (or someone with the user's documented approval) create PUBLIC.txt, and only
// the user remove an empty PRIVATE.txt; an agent may remove one whose conditions are
// met, with evidence, which is for a person to confirm.
func (d *decider) controlFiles(paths []string) {
	for _, p := range paths {
		if what := guardControl(p); what != "" {
			d.asks = append(d.asks, fmt.Sprintf("guard: %s is %s; an agent changes it only with the user's approval.", p, what))
			continue
		}
		// Any case: on a case-insensitive file system public.txt is PUBLIC.txt.
		switch base := filepath.Base(p); {
		case strings.EqualFold(base, guard.PublicMarkerName):
			d.asks = append(d.asks, fmt.Sprintf("guard: %s approves publishing this project; only the user, or someone with the user's documented approval, writes it (LOCK-SYSTEM.md).", p))
		case strings.EqualFold(base, guard.PrivateMarkerName):
			d.asks = append(d.asks, fmt.Sprintf("guard: %s keeps this project from being published; changing or removing it needs the user's approval (LOCK-SYSTEM.md: an empty one only the user removes; one with conditions only once they are provably met).", p))
		}
	}
}

// guardControl says what p is when it is one of guard's control files other than a
// publication marker (those get their own asks, above): guard.ControlFile's one list,
// which the sandbox keeps read-only too, and the folders of the agents' settings
// (removing or moving one takes the settings along). "" otherwise. An agent that
// rewrote them could switch its own guardrail off (a [scopes] entry pointed
// elsewhere frees the folder a scoped lock holds).
func guardControl(p string) string {
	if guard.IsMarkerName(filepath.Base(p)) {
		return ""
	}
	if what := guard.ControlFile(p); what != "" {
		return what
	}
	if guard.IsAgentSettingsDir(p) {
		return "the folder of an agent's settings (they run guard's hook)"
	}
	return ""
}

// publication applies the publication decision (PRIVATE.txt, PUBLIC.txt and the locks
// that block the operation in, above or inside the project) to a publishing command.
// PUBLIC.txt checks are not run here: a hook must be quick and harmless; `guard
// publish` runs them.
func (d *decider) publication(e Effect) {
	project, err := d.subjects().Resolve(e.Path, guard.Identity{})
	if err != nil {
		d.deny(fmt.Sprintf("guard: cannot judge %s of %s: %v (fail closed)", e.Op, e.Path, err))
		return
	}
	dec, err := guard.CheckPublication(guard.NewPolicy(d.env, d.who.in(project)), e.Path, e.Op, project.Config)
	if err != nil {
		d.deny(fmt.Sprintf("guard: cannot judge %s of %s: %v (fail closed)", e.Op, e.Path, err))
		return
	}
	d.warnings = append(d.warnings, dec.Warnings...) // shown separately, on stderr
	if dec.Allowed {
		return
	}
	d.deny(fmt.Sprintf("guard: %s is a publication (%s):\n%s", quoteCmd(e.Command), e.Op, refusal(dec)))
}
