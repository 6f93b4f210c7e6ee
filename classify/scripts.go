package classify

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Package managers run package.json scripts (npm run release, yarn release, pnpm
// release, bun run release) and the programs of installed packages (yarn np, pnpm
// semantic-release, bun x np). guard reads both: a script whose commands publish, or
// a program that publishes, makes the command publish. Anything else they run is not
// judged (a build script publishes nothing guard can see), as before.

// maxManifest is the size of package.json guard reads; a larger one is not read.
const maxManifest = 1 << 20

// npmScriptCommands are npm's commands that run a script of the same name, with its
// pre and post scripts.
var npmScriptCommands = map[string]bool{"test": true, "t": true, "tst": true, "start": true, "stop": true, "restart": true}

// scriptRunnerReadings reads the script or program a package manager runs: npm
// run X (and npm test), yarn/pnpm/bun run X, and yarn/pnpm/bun X for an X that is
// not one of their own commands. ok is false when words run neither.
func scriptRunnerReadings(prog string, rest []string, dir string) ([]reading, bool) {
	var valued []string
	var builtins map[string]bool
	switch prog {
	case "npm":
		valued = npmValued
	case "yarn":
		valued, builtins = []string{"--cwd"}, yarnBuiltins
	case "pnpm":
		valued, builtins = pnpmValued, pnpmBuiltins
	case "bun":
		valued, builtins = bunValued, bunBuiltins
	default:
		return nil, false
	}
	a := newArgs(rest, valued...)
	pos := a.positionals()
	if len(pos) == 0 {
		return nil, false
	}
	dir = a.dirFlag(dir, "--prefix", "-C", "--dir", "--cwd")
	name, args := "", []string(nil)
	at := slices.Index(rest, pos[0])
	switch {
	case slices.Contains([]string{"run", "run-script", "rum", "urn"}, pos[0]) && len(pos) > 1:
		name = pos[1]
		args = rest[slices.Index(rest[at+1:], pos[1])+at+2:]
	case prog == "npm" && npmScriptCommands[pos[0]]:
		name = map[string]string{"t": "test", "tst": "test"}[pos[0]]
		if name == "" {
			name = pos[0]
		}
	case prog != "npm" && !builtins[pos[0]]:
		name, args = pos[0], rest[at+1:]
	default:
		return nil, false
	}
	out := scriptReadings(dir, name)
	if prog != "npm" {
		// yarn, pnpm and bun run an installed package's program of that name when
		// no script has it (and bun a file).
		out = append(out, reading{words: append([]string{name}, args...), dir: dir})
	}
	return out, true
}

// scriptReadings are the commands of the package.json script name (with its pre and
// post scripts) of the package that holds dir, each read as a simple command.
func scriptReadings(dir, name string) []reading {
	manifest, root := findManifest(dir)
	if manifest == nil {
		return nil
	}
	var out []reading
	for _, n := range []string{"pre" + name, name, "post" + name} {
		for _, cmd := range splitScript(manifest.Scripts[n]) {
			out = append(out, reading{words: cmd, dir: root})
		}
	}
	return out
}

type packageManifest struct {
	Scripts map[string]string `json:"scripts"`
}

// findManifest reads the package.json of the package that holds dir (the nearest
// one in dir or above), as npm finds the package it runs scripts of; nil when there
// is none or it cannot be read.
func findManifest(dir string) (*packageManifest, string) {
	for d := dir; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "package.json")
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			var m packageManifest
			if !readJSON(p, &m) {
				return nil, d
			}
			return &m, d
		}
		if filepath.Dir(d) == d {
			return nil, dir
		}
	}
}

// splitScript splits a script's shell text into its simple commands (at &&, ||, ;,
// |, & and newlines) and their words, dropping the quotes around words. It is not a
// shell: it reads the common forms ("npm run build && npm publish", "np --yolo").
func splitScript(text string) [][]string {
	if text == "" {
		return nil
	}
	for _, sep := range []string{"&&", "||", ";", "|", "&", "\n", "(", ")"} {
		text = strings.ReplaceAll(text, sep, "\x00")
	}
	var out [][]string
	for _, part := range strings.Split(text, "\x00") {
		var words []string
		for _, w := range strings.Fields(part) {
			if w = strings.Trim(w, `"'`); w != "" {
				words = append(words, w)
			}
		}
		if len(words) > 0 {
			out = append(out, words)
		}
	}
	return out
}

// The package managers' own commands: any other word runs a script or a program.
var (
	yarnBuiltins = setOf("add", "bin", "cache", "config", "constraints", "dedupe", "dlx", "exec", "explain", "info", "init", "install", "link", "node", "npm", "pack", "patch", "patch-commit", "plugin", "rebuild", "remove", "run", "search", "set", "stage", "unlink", "unplug", "up", "upgrade", "upgrade-interactive", "version", "why", "workspace", "workspaces", "publish", "login", "logout", "owner", "tag", "team", "audit", "autoclean", "check", "create", "generate-lock-entry", "global", "help", "import", "outdated", "policies", "licenses", "list", "import", "access", "--version", "-v")
	pnpmBuiltins = setOf("add", "install", "i", "update", "up", "upgrade", "remove", "rm", "uninstall", "un", "link", "ln", "unlink", "import", "rebuild", "rb", "prune", "fetch", "install-test", "it", "patch", "patch-commit", "patch-remove", "audit", "list", "ls", "outdated", "why", "licenses", "run", "run-script", "test", "t", "tst", "exec", "dlx", "create", "start", "publish", "pack", "recursive", "m", "multi", "server", "store", "root", "bin", "setup", "init", "deploy", "doctor", "config", "c", "env", "cat-file", "cat-index", "find-hash", "help", "dedupe", "self-update", "ignored-builds", "approve-builds", "login", "logout", "whoami", "view", "info", "show", "dist-tag", "version", "cache", "stage", "owner", "access", "search", "s", "star", "unstar", "stars")
	bunBuiltins  = setOf("run", "test", "x", "repl", "exec", "install", "i", "add", "a", "remove", "rm", "update", "outdated", "link", "unlink", "publish", "patch", "pm", "info", "build", "init", "create", "c", "upgrade", "audit", "why", "help", "completions", "discord", "getcompletes", "ci")
)

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}
