package guard

import (
	"errors"
	"fmt"
	"path/filepath"
	"syscall"

	"github.com/guardlocks/guard/lockcore"
)

// How LOCK.permissions.json files apply (the one chain guard permissions and the agent
// hooks share; lockcore parses and evaluates one file):
//
//   - Every permissions file in the directory asked about and in each directory above
//     it (to the file-system root, as for locks) is evaluated on its own; the
//     strictest answer wins (deny > ask > allow). A folder's file can tighten what a
//     file above it allows, never loosen what one above denies.
//   - A path is offered to a file's rules in two spellings: relative to the file's
//     directory (`src/a.go`) and absolute (`/repo/src/a.go`), so that both
//     `Write(src/**)` and `Write(**/CREDENTIALS/**)` can match. A rule that matches
//     either spelling decides (the stricter when both match different rules); the
//     file's default answers only when no rule matches any spelling.
//   - An unreadable or invalid file anywhere in the chain is an error: nobody can tell
//     what it allows (fail closed).

// PermVerdict is the answer of the permissions chain.
type PermVerdict struct {
	Decision lockcore.Decision
	// File is the permissions file that decided.
	File string
	// Rule is the matching rule ("" when the file's default answered); List its list
	// (deny, ask, allow, or default).
	Rule string
	List string
	// AgentExcluded: the file does not apply to the agent (applies_to_agents), so its
	// default answered.
	AgentExcluded bool
	// Action is the action spelling that matched.
	Action string
}

func (v PermVerdict) String() string {
	if v.Rule == "" {
		return fmt.Sprintf("%s answers %s by default for %s", v.File, v.Decision, v.Action)
	}
	return fmt.Sprintf("%s answers %s for %s (rule %q)", v.File, v.Decision, v.Action, v.Rule)
}

func severity(d lockcore.Decision) int {
	switch d {
	case lockcore.Deny:
		return 3
	case lockcore.Ask:
		return 2
	case lockcore.Allow:
		return 1
	}
	return 0
}

// PermFile is one loaded permissions file.
type PermFile struct {
	Dir   string
	Path  string
	Perms *lockcore.Permissions
}

// PermissionsChain loads each directory's permissions file once: make one for each
// decision (a tool call asks about several targets in a few folders).
type PermissionsChain struct {
	dirs map[string]*PermFile // nil entry: no file in that directory
}

// NewPermissionsChain returns an empty chain cache.
func NewPermissionsChain() *PermissionsChain {
	return &PermissionsChain{dirs: map[string]*PermFile{}}
}

// Files returns the permissions files governing dir: in dir and every directory above
// it, nearest first. An unreadable or invalid file is an error (fail closed).
func (c *PermissionsChain) Files(dir string) ([]*PermFile, error) {
	var out []*PermFile
	for d := filepath.Clean(dir); ; {
		f, ok := c.dirs[d]
		if !ok {
			perms, path, err := lockcore.LoadPermissions(d)
			if errors.Is(err, syscall.ENOTDIR) {
				// d is a file (a target below a file): no folder, no permissions file.
				perms, err = nil, nil
			}
			if err != nil {
				if path == "" {
					path = d
				}
				return nil, fmt.Errorf("permissions file %s cannot be used: %w", path, err)
			}
			if perms != nil {
				f = &PermFile{Dir: d, Path: path, Perms: perms}
			}
			c.dirs[d] = f
		}
		if f != nil {
			out = append(out, f)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return out, nil
		}
		d = parent
	}
}

// evaluate asks one permissions file about one target offered under several action
// spellings. With explicitOnly, the file's default is no answer (ok false): only a
// rule that names the action counts.
func (f *PermFile) evaluate(agent string, spellings []string, explicitOnly bool) (PermVerdict, bool) {
	var best PermVerdict
	found := false
	excluded := false
	for _, action := range spellings {
		m := f.Perms.Explain(agent, action)
		excluded = excluded || m.AgentExcluded
		if m.Rule == "" {
			continue
		}
		if !found || severity(m.Decision) > severity(best.Decision) {
			best = PermVerdict{Decision: m.Decision, File: f.Path, Rule: m.Rule, List: m.List, Action: action}
			found = true
		}
	}
	if found {
		return best, true
	}
	if explicitOnly || len(spellings) == 0 {
		return PermVerdict{}, false
	}
	return PermVerdict{Decision: f.Perms.Default, File: f.Path, List: "default", AgentExcluded: excluded, Action: spellings[0]}, true
}

// pathSpellings returns the actions under which tools (Write, Edit, ...) touching
// target are offered to the file in dir.
func pathSpellings(tools []string, target, dir string) []string {
	rel, err := filepath.Rel(dir, target)
	forms := []string{filepath.ToSlash(target)}
	if err == nil {
		forms = []string{filepath.ToSlash(rel), filepath.ToSlash(target)}
	}
	var out []string
	for _, t := range tools {
		for _, p := range forms {
			out = append(out, t+"("+p+")")
		}
	}
	return out
}

// PermRequest is one question to the permissions chain.
type PermRequest struct {
	// Dir is the directory whose permissions files apply (a target's folder).
	Dir string
	// Target is a path to offer in spellings built from Tools; empty: Actions are
	// offered as they are.
	Target  string
	Tools   []string
	Actions []string
	// ExplicitOnly ignores the files' defaults.
	ExplicitOnly bool
}

// Check answers req for agent with the strictest verdict of the files governing it;
// ok is false when no file had anything to say (no file at all, or, with
// ExplicitOnly, no rule naming the action).
func (c *PermissionsChain) Check(agent string, req PermRequest) (PermVerdict, bool, error) {
	files, err := c.Files(req.Dir)
	if err != nil {
		return PermVerdict{}, false, err
	}
	var best PermVerdict
	found := false
	for _, f := range files {
		spellings := req.Actions
		if req.Target != "" {
			spellings = pathSpellings(req.Tools, req.Target, f.Dir)
		}
		v, ok := f.evaluate(agent, spellings, req.ExplicitOnly)
		if ok && (!found || severity(v.Decision) > severity(best.Decision)) {
			best, found = v, true
		}
	}
	return best, found, nil
}
