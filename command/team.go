package command

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/lockcore"
)

// TeamOptions are the inputs of `guard team checkin|checkout|claim|release|show|message`.
type TeamOptions struct {
	Env *guard.Env
	// Action is checkin, checkout, claim, release, show or message.
	Action string
	// Dir is the directory that holds the team lock (default: the working directory).
	Dir string
	// LockName names the team lock file; without it the single team lock of this
	// host in Dir is used.
	LockName string
	// Agent is the acting agent (default: the resolved owner identity); Owner and Host
	// feed that identity, Host also picks the lock.
	Agent, Owner, Host string
	// Resources are file or folder claims relative to Dir; Tools are tool ids.
	Resources, Tools []string
	Queue            bool
	Role, Task       string
	LoopID           string
	Msg              string
	JSON             bool
}

// TeamResultJSON is the --json answer of the changing team commands.
type TeamResultJSON struct {
	OK       bool     `json:"ok"`
	Action   string   `json:"action"`
	Path     string   `json:"path"`
	Agent    string   `json:"agent"`
	Changed  bool     `json:"changed"`
	Deleted  bool     `json:"deleted"`
	Waiting  bool     `json:"waiting"`
	Promoted []string `json:"promoted"`
	Message  string   `json:"message"`
}

// TeamShowJSON is the --json answer of guard team show.
type TeamShowJSON struct {
	Path       string             `json:"path"`
	Host       string             `json:"host"`
	Owner      string             `json:"owner"`
	Header     map[string]string  `json:"header"`
	Sectioned  bool               `json:"sectioned"`
	Presence   []TeamPresenceJSON `json:"presence"`
	FileClaims []TeamBundleJSON   `json:"file_claims"`
	ToolClaims []TeamBundleJSON   `json:"tool_claims"`
	Messages   []TeamMessageJSON  `json:"messages"`
	Guard      string             `json:"guard_file"`
}

// TeamPresenceJSON is one presence entry.
type TeamPresenceJSON struct {
	LoopID string `json:"loop_id"`
	Agent  string `json:"agent"`
	Role   string `json:"role"`
	Task   string `json:"task"`
	Start  string `json:"start"`
}

// TeamBundleJSON is one claim bundle.
type TeamBundleJSON struct {
	Agent     string   `json:"agent"`
	State     string   `json:"state"`
	Order     int      `json:"order"`
	Resources []string `json:"resources"`
}

// TeamMessageJSON is one message line.
type TeamMessageJSON struct {
	Time  string `json:"time"`
	Agent string `json:"agent"`
	Text  string `json:"text"`
}

// RunTeam reads or edits a team lock. Exit 0: done (including idempotent no-ops);
// 1: a conflict, a missing team lock, or a file that cannot be read unambiguously
// (nothing was written); 2: bad input or a guard file that stayed locked.
func RunTeam(o TeamOptions) error {
	env := o.Env
	dir := absUnder(env.Dir, o.Dir)
	subject, err := guard.ResolveSubject(env, dir, guard.Identity{Owner: o.Owner, Host: o.Host})
	if err != nil {
		return guard.Fail(guard.BadInput, "team: %w", err)
	}
	id := subject.Identity
	// Bad input is answered (2) before looking for the lock, as the reference's
	// argument parser does: a missing team lock (1) must not hide a usage error.
	var op lockcore.TeamOp
	if o.Action != "show" {
		if op, err = teamOp(o, id); err != nil {
			return err
		}
	}
	path, err := findTeamLock(dir, o.LockName, id.Host)
	if err != nil {
		return err
	}
	if o.Action == "show" {
		return showTeam(env, path, o.JSON)
	}
	res, err := lockcore.UpdateTeamLock(path, env.Clock.Now(), op, lockcore.TeamUpdateOptions{})
	out := TeamResultJSON{OK: err == nil, Action: o.Action, Path: path, Agent: op.Agent, Changed: res.Changed,
		Deleted: res.Deleted, Waiting: res.Waiting, Promoted: res.Promoted, Message: res.Message}
	if out.Promoted == nil {
		out.Promoted = []string{}
	}
	what := teamOutcome(err)
	if err != nil {
		out.Message = err.Error()
	}
	if o.JSON && (err == nil || what != guard.BadInput) {
		if jerr := writeJSON(env.Stdout, out); jerr != nil {
			return jerr
		}
	}
	if err != nil {
		return guard.Fail(what, "team %s: %w", o.Action, err)
	}
	if !o.JSON {
		fmt.Fprintf(env.Stdout, "%s: %s\n", path, res.Message)
	}
	return nil
}

// teamOutcome is what an update error was: a conflict with the team's state, a team
// lock that is not one, a team lock gone, or bad input.
func teamOutcome(err error) guard.Outcome {
	var ce *lockcore.TeamConflictError
	var fe *lockcore.TeamFormatError
	switch {
	case errors.As(err, &ce):
		return guard.Conflict
	case errors.As(err, &fe):
		return guard.Refused
	case errors.Is(err, lockcore.ErrTeamLockMissing):
		return guard.NotFound
	}
	return guard.BadInput
}

