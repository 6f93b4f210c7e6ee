package install

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/gitrun"
)

// Server layouts: where a git server runs a repository's own hooks.
const (
	// LayoutGit is a plain bare repository: hooks/pre-receive and hooks/post-receive
	// (an existing hook is kept as <hook>.pre-guard and still runs after guard's).
	LayoutGit = "git"
	// LayoutGitLab is GitLab's custom hooks: custom_hooks/<hook>.d/guard in the
	// repository's folder on the Gitaly server.
	LayoutGitLab = "gitlab"
	// LayoutGitea is Gitea's and Forgejo's: hooks/<hook>.d/guard, beside the
	// hooks/<hook>.d/gitea that their own hooks/<hook> dispatcher runs.
	LayoutGitea = "gitea"
	// LayoutAuto picks one from what the repository's folder holds.
	LayoutAuto = "auto"
)

// ServerHooks are the hooks install --server writes: pre-receive judges, post-receive
// records. (git's update hook would judge each ref a second time; `guard hook update`
// is there for servers that run only that one.)
var ServerHooks = []string{"pre-receive", "post-receive"}

// serverHookName is the file name of guard's hook in a <hook>.d folder.
const serverHookName = "guard"

// pushOptionsMark records in the repository's config that install --server turned
// receive.advertisePushOptions on, so that uninstall turns it off again only then.
const pushOptionsMark = "guard.serverAdvertisePushOptions"

// ServerOptions are the inputs of install --server, uninstall --server and doctor
// --server.
type ServerOptions struct {
	Env *guard.Env
	// Repo is the bare repository (default: Env.Dir).
	Repo string
	// Layout is LayoutAuto (default), LayoutGit, LayoutGitLab or LayoutGitea.
	Layout string
	Force  bool
	JSON   bool
}

// ServerResult is what install --server or uninstall --server did (`--json`).
type ServerResult struct {
	Repo   string       `json:"repo"`
	Layout string       `json:"layout"`
	Hooks  []HookResult `json:"hooks"`
	// PushOptions is receive.advertisePushOptions after the command.
	PushOptions bool `json:"push_options"`
}

func (o ServerOptions) dir() string { return repoDir(o.Env, o.Repo) }

// openBare opens the bare repository o names.
func (o ServerOptions) openBare(ctx context.Context, what string) (gitrun.Repo, gitrun.Git, error) {
	g := gitrun.At(o.dir(), o.Env.Env)
	r, err := gitrun.OpenRepo(ctx, g)
	if err != nil {
		return r, g, guard.Fail(guard.BadInput, "%s --server: %w", what, err)
	}
	if r.Top != "" {
		return r, g, guard.Fail(guard.BadInput, "%s --server: %s is a working tree; --server is for a git server's bare repository (guard %s without --server installs a clone's hooks)", what, r.Top, what)
	}
	g.Dir = r.CommonDir
	return r, g, nil
}

