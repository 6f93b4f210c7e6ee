package install

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/gitrun"
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
	Healthy      bool         `json:"healthy"`
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
	for _, root := range roots {
		if !filepath.IsAbs(root) {
			root = filepath.Join(o.Env.Dir, root)
		}
		dirs := []string{root}
		if _, err := gitrun.OpenRepo(ctx, gitrun.New(root, o.Env.Env)); err != nil {
			dirs = findRepos(root, 3)
			if len(dirs) == 0 {
				rep.Problems = append(rep.Problems, fmt.Sprintf("%s: no git repository here or below", root))
				continue
			}
		}
		for _, d := range dirs {
			r, err := gitrun.OpenRepo(ctx, gitrun.New(d, o.Env.Env))
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
	}
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
	if o.JSON {
		if err := guard.WriteJSON(o.Env.Stdout, "doctor", rep); err != nil {
			return err
		}
	} else {
		writeDoctor(o.Env.Stdout, rep)
	}
	switch {
	case len(rep.Repositories) == 0:
		return guard.Silent(guard.ExitUsage)
	case !rep.Healthy:
		return guard.Silent(guard.ExitRefused)
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

func examine(env *guard.Env, r gitrun.Repo) RepoReport {
	rep := RepoReport{Path: r.Top, HooksDir: r.Hooks, Hooks: []HookReport{}, StaleLocks: []lockcore.JSON{},
		Bypasses: []json.RawMessage{}, Problems: []string{}}
	if rep.Path == "" {
		rep.Path = r.CommonDir
	}
	problem := func(format string, args ...any) { rep.Problems = append(rep.Problems, fmt.Sprintf(format, args...)) }

	for _, name := range Hooks {
		h, more := hookState(env, r.Top, r.Hooks, name)
		switch st := h.State; {
		case st == "missing":
			problem("%s hook is not installed (run `guard install`)", name)
		case st == "foreign" && h.Manager != "":
			problem("%s hook %s is %s's, and it does not run guard: %s (see docs/hooks.md, \"With other hook managers\", or run `guard install`)", name, h.Path, h.Manager, h.Why)
		case st == "foreign":
			problem("%s hook %s was not written by guard, so guard does not run (run `guard install`)", name, h.Path)
		case st == "managed":
			if !executable(h.Path) {
				problem("%s hook %s is not executable, so git does not run it (run `%s` again)", name, h.Path, reinstallHint(h.Manager, name))
			}
			if !h.GuardOK {
				problem("%s hook: %s runs %s, which is not there: every %s is refused (install guard, or put it on PATH)", name, h.Manager, h.Guard, verb(name))
			}
		case st == "installed":
			if !executable(h.Path) {
				problem("%s hook %s is not executable, so git does not run it (run `guard install`)", name, h.Path)
			}
			if !h.GuardOK {
				problem("%s hook cannot find guard: %s is gone and none is on PATH (reinstall guard, then `guard install`)", name, h.Guard)
			}
		}
		for _, p := range more {
			problem("%s hook: %s", name, p)
		}
		rep.Hooks = append(rep.Hooks, h)
	}

	if r.Top != "" {
		if subject, err := guard.ResolveSubject(env, r.Top, guard.Identity{}); err != nil {
			rep.Config.Error = err.Error()
			problem("configuration: %v", err)
		} else {
			rep.Config.Path = subject.Config.Path
		}
		now := env.Clock.Now()
		for _, l := range staleLocks(r.Top, now) {
			rep.StaleLocks = append(rep.StaleLocks, l.ToJSON(now))
			problem("stale lock %s (owner %s) expired; `guard prune` removes it", l.Path, orNone(l.Owner))
		}
	}

	rep.BypassLog = r.BypassLogPath()
	entries, err := readBypassLog(rep.BypassLog)
	if err != nil {
		problem("bypass log: %v", err)
	}
	rep.Bypasses = append(rep.Bypasses, entries...)
	return rep
}

func orNone(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// hookState examines the hook name in the hooks folder dir of the working tree top;
// it also returns problems a hook manager's hook has besides not running guard.
func hookState(env *guard.Env, top, dir, name string) (HookReport, []string) {
	h := HookReport{Name: name, Path: filepath.Join(dir, name)}
	if _, err := os.Lstat(h.Path + BackupSuffix); err == nil {
		h.Kept = h.Path + BackupSuffix
	}
	data, err := os.ReadFile(h.Path)
	if err != nil {
		if _, lerr := os.Lstat(h.Path); lerr == nil {
			h.State = "foreign"
		} else {
			h.State = "missing"
		}
		return h, nil
	}
	if !IsGuardHook(data) {
		m := examineManaged(env, top, h.Path, name, data)
		h.State, h.Manager = "foreign", m.Manager
		if len(m.Via) == 0 {
			h.Why = m.Why
			return h, nil
		}
		h.State, h.Via = "managed", m.Via
		h.Guard, h.GuardOK, h.Fallback = m.Guard, m.GuardOK, m.Fallback
		if m.Legacy != "" {
			h.Kept = m.Legacy
		}
		return h, m.Problems
	}
	h.State = "installed"
	h.Guard, _ = RecordedExecutable(data)
	if executable(h.Guard) {
		h.GuardOK = true
	} else if p := lookPath(env, "guard"); p != "" {
		h.GuardOK, h.Fallback = true, p
	}
	return h, nil
}

func executable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}

// lookPath searches the PATH of env (not the process's) for name.
func lookPath(env *guard.Env, name string) string {
	for _, d := range filepath.SplitList(env.Env("PATH")) {
		if d == "" {
			continue
		}
		if p := filepath.Join(d, name); executable(p) {
			return p
		}
	}
	return ""
}

// staleLocks returns the prunable locks in the working tree at top and in the
// directories above it (whose locks reach down into it).
func staleLocks(top string, now time.Time) []*lockcore.Lock {
	loc := now.Location()
	var stale []*lockcore.Lock
	_ = filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable corners are the policy's business, not doctor's
		}
		if d.IsDir() {
			if p != top && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !lockcore.IsLockName(d.Name()) || !d.Type().IsRegular() {
			return nil
		}
		if l, err := lockcore.ReadLock(p, loc); err == nil && l.Prunable(now) {
			stale = append(stale, l)
		}
		return nil
	})
	for d := filepath.Dir(top); ; d = filepath.Dir(d) {
		locks, _ := lockcore.ReadDir(d, loc)
		for _, l := range locks {
			if l.Prunable(now) {
				stale = append(stale, l)
			}
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return stale
}

// readBypassLog returns the log's lines (JSON objects); a missing log has none.
func readBypassLog(path string) ([]json.RawMessage, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []json.RawMessage
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if !json.Valid([]byte(line)) {
			return out, fmt.Errorf("%s:%d: not a JSON object", path, n)
		}
		out = append(out, json.RawMessage(line))
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// bypassSummary is the part of a bypass log entry the text report shows.
type bypassSummary struct {
	Time     string   `json:"time"`
	Owner    string   `json:"owner"`
	Hook     string   `json:"hook"`
	Reason   string   `json:"reason"`
	Refs     []string `json:"refs"`
	Blocking []struct {
		Path string `json:"path"`
		Lock string `json:"lock"`
	} `json:"blocking"`
	Error string `json:"error"`
}

func writeDoctor(w io.Writer, rep DoctorReport) {
	for i, r := range rep.Repositories {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "repository %s\n", r.Path)
		fmt.Fprintf(w, "  hooks folder: %s\n", r.HooksDir)
		for _, h := range r.Hooks {
			line := fmt.Sprintf("  %s: %s", h.Name, h.State)
			switch {
			case h.State == "installed" && h.Fallback != "":
				line += fmt.Sprintf(" (recorded guard %s is gone; using %s from PATH)", h.Guard, h.Fallback)
			case h.State == "installed" && h.GuardOK:
				line += fmt.Sprintf(" (guard %s)", h.Guard)
			case h.State == "installed":
				line += fmt.Sprintf(" (guard %s is gone, none on PATH: the hook refuses everything)", h.Guard)
			case h.State == "managed":
				line = fmt.Sprintf("  %s: managed by %s, which runs guard from %s", h.Name, h.Manager, strings.Join(h.Via, " and "))
				switch {
				case h.Fallback != "":
					line += fmt.Sprintf(" (recorded guard %s is gone; using %s from PATH)", h.Guard, h.Fallback)
				case h.GuardOK:
					line += fmt.Sprintf(" (guard %s)", h.Guard)
				default:
					line += fmt.Sprintf(" (%s is not there: the hook refuses everything)", h.Guard)
				}
			case h.State == "foreign" && h.Manager != "":
				line += fmt.Sprintf(" (%s's hook, which does not run guard)", h.Manager)
			}
			if h.Kept != "" && h.State == "installed" {
				line += fmt.Sprintf("; runs kept hook %s", filepath.Base(h.Kept))
			}
			fmt.Fprintln(w, line)
		}
		switch {
		case r.Config.Error != "":
			fmt.Fprintf(w, "  config: error: %s\n", r.Config.Error)
		case r.Config.Path != "":
			fmt.Fprintf(w, "  config: %s\n", r.Config.Path)
		default:
			fmt.Fprintln(w, "  config: none")
		}
		if len(r.StaleLocks) == 0 {
			fmt.Fprintln(w, "  stale locks: none")
		} else {
			fmt.Fprintf(w, "  stale locks: %d\n", len(r.StaleLocks))
			for _, l := range r.StaleLocks {
				fmt.Fprintf(w, "    %s (owner %s)\n", l.Path, orNone(l.Owner))
			}
		}
		if r.Backend != nil {
			fmt.Fprintf(w, "  backend: %s\n", r.Backend.Summary)
		}
		fmt.Fprintf(w, "  bypasses: %d (%s)\n", len(r.Bypasses), r.BypassLog)
		for _, raw := range r.Bypasses {
			var b bypassSummary
			_ = json.Unmarshal(raw, &b)
			what := fmt.Sprintf("%d blocked", len(b.Blocking))
			if b.Error != "" {
				what = "error: " + b.Error
			}
			refs := ""
			if len(b.Refs) > 0 {
				refs = " " + strings.Join(b.Refs, ", ")
			}
			fmt.Fprintf(w, "    %s %s %s%s: %q (%s)\n", b.Time, orNone(b.Owner), b.Hook, refs, b.Reason, what)
		}
		for _, p := range r.Problems {
			fmt.Fprintf(w, "  problem: %s\n", p)
		}
	}
	if len(rep.Repositories) > 0 {
		fmt.Fprintln(w)
	}
	writeScratch(w, rep.Scratch)
	for _, p := range rep.Problems {
		fmt.Fprintf(w, "problem: %s\n", p)
	}
	if rep.Healthy && len(rep.Repositories) > 0 {
		fmt.Fprintln(w, "healthy")
	}
}