// teamOp turns the flags into one lockcore operation.
func teamOp(o TeamOptions, id guard.Identity) (lockcore.TeamOp, error) {
	op := lockcore.TeamOp{Agent: o.Agent}
	if op.Agent == "" {
		op.Agent = id.Owner
	}
	usage := func(format string, args ...any) (lockcore.TeamOp, error) {
		return op, guard.Fail(guard.BadInput, "team %s: "+format, append([]any{o.Action}, args...)...)
	}
	switch o.Action {
	case "checkin":
		if o.Role == "" || o.Task == "" {
			return usage("--role and --task are required")
		}
		op.Action, op.Role, op.Task, op.LoopID = lockcore.TeamCheckin, o.Role, o.Task, o.LoopID
	case "checkout":
		op.Action = lockcore.TeamCheckout
	case "claim", "release":
		op.Action = lockcore.TeamClaim
		if o.Action == "release" {
			op.Action = lockcore.TeamRelease
			if o.Queue {
				return usage("--queue applies to claims only")
			}
		}
		switch {
		case len(o.Resources) > 0 && len(o.Tools) > 0:
			return usage("give --resource or --tool, not both (a bundle lives in one section)")
		case len(o.Resources) > 0:
			op.Section, op.Resources = lockcore.SectionFileClaims, o.Resources
		case len(o.Tools) > 0:
			op.Section, op.Resources = lockcore.SectionToolClaims, o.Tools
		default:
			return usage("name at least one --resource or --tool")
		}
		op.Queue = o.Queue
	case "message":
		if o.Msg == "" {
			return usage("--msg is required")
		}
		op.Action, op.Text = lockcore.TeamPostMessage, o.Msg
	default:
		return usage("unknown action")
	}
	return op, nil
}

// findTeamLock returns the team lock to work on: --lock-name in dir (spelled as on
// disk: names match ignoring case), or the single team lock of host in dir.
func findTeamLock(dir, name, host string) (string, error) {
	if name != "" {
		if filepath.Base(name) != name || !lockcore.IsTeamLockName(name) {
			return "", guard.Fail(guard.BadInput, "team: --lock-name %q is not a team lock name (LOCK.team[.<scope>].<host>.txt, in DIR)", name)
		}
		return lockcore.ExistingLockPath(filepath.Join(dir, name)), nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", guard.Fail(guard.Refused, "team: %w", err)
	}
	var found []string
	for _, e := range entries {
		if lockcore.IsTeamLockName(e.Name()) && strings.EqualFold(lockcore.TeamLockHost(e.Name()), host) && e.Type().IsRegular() {
			found = append(found, e.Name())
		}
	}
	switch len(found) {
	case 0:
		return "", guard.Fail(guard.NotFound, "team: no team lock of host %s in %s; create one with guard lock %s --team %s, or name it with --lock-name", host, dir, dir, host)
	case 1:
		return filepath.Join(dir, found[0]), nil
	}
	sort.Strings(found)
	return "", guard.Fail(guard.BadInput, "team: several team locks of host %s in %s (%s); choose one with --lock-name", host, dir, strings.Join(found, ", "))
}

func showTeam(env *guard.Env, path string, asJSON bool) error {
	tl, err := lockcore.ReadTeamLock(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return guard.Fail(guard.NotFound, "team show: %s: %w", path, lockcore.ErrTeamLockMissing)
		}
		return guard.Fail(guard.Refused, "team show: %w", err)
	}
	j := TeamShowJSON{Path: path, Host: lockcore.TeamLockHost(filepath.Base(path)), Owner: tl.Header["owner"],
		Header: tl.Header, Sectioned: !tl.Migrated, Guard: path + ".guard",
		Presence: []TeamPresenceJSON{}, FileClaims: bundlesJSON(tl.FileClaims), ToolClaims: bundlesJSON(tl.ToolClaims),
		Messages: []TeamMessageJSON{}}
	for _, p := range tl.Presence {
		j.Presence = append(j.Presence, TeamPresenceJSON{LoopID: p.LoopID, Agent: p.Agent, Role: p.Role, Task: p.Task, Start: p.Start})
	}
	for _, m := range tl.Messages {
		j.Messages = append(j.Messages, TeamMessageJSON{Time: m.Time, Agent: m.Agent, Text: m.Text})
	}
	if asJSON {
		return writeJSON(env.Stdout, j)
	}
	w := env.Stdout
	fmt.Fprintf(w, "team lock %s (host %s, owner %s)\n", path, j.Host, orDash(j.Owner))
	if tl.Migrated {
		fmt.Fprintln(w, "  (no section markers yet: the next change adds the four sections)")
	}
	fmt.Fprintln(w, "presence:")
	for _, p := range j.Presence {
		fmt.Fprintf(w, "  [%s] %s  role: %s  task: %s  since %s\n", p.LoopID, p.Agent, p.Role, p.Task, p.Start)
	}
	for _, sec := range []struct {
		title string
		list  []TeamBundleJSON
	}{{"file claims:", j.FileClaims}, {"tool claims:", j.ToolClaims}} {
		fmt.Fprintln(w, sec.title)
		for _, b := range sec.list {
			fmt.Fprintf(w, "  %s %s order=%06d: %s\n", b.Agent, b.State, b.Order, strings.Join(b.Resources, ", "))
		}
	}
	fmt.Fprintln(w, "messages:")
	for _, m := range tl.Messages {
		fmt.Fprintf(w, "  %s\n", m.Raw)
	}
	return nil
}

func bundlesJSON(bs []lockcore.Bundle) []TeamBundleJSON {
	out := []TeamBundleJSON{}
	for _, b := range bs {
		out = append(out, TeamBundleJSON{Agent: b.Agent, State: b.State, Order: b.Order, Resources: b.Resources})
	}
	return out
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
