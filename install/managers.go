package install

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/guardlocks/guard/guard"
)

// The README's recipes put guard behind a hook manager instead of guard's own hook:
// husky runs .husky/<hook>, lefthook runs the commands of lefthook.yml, the pre-commit
// framework runs its <hook>.legacy and the hooks of .pre-commit-config.yaml. Doctor
// follows each manager's own hook to what it really runs, and counts guard as running
// only where a refusal of guard's refuses the commit or push: a call whose exit status
// is ignored, or a command the manager may skip, is not guard running.

// managed is what doctor found behind a hook a manager wrote.
type managed struct {
	// Manager is "husky", "lefthook" or "pre-commit"; "" when no manager was recognised.
	Manager string
	// Via are the places that run guard for the hook ("" entries are never added).
	Via []string
	// Why says why guard does not run, when Via is empty.
	Why string
	// Guard is the guard binary the manager runs, GuardOK whether it is there; Legacy
	// is set when it is guard's own hook, kept by the manager (its recorded binary
	// and PATH fallback then apply as for an installed hook).
	Guard    string
	GuardOK  bool
	Fallback string
	Legacy   string
	// Problems are further reasons the hook may not do its work (guard not found,
	// the manager switched off in this environment).
	Problems []string
}

// examineManaged recognises the manager that wrote the hook file path (content data)
// for hook name and finds whether it runs guard. top is the working tree's top ("" in
// a bare repository).
func examineManaged(env *guard.Env, top, path, name string, data []byte) managed {
	switch {
	case isHuskyDispatcher(data):
		return examineHusky(env, top, path, name)
	case isLefthookHook(data, name):
		return examineLefthook(env, top, name, data)
	case isPreCommitFrameworkHook(data):
		return examinePreCommitFramework(env, top, path, name, data)
	}
	return managed{}
}

// reinstallHint is the command that writes manager's hook for name again.
func reinstallHint(manager, name string) string {
	switch manager {
	case "husky":
		return "npx husky"
	case "lefthook":
		return "lefthook install"
	}
	return "pre-commit install --hook-type " + name
}

// guardOnPath is the guard that a manager's `guard ...` command finds: the first on the
// environment's PATH, after the folders the manager puts in front of it.
func guardOnPath(env *guard.Env, first ...string) (string, bool) {
	for _, d := range first {
		if p := filepath.Join(d, "guard"); executable(p) {
			return p, true
		}
	}
	if p := lookPath(env, "guard"); p != "" {
		return p, true
	}
	return "guard", false
}

// guardProgram returns the guard a command runs: an absolute or relative path as
// written (relative to top, where hooks run), else the one found on PATH.
func guardProgram(env *guard.Env, top, prog string, first ...string) (string, bool) {
	if strings.Contains(prog, "/") {
		if !filepath.IsAbs(prog) {
			prog = filepath.Join(top, prog)
		}
		return prog, executable(prog)
	}
	return guardOnPath(env, first...)
}

// guardCall is a command line that runs `guard hook NAME ...`.
type guardCall struct {
	Prog string // the program word: guard, or a path to it
	Line int    // the line of the script it is on (1-based)
}

// pushArgs are the spellings that hand git's REMOTE and URL on to `guard hook
// pre-push`: without them guard cannot tell what the push publishes and refuses it.
var pushArgs = []string{`"$@"`, `$@`, `"$1" "$2"`, `$1 $2`}

// findGuardCall looks in the shell script src for a statement that runs guard's hook
// name as a command of its own at the script's top level, so that its exit status
// ends the script under `sh -e` (husky) or is the script's status (lefthook's run:
// when it is the last one). A call inside `||`, `&&`, `!`, a pipeline, a condition,
// a function or a background job is not one: its refusal could be lost. args are the
// spellings accepted for the arguments after the hook name (nil: anything).
// lastOnly requires the call to be the script's last statement (a shell without -e
// goes on after a failing command).
//
// why is "" when a call was found; near tells whether the script has a `guard hook
// NAME` that does not count (why then says what is wrong with it).
func findGuardCall(src, name string, args []string, lastOnly bool) (call guardCall, why string, near bool) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		return guardCall{}, fmt.Sprintf("cannot be read as a shell script (%v)", err), false
	}
	want := "guard hook " + name
	why = "has no command `" + want + "` of its own"
	errexit := true
	for i, st := range f.Stmts {
		call, ok := st.Cmd.(*syntax.CallExpr)
		if !ok || st.Negated || st.Background || st.Coprocess || len(call.Args) == 0 {
			continue
		}
		words := make([]string, len(call.Args))
		for j, w := range call.Args {
			words[j] = printWord(w)
		}
		switch words[0] {
		case "exit", "exec":
			if words[0] == "exit" || len(words) == 1 {
				// Nothing after an exit runs (exec without a command only redirects).
				if words[0] == "exit" {
					return guardCall{}, fmt.Sprintf("exits on line %d before any `%s`", st.Pos().Line(), want), near
				}
				continue
			}
			words = words[1:]
		case "set":
			errexit = setErrexit(words[1:], errexit)
			continue
		}
		if len(words) < 3 || filepath.Base(words[0]) != "guard" || words[1] != "hook" || words[2] != name {
			continue
		}
		if args != nil && !acceptedArgs(words[3:], args) {
			why, near = fmt.Sprintf("runs `%s` on line %d without git's arguments (write `%s %s`)", strings.Join(words, " "), st.Pos().Line(), want, args[0]), true
			continue
		}
		if (lastOnly || !errexit) && i != len(f.Stmts)-1 {
			why, near = fmt.Sprintf("runs `%s` on line %d, but goes on after it fails (make it the last command)", want, st.Pos().Line()), true
			continue
		}
		return guardCall{Prog: words[0], Line: int(st.Pos().Line())}, "", true
	}
	return guardCall{}, why, near
}

// setErrexit is whether `set ARGS` leaves the shell exiting on a failing command.
func setErrexit(args []string, on bool) bool {
	for k, a := range args {
		switch {
		case a == "--":
			return on
		case (a == "-o" || a == "+o") && k+1 < len(args) && args[k+1] == "errexit":
			on = a == "-o"
		case len(a) > 1 && (a[0] == '-' || a[0] == '+') && a[1] != 'o' && strings.ContainsRune(a[1:], 'e'):
			on = a[0] == '-'
		}
	}
	return on
}

func acceptedArgs(got, accepted []string) bool {
	s := strings.Join(got, " ")
	for _, a := range accepted {
		if s == a {
			return true
		}
	}
	return false
}

// printWord is a word as written in the script (quotes kept).
func printWord(w *syntax.Word) string {
	if lit := w.Lit(); lit != "" {
		return lit
	}
	var b strings.Builder
	_ = syntax.NewPrinter().Print(&b, w)
	return b.String()
}

// relTo names p relative to top when it is inside it (as the README's recipes do).
func relTo(top, p string) string {
	if top != "" {
		if r, err := filepath.Rel(top, p); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
	}
	return p
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}
