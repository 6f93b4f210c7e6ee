package main

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/agent"
	"github.com/guardlocks/guard/ci"
	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/install"
	"github.com/guardlocks/guard/lockcore"
)

// The value tables are functions, not package variables: a map literal at package
// level is built at start-up, and every hook call starts guard; these are read only
// by completion and by the flags they close.

// flagValues are the values shell completion offers, by flag name, wherever a command
// has that flag. One table, so that a new command with --op or --mode completes without
// wiring of its own.
func flagValues() map[string][]string {
	return map[string][]string{
		"op":     guard.KnownOps,
		"format": {ci.FormatText, ci.FormatJSON, ci.FormatGitHub},
		"hooks":  install.Hooks,
		"mode":   {"hard", "soft"},
		"hook":   agent.Agents,
		"event":  guard.Events,
		"layout": {install.LayoutAuto, install.LayoutGit, install.LayoutGitLab, install.LayoutGitea},
	}
}

// closedFlags are the flags of flagValues that take nothing else: a value outside the
// list is refused while the flags are parsed (closeValues). --op is open: any word is
// an operation a lock may list.
func closedFlags() map[string][]string {
	v := flagValues()
	delete(v, "op")
	return v
}

// argValues are the closed values of a command's first argument, by command name.
func argValues() map[string][]string {
	return map[string][]string{"agent-hook": agent.Agents, "agent-install": agent.Agents, "agent-uninstall": agent.Agents}
}

// valueHelp describes each value completion offers (zsh, fish and PowerShell show it
// beside the value).
func valueHelp() map[string]string {
	return map[string]string{
		// operations
		guard.OpEdit:             "change files in the area (the default of check)",
		guard.OpCommit:           "commit changes to the area",
		guard.OpPush:             "push commits that touch the area",
		guard.OpReleaseTag:       "tag a release",
		guard.OpPublishRelease:   "publish a release (PRIVATE.txt refuses it)",
		guard.OpRegistryUpload:   "upload a package to a registry (PRIVATE.txt refuses it)",
		guard.OpVisibilityPublic: "make a repository public (PRIVATE.txt refuses it)",
		// formats
		ci.FormatText:   "lines for a person",
		ci.FormatJSON:   "one JSON document on stdout",
		ci.FormatGitHub: "GitHub Actions annotations and a step summary",
		// hooks
		"pre-commit":       "refuse commits into others' locked areas",
		"pre-merge-commit": "refuse merges into others' locked areas",
		"pre-push":         "refuse pushes of others' locked areas",
		// modes
		"hard": "the lock refuses",
		"soft": "the lock only warns",
		// agents
		agent.Claude: "Claude Code",
		agent.Gemini: "Gemini CLI",
		agent.Codex:  "OpenAI Codex CLI",
		// events
		guard.EventAcquired:  "a lock was claimed",
		guard.EventRenewed:   "a lock was renewed",
		guard.EventReleased:  "a lock was released",
		guard.EventExpired:   "a lock was found expired",
		guard.EventTakenOver: "an expired lock was taken over",
		guard.EventPruned:    "an expired lock was pruned",
		guard.EventWaiting:   "a claim started waiting",
		guard.EventRefused:   "a gate refused",
		guard.EventBypassed:  "a refusal was let through by GUARD_BYPASS",
		guard.EventPushed:    "a git server accepted a push",
		// server layouts
		install.LayoutAuto:   "pick the layout from the repository's folder",
		install.LayoutGit:    "a plain bare repository: hooks/",
		install.LayoutGitLab: "GitLab: custom_hooks/<hook>.d/",
		install.LayoutGitea:  "Gitea, Forgejo: hooks/<hook>.d/",
	}
}

// withHelp pairs each value with its description, cobra's "value\tdescription".
func withHelp(values []string) []string {
	help := valueHelp()
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = cobra.CompletionWithDesc(v, help[v])
	}
	return out
}

// heldLockCommands complete their first argument with the lock files of the
// directory being completed (the working directory, or the folder typed so far).
var heldLockCommands = map[string]bool{"unlock": true, "renew": true}

// addCompletions registers flagValues, the agent names and the lock names on every
// command of the tree.
func addCompletions(env *guard.Env, root *cobra.Command) {
	completeTree(env, root, flagValues(), argValues())
}

// completeTree is addCompletions below one command, with the tables built once per
// tree rather than once per command (every start builds the tree).
func completeTree(env *guard.Env, cmd *cobra.Command, flagVals, argVals map[string][]string) {
	for name, values := range flagVals {
		if cmd.Flags().Lookup(name) == nil {
			continue
		}
		values := values
		_ = cmd.RegisterFlagCompletionFunc(name, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return withHelp(values), cobra.ShellCompDirectiveNoFileComp
		})
	}
	if values, ok := argVals[cmd.Name()]; ok && cmd.ValidArgsFunction == nil {
		cmd.ValidArgsFunction = func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return withHelp(values), cobra.ShellCompDirectiveNoFileComp
		}
	}
	if heldLockCommands[cmd.Name()] && cmd.ValidArgsFunction == nil {
		cmd.ValidArgsFunction = func(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return lockNames(env, toComplete)
		}
	}
	for _, c := range cmd.Commands() {
		completeTree(env, c, flagVals, argVals)
	}
}

// lockNames are the lock files in the folder toComplete is in (relative to the working
// directory), each described by its owner and what remains of it; no lock there falls
// back to the shell's folder completion (unlock and renew also take a DIR). One
// directory listing: no walk, no network.
func lockNames(env *guard.Env, toComplete string) ([]string, cobra.ShellCompDirective) {
	prefix := ""
	if i := strings.LastIndexAny(toComplete, `/`+string(filepath.Separator)); i >= 0 {
		prefix = toComplete[:i+1]
	}
	dir := prefix
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(env.Dir, dir)
	}
	locks, err := lockcore.ReadDir(dir, time.Local)
	if err != nil || len(locks) == 0 {
		return nil, cobra.ShellCompDirectiveFilterDirs
	}
	now := env.Clock.Now()
	var out []string
	for _, l := range locks {
		desc := l.Owner
		if desc == "" {
			desc = "no owner"
		}
		out = append(out, cobra.CompletionWithDesc(prefix+filepath.Base(l.Path), desc+", "+l.Remaining(now)))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
