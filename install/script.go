package install

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"
)

// Marker is the line that identifies a hook file written by guard. Anything in a
// hook's place without it is a foreign hook, which install keeps and chains.
const Marker = "# guard-managed-hook: written by `guard install`; `guard uninstall` removes it"

// BackupSuffix names where a foreign hook is moved aside: pre-commit becomes
// pre-commit.pre-guard, and guard's hook runs it after its own check.
const BackupSuffix = ".pre-guard"

// Hooks are the hooks guard installs by default: pre-commit for commits,
// pre-merge-commit for the merges git records by itself (`git merge --no-ff`, which
// runs no pre-commit), pre-push for what leaves the repository.
var Hooks = []string{"pre-commit", "pre-merge-commit", "pre-push"}

// script returns the hook file for hook. exe is the guard binary recorded at install
// (the hook falls back to `guard` on PATH, and fails closed when neither exists);
// prevInterp is the shell that runs the chained foreign hook by sourcing it, or "" to
// execute it directly (see shellInterpreter).
func script(hook, exe, prevInterp string) string {
	verb := "commit"
	switch hook {
	case "pre-push":
		verb = "push"
	case "pre-merge-commit":
		verb = "merge"
	}
	return fmt.Sprintf(`#!/bin/sh
%s
# Refuses a %[3]s that touches an area under someone else's LOCK file (guard hook %[2]s).
# Bypass once, with an audit trail: GUARD_BYPASS="<reason>" git %[3]s ...
# A hook that was here before guard is kept as %[2]s%[4]s and still runs after guard.
hook=%[2]s
guard_exe=%[5]s
prev_interp=%[6]s

`, Marker, hook, verb, BackupSuffix, shellQuote(exe), shellQuote(prevInterp)) +
		chainPrelude(fmt.Sprintf(`		echo "guard: refusing this %[1]s (fail closed). Reinstall guard and run 'guard install', or skip the hook once with 'git %[1]s --no-verify'." >&2
`, verb), `		# Sourced so that $0 stays the hook's own name: hook managers such as husky
		# dispatch on it.
`) + `
if [ "$hook" = pre-push ]; then
	# git gives the pushed refs on stdin once; both guard and the kept hook read them.
` + replayRefs("\t", "guard-pre-push") + `fi

"$guard_exe" hook "$hook" "$@" || exit $?
run_prev "$@"
`
}

// chainPrelude is the middle of every hook file guard writes, after the file has set
// hook, guard_exe and prev_interp: it finds guard (the recorded binary, else guard on
// PATH; when neither is there it says so, then failLines, and fails closed), defines
// run_prev, which runs the kept hook (prevNote: comment lines inside it), and hands
// the hook to guard alone when none was kept.
func chainPrelude(failLines, prevNote string) string {
	return `if [ ! -x "$guard_exe" ]; then
	if command -v guard >/dev/null 2>&1; then
		guard_exe=$(command -v guard)
	else
		echo "guard: the $hook hook cannot run: guard is gone from $guard_exe and is not on PATH." >&2
` + failLines + `		exit 2
	fi
fi

prev="$(dirname "$0")/$hook` + BackupSuffix + `"
run_prev() {
	if [ -n "$prev_interp" ]; then
` + prevNote + `		GUARD_PREV_HOOK="$prev" $prev_interp -c '. "$GUARD_PREV_HOOK"' "$0" "$@"
	else
		"$prev" "$@"
	fi
}

if [ ! -f "$prev" ] || [ ! -x "$prev" ]; then
	exec "$guard_exe" hook "$hook" "$@"
fi
`
}

// replayRefs runs guard's hook and then the kept one on one copy of the ref lines
// that git gives on stdin once (pre-push, pre-receive, post-receive), each line
// indented by indent; the copy is a temporary file named after name.
func replayRefs(indent, name string) string {
	lines := []string{
		`refs=$(mktemp "${TMPDIR:-/tmp}/` + name + `.XXXXXX") || { echo "guard: cannot create a temporary file; refusing (fail closed)" >&2; exit 2; }`,
		`trap 'rm -f "$refs"' EXIT`,
		`trap 'exit 2' HUP INT TERM`,
		`cat >"$refs" || exit 2`,
		`"$guard_exe" hook "$hook" "$@" <"$refs" || exit $?`,
		`run_prev "$@" <"$refs"`,
		`exit $?`,
	}
	return indent + strings.Join(lines, "\n"+indent) + "\n"
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// IsGuardHook reports whether the hook file content was written by guard.
func IsGuardHook(content []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(content))
	for i := 0; sc.Scan() && i < 5; i++ {
		if strings.TrimSpace(sc.Text()) == Marker {
			return true
		}
	}
	return false
}

// RecordedExecutable returns the guard path a hook file recorded at install.
func RecordedExecutable(content []byte) (string, bool) {
	for _, line := range strings.Split(string(content), "\n") {
		q, ok := strings.CutPrefix(line, "guard_exe=")
		if !ok || len(q) < 2 || q[0] != '\'' || q[len(q)-1] != '\'' {
			continue
		}
		return strings.ReplaceAll(q[1:len(q)-1], `'\''`, "'"), true
	}
	return "", false
}

// shells are the interpreters whose hooks can be sourced under the hook's own name.
var shells = []string{"sh", "bash", "dash", "ksh", "zsh"}

// shellInterpreter returns the interpreter line of a POSIX-shell hook ("/bin/sh",
// "/usr/bin/env bash -e"), or "" for any other program. guard runs a kept shell hook by
// sourcing it under the hook's own name ($0), because hook managers such as husky v9
// find the user's script from $0's name; other programs are executed as they are.
func shellInterpreter(file string) string {
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
	interp, ok := strings.CutPrefix(line, "#!")
	if !ok {
		return ""
	}
	words := strings.Fields(interp)
	if len(words) == 0 {
		return ""
	}
	prog := path.Base(words[0])
	if prog == "env" && len(words) > 1 {
		prog = words[1]
	}
	if !slices.Contains(shells, prog) {
		return ""
	}
	return strings.TrimSpace(interp)
}
