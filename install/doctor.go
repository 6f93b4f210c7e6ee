package install

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/gitrun"
	"github.com/guardlocks/guard/internal/progress"
	"github.com/guardlocks/guard/lockcore"
)

// DoctorOptions are the inputs of guard doctor.
type DoctorOptions struct {
	Env *guard.Env
	// Roots are directories to examine; each is a repository (any directory inside
	// one) or a folder whose repositories are found below it. Without roots, the
	// repository of Env.Dir is examined.
	Roots []string
	JSON  bool
	// Sweep removes the stranded scratch files (see examineScratch).
	Sweep bool
	// StateMutexes are the transient mutex names that other packages keep in guard's
	// state directory (the history journal's import mutex); cmd/guard names them.
	StateMutexes []string
	// AgentProblems reports what keeps an agent from running guard's hook installed
	// for the repository at top ("" for the user's own settings); wired in from the
	// agent package.
	AgentProblems func(top string) []string
	// Backend, when set, reports the lock backend of a repository whose .guard.toml
	// has one (main wires in package backend); Repair lets it make the lock files
	// follow the backend (--repair).
	Backend func(ctx context.Context, env *guard.Env, top string, repair bool) *BackendReport
	Repair  bool
}

// BackendReport is what doctor found of a repository's lock backend.
type BackendReport struct {
	// Summary is the one line of the text report.
	Summary string `json:"summary"`
	// Detail is the backend's own report (its health, the disagreements between its
	// locks and the files, what --repair did).
	Detail any `json:"detail"`
	// Problems make the repository unhealthy.
	Problems []string `json:"-"`
}

// DoctorReport is `guard doctor --json`.
type DoctorReport struct {
	Healthy bool `json:"healthy"`
	// OK is the verdict key every command's JSON shares (here: Healthy).
	OK           bool         `json:"ok"`
	Repositories []RepoReport `json:"repositories"`
	Problems     []string     `json:"problems"`
	// Scratch are the scratch files found in the repositories and the state directory.
	Scratch []ScratchReport `json:"scratch"`
}

// RepoReport is what doctor found in one repository.
type RepoReport struct {
	Path       string          `json:"path"`
	HooksDir   string          `json:"hooks_dir"`
	Hooks      []HookReport    `json:"hooks"`
	Config     ConfigReport    `json:"config"`
	StaleLocks []lockcore.JSON `json:"stale_locks"`
	// Bypasses are the entries of the bypass log, as written by the hooks.
	Bypasses  []json.RawMessage `json:"bypasses"`
	BypassLog string            `json:"bypass_log"`
	// Backend is the lock backend's report (null without [backend]).
	Backend  *BackendReport `json:"backend"`
	Problems []string       `json:"problems"`
}

// HookReport is the state of one hook: "installed" (guard's), "managed" (a hook
// manager's, which runs guard: Manager and Via say which and from where), "missing"
// or "foreign" (a hook that does not run guard; Manager names the manager that wrote
// it, if doctor recognised one, and Why says what is missing).
type HookReport struct {
	Name  string `json:"name"`
	Path  string `json:"path"`
	State string `json:"state"`
	// Manager is "husky", "lefthook" or "pre-commit" when one of them wrote the hook.
	Manager string `json:"manager,omitempty"`
	// Via are the places the manager runs guard from (a script line, a configuration
	// entry, the kept legacy hook).
	Via []string `json:"via,omitempty"`
	// Why says why a foreign hook does not run guard.
	Why string `json:"why,omitempty"`
	// Guard is the guard binary the hook recorded; GuardOK whether the hook can find
	// a guard binary (the recorded one, else one on PATH: Fallback).
	Guard    string `json:"guard,omitempty"`
	GuardOK  bool   `json:"guard_ok"`
	Fallback string `json:"fallback,omitempty"`
	// Kept is the foreign hook guard's hook runs after its check, if any.
	Kept string `json:"kept,omitempty"`
}

// ConfigReport is the .guard.toml governing the repository.
type ConfigReport struct {
	Path  string `json:"path"`
	Error string `json:"error,omitempty"`
}