// serverLayout resolves o.Layout for the repository whose git directory is dir.
func serverLayout(layout, dir string) (string, error) {
	switch layout {
	case "", LayoutAuto:
	case LayoutGit, LayoutGitLab, LayoutGitea:
		return layout, nil
	default:
		return "", guard.Fail(guard.BadInput, "install --server: --layout %q: want auto, git, gitlab or gitea", layout)
	}
	if isDir(filepath.Join(dir, "hooks", "pre-receive.d")) {
		return LayoutGitea, nil
	}
	if isDir(filepath.Join(dir, "custom_hooks")) {
		return LayoutGitLab, nil
	}
	return LayoutGit, nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// serverHookPath is where guard's hook for name goes in a layout, in the repository r
// (the plain layout: the folder git runs hooks from, core.hooksPath honoured).
func serverHookPath(layout string, r gitrun.Repo, name string) string {
	switch layout {
	case LayoutGitLab:
		return filepath.Join(r.CommonDir, "custom_hooks", name+".d", serverHookName)
	case LayoutGitea:
		return filepath.Join(r.CommonDir, "hooks", name+".d", serverHookName)
	}
	return filepath.Join(r.Hooks, name)
}

// RunServerInstall is guard install --server: guard's pre-receive and post-receive
// hooks go into the bare repository in its server's layout, an existing hook of the
// plain layout is kept and chained, and receive.advertisePushOptions is turned on so
// that `git push -o guard.bypass=...` reaches the hook.
func RunServerInstall(ctx context.Context, o ServerOptions) error {
	exe := o.Env.Executable
	if exe == "" || !filepath.IsAbs(exe) {
		return guard.Fail(guard.BadInput, "install --server: cannot tell where the guard binary is (%q)", exe)
	}
	r, g, err := o.openBare(ctx, "install")
	if err != nil {
		return err
	}
	layout, err := serverLayout(o.Layout, r.CommonDir)
	if err != nil {
		return err
	}
	res := ServerResult{Repo: r.CommonDir, Layout: layout}
	var lines []string
	for _, name := range ServerHooks {
		path := serverHookPath(layout, r, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return guard.Fail(guard.BadInput, "install --server: %w", err)
		}
		var hr HookResult
		var msg string
		if layout == LayoutGit {
			hr, msg, err = installChained(path, "install --server", o.Force,
				func(prevInterp string) string { return serverScript(name, exe, prevInterp) })
		} else {
			hr, msg, err = installDropIn(path, serverScript(name, exe, ""))
		}
		if err != nil {
			return err
		}
		hr.Name = name
		res.Hooks = append(res.Hooks, hr)
		lines = append(lines, msg)
	}
	cur, _ := g.Line(ctx, "config", "--bool", "--get", "receive.advertisePushOptions")
	if cur != "true" {
		if _, err := g.Run(ctx, "config", "receive.advertisePushOptions", "true"); err != nil {
			return guard.Fail(guard.BadInput, "install --server: %w", err)
		}
		if _, err := g.Run(ctx, "config", pushOptionsMark, "true"); err != nil {
			return guard.Fail(guard.BadInput, "install --server: %w", err)
		}
		lines = append(lines, "set receive.advertisePushOptions = true (for git push -o guard.bypass=...)")
	}
	res.PushOptions = true
	if o.JSON {
		return guard.WriteJSON(o.Env.Stdout, "install", res)
	}
	for _, l := range lines {
		fmt.Fprintln(o.Env.Stdout, l)
	}
	if cfg, err := guard.FindServerConfig(r.CommonDir); err != nil {
		fmt.Fprintf(o.Env.Stderr, "guard: warning: %v; every push is refused until it is fixed\n", err)
	} else if layout == LayoutGit && cfg.Server.PusherEnv == "" {
		fmt.Fprintf(o.Env.Stderr, "guard: warning: no [server] pusher_env in a .guard.toml beside or above %s: outside GitLab and Gitea every push is refused until the pusher's variable is named (see docs/server.md)\n", r.CommonDir)
	}
	return nil
}

// serverScript is the hook file for one server hook: it runs `guard hook NAME` and,
// in the plain layout, the hook it kept (prevInterp as for script). git gives
// pre-receive and post-receive the ref lines on stdin once; both read a copy. A guard
// binary that is gone refuses the push (fail closed), but never fails post-receive,
// which runs after the refs were updated.
func serverScript(hook, exe, prevInterp string) string {
	return fmt.Sprintf(`#!/bin/sh
%s
# guard's server gate (guard hook %[2]s): refuses a push into an area locked by someone
# other than the pusher; see docs/server.md. A hook that was here before guard is kept as
# %[2]s%[3]s and still runs after guard's.
hook=%[2]s
guard_exe=%[4]s
prev_interp=%[5]s

`, Marker, hook, BackupSuffix, shellQuote(exe), shellQuote(prevInterp)) +
		chainPrelude(`		[ "$hook" = post-receive ] && exit 0
		echo "guard: refusing this push (fail closed); reinstall guard on the server." >&2
`, "") + `
if [ "$hook" = update ]; then
	"$guard_exe" hook "$hook" "$@" || exit $?
	run_prev "$@"
	exit $?
fi

` + replayRefs("", "guard-$hook")
}

// installDropIn writes guard's file into a <hook>.d folder, where the server's own
// dispatcher runs every file beside it: nothing needs chaining, and a file of the same
// name that guard did not write is left alone (refused).
func installDropIn(path, content string) (HookResult, string, error) {
	existing, err := os.ReadFile(path)
	switch {
	case err == nil && !IsGuardHook(existing):
		return HookResult{}, "", guard.Fail(guard.Refused, "install --server: %s is a file guard did not write; move it away and install again", path)
	case err == nil && string(existing) == content:
		return HookResult{Path: path, Action: "unchanged"}, "unchanged " + path, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return HookResult{}, "", guard.Fail(guard.BadInput, "install --server: %w", err)
	}
	if err := writeExecutable(path, []byte(content)); err != nil {
		return HookResult{}, "", guard.Fail(guard.BadInput, "install --server: %w", err)
	}
	return HookResult{Path: path, Action: "installed"}, "installed " + path, nil
}

// RunServerUninstall is guard uninstall --server: guard's hooks leave every layout's
// place, kept hooks go back, and receive.advertisePushOptions is turned off again if
// install --server turned it on.
func RunServerUninstall(ctx context.Context, o ServerOptions) error {
	r, g, err := o.openBare(ctx, "uninstall")
	if err != nil {
		return err
	}
	res := ServerResult{Repo: r.CommonDir, Layout: o.Layout}
	var lines []string
	problems := 0
	for _, layout := range []string{LayoutGit, LayoutGitLab, LayoutGitea} {
		for _, name := range ServerHooks {
			path := serverHookPath(layout, r, name)
			backup := path + BackupSuffix
			data, err := os.ReadFile(path)
			if err != nil {
				if _, lerr := os.Lstat(path); lerr != nil && layout == LayoutGit {
					if _, err := os.Lstat(backup); err == nil {
						if err := os.Rename(backup, path); err != nil {
							return guard.Fail(guard.BadInput, "uninstall --server: %w", err)
						}
						res.Hooks = append(res.Hooks, HookResult{Name: name, Path: path, Action: "restored"})
						lines = append(lines, "restored "+path)
					}
				}
				continue
			}
			if !IsGuardHook(data) {
				if _, err := os.Lstat(backup); err == nil && layout == LayoutGit {
					fmt.Fprintf(o.Env.Stderr, "guard: uninstall --server: %s is not guard's hook any more; left it and %s as they are\n", path, filepath.Base(backup))
					problems++
				}
				continue
			}
			if err := os.Remove(path); err != nil {
				return guard.Fail(guard.BadInput, "uninstall --server: %w", err)
			}
			hr := HookResult{Name: name, Path: path, Action: "removed"}
			lines = append(lines, "removed "+path)
			if _, err := os.Lstat(backup); err == nil && layout == LayoutGit {
				if err := os.Rename(backup, path); err != nil {
					return guard.Fail(guard.BadInput, "uninstall --server: restoring %s: %w", backup, err)
				}
				hr.Action = "restored"
				lines = append(lines, "restored "+path)
			}
			res.Hooks = append(res.Hooks, hr)
		}
	}
	if mark, _ := g.Line(ctx, "config", "--bool", "--get", pushOptionsMark); mark == "true" {
		_, _ = g.Run(ctx, "config", "--unset", "receive.advertisePushOptions")
		_, _ = g.Run(ctx, "config", "--unset", pushOptionsMark)
		lines = append(lines, "unset receive.advertisePushOptions (install --server had set it)")
	}
	cur, _ := g.Line(ctx, "config", "--bool", "--get", "receive.advertisePushOptions")
	res.PushOptions = cur == "true"
	if len(lines) == 0 {
		lines = append(lines, fmt.Sprintf("nothing to uninstall: no guard server hook in %s", r.CommonDir))
	}
	if o.JSON {
		if res.Hooks == nil {
			res.Hooks = []HookResult{}
		}
		if err := guard.WriteJSON(o.Env.Stdout, "uninstall", res); err != nil {
			return err
		}
	} else {
		for _, l := range lines {
			fmt.Fprintln(o.Env.Stdout, l)
		}
	}
	if problems > 0 {
		return guard.Explained(guard.Refused)
	}
	return nil
}

// ServerDoctorReport is `guard doctor --server --json`.
type ServerDoctorReport struct {
	Healthy bool `json:"healthy"`
	// OK is the verdict key every command's JSON shares (here: Healthy).
	OK     bool         `json:"ok"`
	Repo   string       `json:"repo"`
	Layout string       `json:"layout"`
	Hooks  []HookReport `json:"hooks"`
	// Config is the server's .guard.toml (the one beside or above the repository).
	Config ConfigReport `json:"config"`
	// Pusher says where the pusher's identity comes from.
	Pusher      string   `json:"pusher"`
	PushOptions bool     `json:"push_options"`
	BypassLog   string   `json:"bypass_log"`
	Bypasses    int      `json:"bypasses"`
	Problems    []string `json:"problems"`
}

// RunServerDoctor is guard doctor --server: the server hooks of a bare repository,
// the guard binary they run, the server's configuration, where the pusher's identity
// comes from and whether push options reach the hook. 0 healthy, 1 a problem, 2 no
// bare repository.
func RunServerDoctor(ctx context.Context, o ServerOptions) error {
	r, g, err := o.openBare(ctx, "doctor")
	if err != nil {
		return err
	}
	layout, err := serverLayout(o.Layout, r.CommonDir)
	if err != nil {
		return err
	}
	rep := ServerDoctorReport{Repo: r.CommonDir, Layout: layout, Hooks: []HookReport{}, Problems: []string{}, BypassLog: r.BypassLogPath()}
	for _, name := range ServerHooks {
		path := serverHookPath(layout, r, name)
		h, _ := hookState(o.Env, "", filepath.Dir(path), filepath.Base(path))
		h.Name = name
		switch {
		case h.State == "installed" && !h.GuardOK:
			rep.Problems = append(rep.Problems, fmt.Sprintf("%s: the guard binary it runs (%s) is gone and none is on PATH: every push is refused", path, h.Guard))
		case h.State != "installed" && name == "pre-receive":
			rep.Problems = append(rep.Problems, fmt.Sprintf("%s is %s: pushes are not checked; run guard install --server --repo %s", path, h.State, r.CommonDir))
		case h.State != "installed":
			rep.Problems = append(rep.Problems, fmt.Sprintf("%s is %s: accepted pushes are not recorded in the history", path, h.State))
		}
		rep.Hooks = append(rep.Hooks, h)
	}
	cfg, cerr := guard.FindServerConfig(r.CommonDir)
	if cerr != nil {
		rep.Config.Error = cerr.Error()
		rep.Problems = append(rep.Problems, cerr.Error()+": every push is refused until it is fixed")
	} else {
		rep.Config.Path = cfg.Path
		switch {
		case cfg.Server.PusherEnv != "":
			rep.Pusher = fmt.Sprintf("%s, else %s, else %s ([server] pusher_env)", guard.GitLabUserVar, guard.GiteaPusherVar, cfg.Server.PusherEnv)
		case layout == LayoutGitLab:
			rep.Pusher = guard.GitLabUserVar + " (GitLab)"
		case layout == LayoutGitea:
			rep.Pusher = guard.GiteaPusherVar + " (Gitea, Forgejo)"
		default:
			rep.Pusher = "none configured"
			rep.Problems = append(rep.Problems, fmt.Sprintf("no [server] pusher_env in a .guard.toml beside or above %s: outside GitLab and Gitea every push is refused (no pusher identity)", r.CommonDir))
		}
	}
	cur, _ := g.Line(ctx, "config", "--bool", "--get", "receive.advertisePushOptions")
	rep.PushOptions = cur == "true"
	if !rep.PushOptions {
		rep.Problems = append(rep.Problems, "receive.advertisePushOptions is off: git push -o guard.bypass=... cannot reach the hook (guard install --server turns it on)")
	}
	if entries, err := readBypassLog(rep.BypassLog); err == nil {
		rep.Bypasses = len(entries)
	}
	rep.Healthy = len(rep.Problems) == 0
	rep.OK = rep.Healthy
	if o.JSON {
		if err := guard.WriteJSON(o.Env.Stdout, "doctor", rep); err != nil {
			return err
		}
	} else {
		w := o.Env.Stdout
		fmt.Fprintf(w, "%s (bare, layout %s)\n", rep.Repo, rep.Layout)
		for _, h := range rep.Hooks {
			fmt.Fprintf(w, "  %s: %s (%s)\n", h.Name, h.State, h.Path)
		}
		fmt.Fprintf(w, "  config: %s\n", orNone(rep.Config.Path))
		fmt.Fprintf(w, "  pusher: %s\n", orNone(rep.Pusher))
		fmt.Fprintf(w, "  push options: %v\n", rep.PushOptions)
		fmt.Fprintf(w, "  bypasses: %d (%s)\n", rep.Bypasses, rep.BypassLog)
		for _, p := range rep.Problems {
			fmt.Fprintf(w, "  problem: %s\n", p)
		}
	}
	if !rep.Healthy {
		return guard.Explained(guard.Refused)
	}
	return nil
}
