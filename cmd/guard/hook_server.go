package main

import (
	"runtime"

	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/hooks"
	"github.com/guardlocks/guard/install"
)

// serverHookCmds are the hooks of a git server's bare repository (CONTRACT.md section
// 13), which `guard install --server` wires in.
func serverHookCmds(env *guard.Env) []*cobra.Command {
	return []*cobra.Command{
		{
			Use:   "pre-receive",
			Short: "On a git server: refuse a push into an area locked by someone other than the pusher (ref lines on stdin)",
			Long: "Run by git in a bare repository before it updates any ref. Reads `OLD NEW REF` lines on stdin.\n" +
				"The pusher is GL_USERNAME (GitLab), GITEA_PUSHER_NAME (Gitea, Forgejo), else the variable\n" +
				"[server] pusher_env names in the .guard.toml beside or above the repository; GUARD_OWNER is\n" +
				"never used. Exit 0 accepts the push, 1 refuses it, 2 when it cannot be judged (fail closed).\n" +
				"A user in [server] bypass_users may push with -o guard.bypass=\"<reason>\", which is recorded.",
			Args: usageArgs(cobra.NoArgs),
			RunE: func(cmd *cobra.Command, args []string) error {
				defer oneProc(env)()
				return hooks.RunPreReceive(cmd.Context(), env, env.Stdin)
			},
		},
		{
			Use:   "update REF OLD NEW",
			Short: "On a git server: the pre-receive judgement for one ref (git's update hook)",
			Args:  usageArgs(cobra.ExactArgs(3)),
			RunE: func(cmd *cobra.Command, args []string) error {
				defer oneProc(env)()
				return hooks.RunUpdate(cmd.Context(), env, args[0], args[1], args[2])
			},
		},
		{
			Use:   "post-receive",
			Short: "On a git server: record a history event (pushed) for every accepted ref update",
			Args:  usageArgs(cobra.NoArgs),
			RunE: func(cmd *cobra.Command, args []string) error {
				return hooks.RunPostReceive(cmd.Context(), env, env.Stdin)
			},
		},
	}
}

// serverFlags adds --server and --layout to install or doctor.
func serverFlags(cmd *cobra.Command, server *bool, layout *string, usage string) {
	cmd.Flags().BoolVar(server, "server", false, usage)
	cmd.Flags().StringVar(layout, "layout", install.LayoutAuto, "with --server: where the server runs hooks: git (hooks/), gitlab (custom_hooks/<hook>.d/), gitea (hooks/<hook>.d/), or auto")
}

// serverOptions are the server side's options from a clone's install options.
func serverOptions(env *guard.Env, o install.Options, layout string) install.ServerOptions {
	return install.ServerOptions{Env: env, Repo: o.Repo, Layout: layout, Force: o.Force, JSON: o.JSON}
}

// oneProc runs the receiving hook's Go code on one processor (unless GOMAXPROCS says
// otherwise) and returns the undo. The hook mostly waits for git's walk of the pushed
// commits; with fewer Go threads runnable the server's other cores stay with git:
// bench/prereceive.sh's median went from 1.78x to 1.61x of the baseline on two cores.
func oneProc(env *guard.Env) func() {
	if env.Env("GOMAXPROCS") != "" {
		return func() {}
	}
	prev := runtime.GOMAXPROCS(1)
	return func() { runtime.GOMAXPROCS(prev) }
}
