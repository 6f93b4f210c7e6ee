package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/hooks"
	"github.com/guardlocks/guard/internal/gitrun"
	"github.com/guardlocks/guard/publish"
)

// newHookCmd is what the installed git hooks run.
func newHookCmd(env *guard.Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hook",
		Short: "Run a git hook's check (what `guard install` wires into git)",
		Long: "Run a git hook's check. Exit 0 lets git go on, 1 refuses (a lock or a marker said no),\n" +
			"2 is an internal error (fail closed). GUARD_BYPASS=\"<reason>\" lets a refusal through\n" +
			"and records it in <git-common-dir>/guard/bypass.log.",
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return guard.Exitf(guard.ExitUsage, "hook: name a hook: pre-commit, pre-merge-commit or pre-push")
		},
	}
	cmd.AddCommand(
		&cobra.Command{
			Use:   "pre-commit",
			Short: "Refuse a commit that stages paths under someone else's lock, or a publication marker",
			Args:  usageArgs(cobra.NoArgs),
			RunE: func(cmd *cobra.Command, args []string) error {
				return hooks.RunPreCommit(cmd.Context(), env)
			},
		},
		&cobra.Command{
			Use:   "pre-merge-commit",
			Short: "Refuse a merge that brings changes into an area under someone else's lock, or a publication marker",
			Args:  usageArgs(cobra.NoArgs),
			RunE: func(cmd *cobra.Command, args []string) error {
				return hooks.RunPreMergeCommit(cmd.Context(), env)
			},
		},
		&cobra.Command{
			Use:   "pre-push REMOTE URL",
			Long:  "Reads git's pre-push ref lines on stdin. Run without arguments by the pre-commit framework,\nit reads PRE_COMMIT_REMOTE_NAME, PRE_COMMIT_LOCAL_BRANCH, PRE_COMMIT_TO_REF, ... instead.",
			Short: "Refuse a push that publishes paths under someone else's lock (ref lines on stdin)",
			Args:  usageArgs(cobra.RangeArgs(0, 2)),
			RunE: func(cmd *cobra.Command, args []string) error {
				// Without arguments (the pre-commit framework), the push is described in
				// PRE_COMMIT_* variables.
				var remote, url string
				if len(args) > 0 {
					remote = args[0]
				}
				if len(args) > 1 {
					url = args[1]
				}
				if err := hooks.RunPrePush(cmd.Context(), env, remote, url, env.Stdin); err != nil {
					return err
				}
				if url == "" {
					url = env.Env("PRE_COMMIT_REMOTE_URL")
				}
				return prePushVisibility(cmd.Context(), env, remote, url)
			},
		},
	)
	return cmd
}

// prePushVisibility runs after the lock checks passed: a project under PRIVATE.txt
// must not be pushed to a public GitHub repository (publish.PushVisibility, bounded
// to 2 s). GUARD_BYPASS lets its refusal through too, recorded in the bypass log.
func prePushVisibility(ctx context.Context, env *guard.Env, remote, url string) error {
	// git runs hooks at the working tree's top: without a PRIVATE.txt there or above,
	// there is nothing to check and no git process to start.
	if len(guard.FindMarkers(env.Dir).Private) == 0 {
		return nil
	}
	repo, err := gitrun.OpenRepo(ctx, gitrun.New(env.Dir, env.Env))
	if err != nil || repo.Top == "" {
		// The lock checks above already judged this repository; say that the
		// visibility could not be checked rather than stay silent under PRIVATE.txt.
		fmt.Fprintf(env.Stderr, "guard: warning: pre-push: PRIVATE.txt governs %s but the repository could not be opened to check the remote's visibility: %v\n", env.Dir, err)
		return nil
	}
	warning, err := publish.PushVisibility(ctx, publish.VisibilityOptions{
		Env: env, Dir: repo.Top, GitCommonDir: repo.CommonDir, RemoteURL: url})
	if warning != "" {
		fmt.Fprintln(env.Stderr, warning)
	}
	var ee *guard.ExitError
	reason := strings.TrimSpace(env.Env("GUARD_BYPASS"))
	if err == nil || reason == "" || !errors.As(err, &ee) || ee.Code != guard.ExitRefused {
		return err
	}
	logPath, lerr := hooks.RecordBypass(env, repo, "pre-push", remote, url, reason, []string{guard.OpPush}, err)
	if lerr != nil {
		fmt.Fprintf(env.Stderr, "guard: pre-push: GUARD_BYPASS is set but the bypass cannot be recorded: %v\n", lerr)
		return err
	}
	fmt.Fprintf(env.Stderr, "guard: %v\nguard: pre-push: GUARD_BYPASS set (%q): letting this push through; recorded in %s\n", err, reason, logPath)
	return nil
}