// RunDoctor is guard doctor: 0 when every repository is healthy, 1 when a problem is
// found, 2 when there is nothing to examine.
func RunDoctor(ctx context.Context, o DoctorOptions) error {
	rep := DoctorReport{Repositories: []RepoReport{}, Problems: []string{}}
	seen := map[string]bool{}
	var repos []gitrun.Repo
	// DIRs given are what the user asked about: the current repository is examined
	// only when none is given (it was added to every report, which then blamed the
	// wrong repository).
	roots := o.Roots
	if len(roots) == 0 {
		roots = []string{o.Env.Dir}
	}
	// The folders are found first, so that the progress line can say how many there are.
	type item struct{ dir, problem string }
	var items []item
	total := 0
	for _, root := range roots {
		if !filepath.IsAbs(root) {
			root = filepath.Join(o.Env.Dir, root)
		}
		dirs := []string{root}
		if _, err := gitrun.OpenRepo(ctx, gitrun.New(root, o.Env.Env)); err != nil {
			dirs = findRepos(root, 3)
			if len(dirs) == 0 {
				items = append(items, item{problem: fmt.Sprintf("%s: no git repository here or below", root)})
				continue
			}
		}
		for _, d := range dirs {
			items = append(items, item{dir: d})
		}
		total += len(dirs)
	}
	// At a terminal, a walk over many repositories says where it is (on stderr, erased
	// before the report is written).
	line := progress.New(o.Env.Stderr, o.Env.StderrTTY && total > 1, o.Env.Clock.Now, progress.Delay)
	n := 0
	for _, it := range items {
		if it.problem != "" {
			rep.Problems = append(rep.Problems, it.problem)
			continue
		}
		n++
		line.Show("doctor: repository %d/%d: %s", n, total, it.dir)
		r, err := gitrun.OpenRepo(ctx, gitrun.New(it.dir, o.Env.Env))
		if err != nil {
			rep.Problems = append(rep.Problems, err.Error())
			continue
		}
		key := r.Top + "\x00" + r.CommonDir
		if seen[key] {
			continue
		}
		seen[key] = true
		repos = append(repos, r)
		rr := examine(o.Env, r)
		if o.AgentProblems != nil && r.Top != "" {
			rr.Problems = append(rr.Problems, o.AgentProblems(r.Top)...)
		}
		if o.Backend != nil && r.Top != "" {
			if br := o.Backend(ctx, o.Env, r.Top, o.Repair); br != nil {
				rr.Backend = br
				rr.Problems = append(rr.Problems, br.Problems...)
			}
		}
		rep.Repositories = append(rep.Repositories, rr)
	}
	line.Clear()
	rep.Scratch = examineScratch(o, repos)
	rep.Problems = append(rep.Problems, scratchProblems(rep.Scratch)...)
	if o.AgentProblems != nil {
		rep.Problems = append(rep.Problems, o.AgentProblems("")...)
	}
	rep.Healthy = len(rep.Problems) == 0
	for _, r := range rep.Repositories {
		if len(r.Problems) > 0 {
			rep.Healthy = false
		}
	}
	rep.OK = rep.Healthy && len(rep.Repositories) > 0
	if o.JSON {
		if err := guard.WriteJSON(o.Env.Stdout, "doctor", rep); err != nil {
			return err
		}
	} else {
		writeDoctor(o.Env.Stdout, rep)
	}
	switch {
	case len(rep.Repositories) == 0:
		return guard.Explained(guard.BadInput)
	case !rep.Healthy:
		return guard.Explained(guard.Refused)
	}
	return nil
}

// findRepos returns the working trees (folders with a .git entry) at most depth levels
// below root.
func findRepos(root string, depth int) []string {
	var out []string
	var walk func(dir string, d int)
	walk = func(dir string, d int) {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			out = append(out, dir)
			return
		}
		if d == 0 {
			return
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range entries {
			if e.IsDir() && !skipDir(e.Name()) {
				walk(filepath.Join(dir, e.Name()), d-1)
			}
		}
	}
	walk(root, depth)
	return out
}

func skipDir(name string) bool {
	return name == ".git" || name == "node_modules"
}
