// Package agent answers coding agents' pre-tool hooks (Claude Code's and Codex's
// PreToolUse, Gemini CLI's BeforeTool) so that LOCK-SYSTEM locks and
// LOCK.permissions.json rules hold at the moment an agent acts, not only when it
// commits.
//
// ReadCall turns an agent's hook input into an agent-neutral Call; Decide is the one
// decision core: it asks guard's lock policy (the same one `guard check` uses) about
// the call's write targets and operations, the permissions files about the action, and
// guard's publication decision about publishing commands; WriteAnswer renders the
// verdict in the agent's format. AnalyzeBash reads a shell command with a real bash
// parser (mvdan.cc/sh) for its effects, seeing through wrappers with the cmdline
// package and resolving braces and globs against the file system.
//
// What is guaranteed, and what is not: a write the package can see (a file tool's
// path, a shell command's redirections and the file arguments of the programs it
// knows) into an area under someone else's active hard lock is denied; so is a
// publishing command under PRIVATE.txt, and whatever a permissions file denies. A
// command it cannot read (a syntax error, a command too long or too deep, a target
// only known when it runs) is asked about whenever a lock that would refuse the agent
// lies in the command's working tree, and allowed with a warning elsewhere (CONTRACT.md
// section 4). It is a guardrail, not a sandbox: what interpreter code, a build or a
// script writes is not seen; such calls are allowed with a warning, or asked about
// near a lock with [agent] strict. Input it cannot read is denied (fail closed).
//
// The package also installs the hook into the agents' settings files (RunInstall,
// RunUninstall) and implements claiming on write (short leases, see claim.go) and
// their release (RunRelease).
package agent
