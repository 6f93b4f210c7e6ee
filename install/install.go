// Package install puts guard's git hooks into a repository and takes them out again
// (guard install, guard uninstall), and checks that everything is in place (guard
// doctor).
//
// Guarantees: install writes into the folder git really runs hooks from (asked with
// `git rev-parse --git-path hooks`, so core.hooksPath and linked worktrees are right);
// it recognises its own hooks by Marker and rewrites them in place (idempotent); a
// foreign hook is moved aside to <hook>.pre-guard, run by guard's hook after guard's
// check, and moved back by uninstall. Nothing is ever deleted that guard did not
// write.
package install

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/atomicfile"
	"github.com/guardlocks/guard/internal/gitrun"
)

// Options are the inputs of guard install and guard uninstall.
type Options struct {
	Env *guard.Env
	// Repo is a directory inside the repository (default: Env.Dir).
	Repo string
	// Hooks to install (default: all of Hooks).
	Hooks []string
	// Force lets install proceed when a foreign hook is there and an earlier one was
	// already kept as <hook>.pre-guard: the earlier one is moved to
	// <hook>.pre-guard.<n>, never deleted.
	Force bool
	// JSON prints one JSON document (Result) on stdout instead of lines.
	JSON bool
}

// Result is what install or uninstall did (`--json`).
type Result struct {
	HooksDir string       `json:"hooks_dir"`
	Hooks    []HookResult `json:"hooks"`
	// Exclude is the exclude file; ExcludeAdded whether install added the markers.
	Exclude      string `json:"exclude,omitempty"`
	ExcludeAdded bool   `json:"exclude_added"`
}

// HookResult is one hook's outcome: "installed", "removed", "restored" (the kept hook
// is back), "left" (not guard's, left alone) or "absent".
type HookResult struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	Action string `json:"action"`
	// Kept is the foreign hook guard's hook runs after its check.
	Kept string `json:"kept,omitempty"`
	Note string `json:"note,omitempty"`
}

func (o Options) report(res Result, lines []string) error {
	if !o.JSON {
		for _, l := range lines {
			fmt.Fprintln(o.Env.Stdout, l)
		}
		return nil
	}
	if res.Hooks == nil {
		res.Hooks = []HookResult{}
	}
	return guard.WriteJSON(o.Env.Stdout, "install", res)
}

func (o Options) dir() string { return repoDir(o.Env, o.Repo) }

// repoDir is the repository a command was given (--repo, relative to the working
// directory), or the working directory.
func repoDir(env *guard.Env, repo string) string {
	if repo == "" {
		return env.Dir
	}
	if filepath.IsAbs(repo) {
		return repo
	}
	return filepath.Join(env.Dir, repo)
}

// RunInstall is guard install.
func RunInstall(ctx context.Context, o Options) error {
	names := o.Hooks
	if len(names) == 0 {
		names = Hooks
	}
	for _, h := range names {
		if !slices.Contains(Hooks, h) {
			return guard.Fail(guard.BadInput, "install: unknown hook %q (guard installs %s)", h, strings.Join(Hooks, ", "))
		}
	}
	exe := o.Env.Executable
	if exe == "" || !filepath.IsAbs(exe) {
		return guard.Fail(guard.BadInput, "install: cannot tell where the guard binary is (%q)", exe)
	}
	if temporaryBuild(exe) {
		fmt.Fprintf(o.Env.Stderr, "guard: warning: %s is a temporary binary built by go run; the hooks will fail closed once Go removes it. Install guard first (go install ./cmd/guard) and run guard install from the installed binary.\n", exe)
	}
	r, err := gitrun.OpenRepo(ctx, gitrun.New(o.dir(), o.Env.Env))
	if err != nil {
		return guard.Fail(guard.BadInput, "install: %w", err)
	}
	if err := os.MkdirAll(r.Hooks, 0o755); err != nil {
		return guard.Fail(guard.BadInput, "install: hooks folder: %w", err)
	}
	res := Result{HooksDir: r.Hooks, Exclude: r.Exclude}
	var lines []string
	for _, h := range names {
		hr, msg, err := installHook(r.Hooks, h, exe, o.Force)
		if err != nil {
			return err
		}
		res.Hooks = append(res.Hooks, hr)
		lines = append(lines, msg)
	}
	added, err := addExcludes(r.Exclude)
	if err != nil {
		return guard.Fail(guard.BadInput, "install: %w", err)
	}
	res.ExcludeAdded = added
	if added {
		lines = append(lines, fmt.Sprintf("ignored PRIVATE.txt and PUBLIC.txt in %s", r.Exclude))
	}
	if err := o.report(res, lines); err != nil {
		return err
	}
	if husky(r.Hooks) {
		fmt.Fprintf(o.Env.Stderr, "guard: warning: %s is managed by husky, which may rewrite it; see docs/hooks.md, \"With other hook managers\", for the husky recipe\n", r.Hooks)
	}
	return nil
}

