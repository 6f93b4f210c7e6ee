package install

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/guardlocks/guard/guard"
)

// husky v9 (`npx husky init`, `husky` in package.json's prepare) sets core.hooksPath to
// .husky/_ and writes there, for every hook, a two-line dispatcher that sources
// .husky/_/h; h runs the user's script .husky/<hook> with `sh -e`, git's arguments and
// stdin, node_modules/.bin first on PATH, and exits with its status. A missing script
// runs nothing and lets git go on.

// huskyDispatch is the line of husky's per-hook dispatcher.
const huskyDispatch = `. "$(dirname "$0")/h"`

// isHuskyDispatcher reports whether a hook file is husky v9's dispatcher.
func isHuskyDispatcher(data []byte) bool {
	for _, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == huskyDispatch {
			return true
		}
	}
	return false
}

// isHuskyRunner reports whether .husky/_/h is husky's: it finds the script from $0's
// name one folder up and runs it with sh -e.
func isHuskyRunner(data []byte) bool {
	return bytes.Contains(data, []byte(`s=$(dirname "$(dirname "$0")")/$n`)) &&
		bytes.Contains(data, []byte(`sh -e "$s" "$@"`))
}

// examineHusky follows husky's dispatcher at hookPath to .husky/<name>.
func examineHusky(env *guard.Env, top, hookPath, name string) managed {
	m := managed{Manager: "husky"}
	hooksDir := filepath.Dir(hookPath)
	runner := filepath.Join(hooksDir, "h")
	data, err := os.ReadFile(runner)
	if err != nil || !isHuskyRunner(data) {
		m.Why = fmt.Sprintf("its dispatcher sources %s, which is not husky's runner (run `npm install` or `npx husky` to rewrite it)", relTo(top, runner))
		return m
	}
	script := filepath.Join(filepath.Dir(hooksDir), name)
	rel := relTo(top, script)
	src, err := os.ReadFile(script)
	if err != nil {
		m.Why = fmt.Sprintf("%s does not exist, so husky runs nothing for %s (add a line `guard hook %s%s` to it)", rel, name, name, huskyArgsHint(name))
		return m
	}
	var args []string
	if name == "pre-push" {
		args = pushArgs
	}
	call, why, near := findGuardCall(string(src), name, args, false)
	if why != "" && near {
		m.Why = rel + " " + why
		return m
	}
	if why != "" {
		m.Why = fmt.Sprintf("%s %s (add a line `guard hook %s%s`)", rel, why, name, huskyArgsHint(name))
		return m
	}
	m.Via = []string{fmt.Sprintf("%s line %d", rel, call.Line)}
	// h puts node_modules/.bin first on PATH (relative: hooks run at the top).
	m.Guard, m.GuardOK = guardProgram(env, top, call.Prog, filepath.Join(top, "node_modules", ".bin"))
	if env.Env("HUSKY") == "0" {
		m.Problems = append(m.Problems, "HUSKY=0 is set in this environment: husky's hooks run nothing while it is")
	}
	return m
}

func huskyArgsHint(name string) string {
	if name == "pre-push" {
		return ` "$@"`
	}
	return ""
}
