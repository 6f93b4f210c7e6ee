package agent

import (
	"errors"
	"fmt"
	"path/filepath"
	"syscall"

	"github.com/guardlocks/guard/lockcore"
)

// How LOCK.permissions.json files apply to a tool call:
//
//   - Every permissions file in the target's directory and in each directory above it
//     (to the file-system root, as for locks) is evaluated on its own; the strictest
//     answer wins (deny > ask > allow). A folder's file can tighten what a file above
//     it allows, never loosen what one above denies.
//   - A path is offered to a file's rules in two spellings: relative to the file's
//     directory (`src/a.go`) and absolute (`/repo/src/a.go`), so that both
//     `Write(src/**)` and `Write(**/CREDENTIALS/**)` can match. A rule that matches
//     either spelling decides (the stricter when both match different rules); the
//     file's default answers only when no rule matches any spelling.
//   - An edit (Edit, MultiEdit, NotebookEdit, Gemini's replace) is also a Write:
//     `Write(...)` rules apply to it as well as rules naming the tool itself.

// permVerdict is a permissions file's answer for one target.
type permVerdict struct {
	Decision lockcore.Decision
	File     string // the permissions file
	Rule     string // the matching rule ("" when the default answered)
	Action   string // the action spelling that matched
}

func (v permVerdict) String() string {
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

// permFile is one loaded permissions file.
type permFile struct {
	dir   string
	path  string
	perms *lockcore.Permissions
}

// permissionsCache loads each directory's permissions file once per decision.
type permissionsCache struct {
	dirs map[string]*permFile // nil entry: no file in that directory
}

func newPermissionsCache() *permissionsCache {
	return &permissionsCache{dirs: map[string]*permFile{}}
}

// chain returns the permissions files governing dir: in dir and every directory
// above it, nearest first. An unreadable or invalid file is an error (fail closed).
func (c *permissionsCache) chain(dir string) ([]*permFile, error) {
	var out []*permFile
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
				f = &permFile{dir: d, path: path, perms: perms}
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
func (f *permFile) evaluate(agent string, spellings []string, explicitOnly bool) (permVerdict, bool) {
	var best permVerdict
	found := false
	for _, action := range spellings {
		m := f.perms.Explain(agent, action)
		if m.Rule == "" {
			continue
		}
		if !found || severity(m.Decision) > severity(best.Decision) {
			best = permVerdict{Decision: m.Decision, File: f.path, Rule: m.Rule, Action: action}
			found = true
		}
	}
	if found {
		return best, true
	}
	if explicitOnly || len(spellings) == 0 {
		return permVerdict{}, false
	}
	return permVerdict{Decision: f.perms.Default, File: f.path, Action: spellings[0]}, true
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

// permRequest is one question to the permissions files.
type permRequest struct {
	// Dir is the directory whose permissions files apply (the target's folder).
	Dir string
	// Target is a path to offer in spellings built from Tools; empty: Actions are
	// offered as they are.
	Target  string
	Tools   []string
	Actions []string
	// ExplicitOnly ignores the files' defaults.
	ExplicitOnly bool
}

// check answers req with the strictest verdict of the files governing it; ok is
// false when no file had anything to say.
func (c *permissionsCache) check(agent string, req permRequest) (permVerdict, bool, error) {
	files, err := c.chain(req.Dir)
	if err != nil {
		return permVerdict{}, false, err
	}
	var best permVerdict
	found := false
	for _, f := range files {
		spellings := req.Actions
		if req.Target != "" {
			spellings = pathSpellings(req.Tools, req.Target, f.dir)
		}
		v, ok := f.evaluate(agent, spellings, req.ExplicitOnly)
		if ok && (!found || severity(v.Decision) > severity(best.Decision)) {
			best, found = v, true
		}
	}
	return best, found, nil
}