// installHook writes guard's hook for name into dir and says what it did.
func installHook(dir, name, exe string, force bool) (HookResult, string, error) {
	hr, msg, err := installChained(filepath.Join(dir, name), "install", force,
		func(prevInterp string) string { return script(name, exe, prevInterp) })
	hr.Name = name
	return hr, msg, err
}

// installChained writes the hook file content(prevInterp) at path (what names the
// command in errors). A foreign hook there is moved aside to path.pre-guard, which
// guard's hook runs after its check (prevInterp is its shell, see shellInterpreter);
// an earlier kept one stops it unless force, which keeps both. Writing guard's own
// hook again is "unchanged".
func installChained(path, what string, force bool, content func(prevInterp string) string) (HookResult, string, error) {
	backup := path + BackupSuffix
	_, lerr := os.Lstat(path)
	present := lerr == nil
	existing, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return HookResult{}, "", guard.Fail(guard.BadInput, "%s: %w", what, err)
	}
	// A dangling symlink reads as not existing; it is still kept aside, not lost.
	note := ""
	if present && !IsGuardHook(existing) {
		if _, err := os.Lstat(backup); err == nil {
			if !force {
				return HookResult{}, "", guard.Fail(guard.Refused,
					"%s: %s is a hook guard did not write, and %s already keeps an earlier one; move one of them away, or run `guard %s --force` to keep both (the earlier one moves to %s.<n>)",
					what, path, filepath.Base(backup), what, filepath.Base(backup))
			}
			older, err := freeName(backup)
			if err != nil {
				return HookResult{}, "", guard.Fail(guard.BadInput, "%s: %w", what, err)
			}
			if err := os.Rename(backup, older); err != nil {
				return HookResult{}, "", guard.Fail(guard.BadInput, "%s: %w", what, err)
			}
			note = fmt.Sprintf("; moved the earlier kept hook to %s", filepath.Base(older))
		}
		if err := os.Rename(path, backup); err != nil {
			return HookResult{}, "", guard.Fail(guard.BadInput, "%s: keeping the existing hook: %w", what, err)
		}
		note = fmt.Sprintf(" (kept the existing hook as %s, which still runs after guard%s)", filepath.Base(backup), note)
	} else if _, err := os.Lstat(backup); err == nil {
		note = fmt.Sprintf(" (runs %s after guard)", filepath.Base(backup))
	}
	body := content(shellInterpreter(backup))
	// Installing again is idempotent, and says so (as agent-install does): a second
	// "installed" read as if something had been missing.
	if present && note == "" && string(existing) == body {
		hr := HookResult{Path: path, Action: "unchanged"}
		if _, err := os.Lstat(backup); err == nil {
			hr.Kept = backup
		}
		return hr, "unchanged " + path, nil
	}
	if err := writeExecutable(path, []byte(body)); err != nil {
		return HookResult{}, "", guard.Fail(guard.BadInput, "%s: %w", what, err)
	}
	hr := HookResult{Path: path, Action: "installed", Note: strings.TrimSpace(note)}
	if _, err := os.Lstat(backup); err == nil {
		hr.Kept = backup
	}
	return hr, "installed " + path + note, nil
}

// freeName returns base.<n> for the smallest n >= 1 that does not exist.
func freeName(base string) (string, error) {
	for n := 1; n < 1000; n++ {
		p := fmt.Sprintf("%s.%d", base, n)
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			return p, nil
		}
	}
	return "", fmt.Errorf("no free name for %s", base)
}

