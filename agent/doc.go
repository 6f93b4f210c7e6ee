// Package agent answers coding agents' pre-tool hooks (Claude Code's and Codex's
// PreToolUse, Gemini CLI's BeforeTool) so that LOCK-SYSTEM locks and
// LOCK.permissions.json rules hold at the moment an agent acts, not only when it
// commits.
//
// ReadCall turns an agent's hook input into an agent-neutral Call; Decide is the one
// decision core: it asks guard's lock policy (the same one `guard check` uses) about
// the call's write targets and operations, the permissions files about the action, and
// guard's publication decision about publishing commands; WriteAnswer renders the
// verdict in the agent's format. AnalyzeBash reads a shell command conservatively for
// its obvious effects.
//
// What is guaranteed, and what is not: a write the package can see (a file tool's
// path, a shell command's redirections and the file arguments of common commands) into
// an area under someone else's active hard lock is denied; so is a publishing command
// under PRIVATE.txt, and whatever a permissions file denies. It is a guardrail, not a
// sandbox: what a command writes that is not on its command line (a script, a build, a
// path in a variable) is not seen, and such calls get no decision, which leaves them to
// the agent's own permission system. Input it cannot read is denied (fail closed).
//
// The package also installs the hook into the agents' settings files (RunInstall,
// RunUninstall) and implements claiming on write (short leases, see claim.go) and
// their release (RunRelease).
package agent