// writeExecutable replaces path atomically with an executable file.
func writeExecutable(path string, data []byte) error {
	return atomicfile.Write(path, data, 0o755)
}

// excludeLines keep local control files out of commits without touching the tracked
// .gitignore: the publication markers, and the OS-lock files that team-lock edits
// hold beside a team lock (never deleted, as the reference does; the team lock itself
// stays visible).
var excludeLines = []string{guard.PrivateMarkerName, guard.PublicMarkerName, "LOCK.team.*.txt.guard"}

const excludeComment = "# guard: local control files, never committed (publication markers, team-lock guards)"

// addExcludes appends the markers to the exclude file unless it lists them already.
func addExcludes(path string) (bool, error) {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	have := map[string]bool{}
	for _, l := range strings.Split(string(data), "\n") {
		have[strings.TrimSpace(l)] = true
	}
	var add []string
	for _, l := range excludeLines {
		if !have[l] {
			add = append(add, l)
		}
	}
	if len(add) == 0 {
		return false, nil
	}
	var b strings.Builder
	if len(data) > 0 && !strings.HasSuffix(string(data), "\n") {
		b.WriteString("\n")
	}
	if !have[excludeComment] {
		b.WriteString(excludeComment + "\n")
	}
	for _, l := range add {
		b.WriteString(l + "\n")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return false, err
	}
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		return false, fmt.Errorf("%s: %w", path, err)
	}
	return true, f.Close()
}

// husky reports whether dir is husky's generated hooks folder (.husky/_), which
// husky rewrites on every `npm install`.
func husky(dir string) bool {
	if filepath.Base(dir) != "_" || filepath.Base(filepath.Dir(dir)) != ".husky" {
		return false
	}
	return true
}

// RunUninstall is guard uninstall: guard's hooks are removed and the hooks they kept
// are put back. A hook guard did not write is left alone.
func RunUninstall(ctx context.Context, o Options) error {
	r, err := gitrun.OpenRepo(ctx, gitrun.New(o.dir(), o.Env.Env))
	if err != nil {
		return guard.Fail(guard.BadInput, "uninstall: %w", err)
	}
	problems := 0
	res := Result{HooksDir: r.Hooks}
	var lines []string
	for _, name := range Hooks {
		path := filepath.Join(r.Hooks, name)
		backup := path + BackupSuffix
		hr := HookResult{Name: name, Path: path, Action: "absent"}
		data, err := os.ReadFile(path)
		_, lerr := os.Lstat(path)
		switch {
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return guard.Fail(guard.BadInput, "uninstall: %w", err)
		case lerr != nil:
			// guard's hook is gone (removed by hand or by another manager): a kept
			// hook can go back to its place.
			if _, err := os.Lstat(backup); err == nil {
				if err := os.Rename(backup, path); err != nil {
					return guard.Fail(guard.BadInput, "uninstall: %w", err)
				}
				hr.Action = "restored"
				lines = append(lines, "restored "+path)
			}
		case !IsGuardHook(data):
			hr.Action = "left"
			if _, err := os.Lstat(backup); err == nil {
				hr.Kept = backup
				fmt.Fprintf(o.Env.Stderr, "guard: uninstall: %s is not guard's hook any more; left it and %s as they are\n", path, filepath.Base(backup))
				problems++
			}
		default:
			if err := os.Remove(path); err != nil {
				return guard.Fail(guard.BadInput, "uninstall: %w", err)
			}
			hr.Action = "removed"
			lines = append(lines, "removed "+path)
			if _, err := os.Lstat(backup); err == nil {
				if err := os.Rename(backup, path); err != nil {
					return guard.Fail(guard.BadInput, "uninstall: restoring %s: %w", backup, err)
				}
				hr.Action = "restored"
				lines = append(lines, "restored "+path)
			}
		}
		res.Hooks = append(res.Hooks, hr)
	}
	if len(lines) == 0 && !o.JSON {
		lines = append(lines, fmt.Sprintf("nothing to uninstall: no guard hook in %s", r.Hooks))
	}
	if err := o.report(res, lines); err != nil {
		return err
	}
	if problems > 0 {
		return guard.Explained(guard.Refused)
	}
	return nil
}
