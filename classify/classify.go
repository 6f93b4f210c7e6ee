// Package classify tells which publication operation a command line performs and on
// which project (Classify): the registry uploads, releases and visibility changes of
// the tools it knows, through wrappers, runners and package scripts, and the commands
// a project's [publish.commands] maps. The publish wrapper and the agent hook both ask
// it; whether the operation is allowed is guard.CheckPublication's decision.
package classify

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/cmdline"
)

// The publication operations (CONTRACT.md section 2).
const (
	OpRegistryUpload   = guard.OpRegistryUpload
	OpPublishRelease   = guard.OpPublishRelease
	OpVisibilityPublic = guard.OpVisibilityPublic
)

// Classification is what a command would publish and where.
type Classification struct {
	// Op is the publication operation the command performs, or "" when it publishes
	// nothing (gh repo create --private, npm install, ...).
	Op string
	// ProjectDir is the absolute directory of the project the command acts on: the
	// working directory unless the command names another (npm publish ./pkg,
	// --prefix, -C, cargo --manifest-path, gh repo create --source).
	ProjectDir string
	// Projects are every project whose markers and locks decide, ProjectDir first:
	// a command that uploads artifacts built elsewhere (twine upload ../a/dist/*
	// ../b/dist/*, gh release create v1 ../priv/app.zip) publishes each of them.
	Projects []string
	// DryRun is set for a form that only rehearses the publication
	// (npm publish --dry-run, goreleaser release --snapshot): it runs unguarded.
	DryRun bool
	// Known is false when guard cannot tell what the command does; guard publish
	// refuses such a command (2) unless .guard.toml maps it.
	Known bool
	// Why says, for people, what the classification rests on.
	Why string
	// Words are the command words that name the command (the program and its
	// subcommands), as [publish.commands] would spell them.
	Words []string
}

// Publishes reports whether running the command must be guarded: it is known to
// publish and is not a dry run.
func (c Classification) Publishes() bool { return c.Op != "" && !c.DryRun }

// ConfigHint is the .guard.toml text that would map an unrecognised command to an
// operation (registry-upload as the example; the comment lists the others).
func (c Classification) ConfigHint() string {
	key := strings.Join(c.Words, " ")
	return fmt.Sprintf("[publish.commands]\n%s = %q\n# operations: %s, %s, %s, or \"none\" for a command that publishes nothing",
		guard.QuoteTOML(key), OpRegistryUpload, OpRegistryUpload, OpPublishRelease, OpVisibilityPublic)
}

// OpNone, as the operation of a [publish.commands] entry, declares that the command
// publishes nothing.
const OpNone = "none"

// Classify tells what the command args (program first) would publish when run in
// dir (absolute), consulting cfg's [publish.commands] (cfg may be nil). Wrappers are
// seen through (NAME=value assignments, env, sudo/doas, command, exec, time, nohup,
// nice), and so are runners, to the command they run (npx, pnpm dlx/exec, npm exec,
// poetry run, uv run, hatch run, lerna exec, ...: see runnerReadings). A builtin
// classification that publishes cannot be weakened by the configuration; a command
// the builtin rules do not know, or know to publish nothing, takes the operation the
// configuration gives it.
func Classify(argv []string, dir string, cfg *guard.Config) (Classification, error) {
	if !filepath.IsAbs(dir) {
		return Classification{}, fmt.Errorf("classify: working directory %q is not absolute", dir)
	}
	dir = filepath.Clean(dir)
	r := &reader{cfg: cfg, budget: maxReadings}
	c := r.classify(argv, dir, 0)
	if c.Op == "" {
		// An option of the program whose value guard cannot tell may hide a runner
		// or a subcommand (npm --node-options x publish): another reading of the
		// options that publishes wins (fail closed).
		for _, alt := range optionReadings(argv)[1:] {
			if a := r.classify(alt, dir, 0); a.Op != "" {
				c = a
				break
			}
		}
	}
	if r.budget < 0 && c.Op == "" {
		c = Classification{ProjectDir: dir, Why: "the command nests runners and options too deeply for guard to read every way it could be taken"}
		if len(argv) > 0 {
			c.Words = commandWords(argv)
		}
	}
	c.Projects = append([]string{c.ProjectDir}, slices.DeleteFunc(slices.Clone(c.Projects), func(p string) bool { return p == c.ProjectDir })...)
	return c, nil
}

// Limits on reading a command: runners inside runners (npx pnpm exec uv run ...)
// and the several readings of unknown options multiply; past these guard says it
// cannot tell (guard publish refuses, fail closed) instead of working on.
const (
	maxDepth    = 16
	maxReadings = 512
)

// reader classifies one command line, counting the readings it tried.
type reader struct {
	cfg    *guard.Config
	budget int
}

// reading is one way a runner's command can be taken: the words it runs and where.
type reading struct {
	words []string
	dir   string
	// each: the command runs in every package of the workspace rooted at dir
	// (lerna exec, pnpm -r exec, yarn workspaces foreach).
	each bool
}

// classify is Classify for one reading of argv's options.
func (r *reader) classify(argv []string, dir string, depth int) Classification {
	r.budget--
	if depth > maxDepth || r.budget < 0 {
		r.budget = -1
		c := Classification{ProjectDir: dir, Why: "the command nests runners too deeply for guard to read"}
		if len(argv) > 0 {
			c.Words = commandWords(argv)
		}
		return c
	}
	words, dir := unwrap(argv, dir)
	if len(words) == 0 {
		return Classification{ProjectDir: dir, Why: "no command to run"}
	}
	if runs, isRunner, soft := runnerReadings(words, dir); isRunner {
		if c, ok := r.classifyRuns(words, dir, runs, soft, depth); ok {
			return c
		}
	}
	c := classifyBuiltin(words, dir)
	if c.ProjectDir == "" {
		c.ProjectDir = dir
	}
	if len(c.Words) == 0 {
		c.Words = commandWords(words)
	}
	if c.Op != "" || r.cfg == nil {
		return c
	}
	if m, ok := r.configured(words, dir); ok {
		return m
	}
	return c
}

// classifyRuns classifies what a runner runs: the first reading that publishes, else
// the first reading. A soft runner's readings (a package.json script, an installed
// program) count only when one publishes: ok is false otherwise, and the runner is
// classified as a tool of its own.
func (r *reader) classifyRuns(words []string, dir string, runs []reading, soft bool, depth int) (Classification, bool) {
	if len(runs) == 0 {
		if soft {
			return Classification{}, false
		}
		return Classification{ProjectDir: dir, Why: "no command to run"}, true
	}
	// A reading that publishes wins over one that rehearses ("npm publish --dry-run
	// && npm publish" publishes), which wins over one that publishes nothing.
	var first, rehearsal Classification
	for i, run := range runs {
		c := r.classify(run.words, run.dir, depth+1)
		if c.Op != "" {
			c.Why = strings.Join(commandWords(words), " ") + " runs " + strings.Join(c.Words, " ") + ": " + c.Why
		}
		if c.Op != "" && run.each {
			c = withProjects(c, jsWorkspacePackages(run.dir)...)
		}
		if c.Publishes() {
			return c, true
		}
		if c.Op != "" && rehearsal.Op == "" {
			rehearsal = c
		}
		if i == 0 {
			first = c
		}
	}
	if rehearsal.Op != "" {
		return rehearsal, true
	}
	if soft {
		return Classification{}, false
	}
	if !first.Known && r.cfg != nil {
		// What the runner runs is unknown: a mapping of the runner's own words
		// ("poetry run release") may still say.
		if m, ok := r.configured(words, dir); ok {
			return m, true
		}
	}
	return first, true
}

// configured is the classification [publish.commands] gives words, if any.
func (r *reader) configured(words []string, dir string) (Classification, bool) {
	key, op, ok := matchConfigReadings(words, r.cfg.Publish.Commands)
	if !ok {
		return Classification{}, false
	}
	c := Classification{Known: true, Words: strings.Fields(key), DryRun: newArgs(words[1:]).flag("--dry-run"), ProjectDir: genericProjectDir(words, dir)}
	if op == OpNone {
		c.Why = fmt.Sprintf(".guard.toml [publish.commands] says %q publishes nothing", key)
	} else {
		c.Op = op
		c.Why = fmt.Sprintf(".guard.toml [publish.commands] maps %q to %s", key, op)
	}
	return c, true
}

// unwrap strips the wrappers in front of the real command and applies the
// directory changes they make (env -C, sudo -D; git -C is handled per tool): env,
// sudo, timeout, nice, nohup, ... are read by cmdline, the unwrapper the agent hook
// uses too, so that both see the same command. Runners (npx, poetry run, ...) are
// runnerReadings'.
func unwrap(words []string, dir string) ([]string, string) {
	for n := 0; len(words) > 0 && n < maxDepth; n++ {
		if !cmdline.IsAssignment(words[0]) && !cmdline.IsWrapper(words[0]) {
			return words, dir
		}
		c := cmdline.Unwrap(words)
		for _, d := range c.Dirs {
			dir = Resolve(dir, d.Text)
		}
		words = c.Argv
		if c.Shell != nil {
			// su -c, flock -c, watch: shell text, read as words (a shell construct
			// in it is not a command guard knows: refused as unknown).
			words = strings.Fields(c.Shell.Text)
		}
	}
	return words, dir
}

// Resolve makes p absolute against dir.
func Resolve(dir, p string) string {
	if p == "" {
		return dir
	}
	if strings.HasPrefix(p, "~") {
		// The shell would have expanded it; guard cannot know the home directory
		// here, so the working directory stands in (markers above it still apply).
		return dir
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// commandWords are the words that name a command for [publish.commands]: the
// program and the subcommand words after it, up to the first flag or path.
func commandWords(words []string) []string {
	out := []string{programName(words[0])}
	for _, w := range words[1:] {
		if len(out) == 3 || strings.HasPrefix(w, "-") || strings.ContainsAny(w, `/\=.@:`) || w == "" {
			break
		}
		out = append(out, w)
	}
	return out
}

// matchConfig finds the longest [publish.commands] key whose words start the
// command: its first word is the program (by name or as written), the others are
// matched against the command's non-option words.
func matchConfig(words []string, commands map[string]string) (key, op string, ok bool) {
	keys := make([]string, 0, len(commands))
	for k := range commands {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		li, lj := len(strings.Fields(keys[i])), len(strings.Fields(keys[j]))
		if li != lj {
			return li > lj
		}
		return keys[i] < keys[j]
	})
	// Variable assignments (make V=1 release) name no command: a key has none.
	plain := slices.DeleteFunc(newArgs(words[1:], "-C", "--prefix", "--cwd", "--dir", "--directory", "--project-dir", "--manifest-path", "-c").positionals(), isAssignment)
	for _, k := range keys {
		kw := strings.Fields(k)
		if len(kw) == 0 || len(kw)-1 > len(plain) {
			continue
		}
		if kw[0] != words[0] && programName(kw[0]) != programName(words[0]) {
			continue
		}
		match := true
		for i, w := range kw[1:] {
			if plain[i] != w {
				match = false
				break
			}
		}
		if match {
			return k, strings.TrimSpace(commands[k]), true
		}
	}
	return "", "", false
}

// matchConfigReadings is matchConfig over every reading of the command's options (see
// optionReadings): a mapping to an operation wins over one to "none" (make -j 4
// release is "make release", not "make"), else the first reading's match counts.
func matchConfigReadings(words []string, commands map[string]string) (key, op string, ok bool) {
	for _, r := range optionReadings(words) {
		k, o, found := matchConfig(r, commands)
		if !found {
			continue
		}
		if !ok {
			key, op, ok = k, o, true
		}
		if o != OpNone && o != "" {
			return k, o, true
		}
	}
	return key, op, ok
}

// optionReadings returns words as written, then, for each option written without "="
// in front of the first non-option word, the words without that option and that word
// (which the option may take as its value: npm --script-shell bash publish is npm
// publish), cumulatively. guard's lists of valued options cannot be complete; reading
// every such option both ways lets no spelling hide a publishing subcommand.
func optionReadings(words []string) [][]string {
	out := [][]string{words}
	if len(words) == 0 {
		return out
	}
	rest := words[1:]
	for {
		i := leadingOptionValue(rest)
		if i < 0 {
			return out
		}
		rest = append(rest[:i-1:i-1], rest[i+1:]...)
		out = append(out, append([]string{words[0]}, rest...))
	}
}

// leadingOptionValue is the index in rest of the first word that is not an option,
// when the word before it is an option written without "=" (which may take that word
// as its value), or -1.
func leadingOptionValue(rest []string) int {
	for i, w := range rest {
		switch {
		case w == "--":
			return -1
		case strings.HasPrefix(w, "-") && len(w) > 1:
			continue
		case i > 0 && !strings.Contains(rest[i-1], "="):
			return i
		default:
			return -1
		}
	}
	return -1
}

// genericProjectDir applies the directory options most tools share to a command
// mapped by configuration.
func genericProjectDir(words []string, dir string) string {
	a := newArgs(words[1:], "-C", "--prefix", "--cwd", "--dir", "--directory", "--project-dir", "--manifest-path")
	if v, ok := a.value("--manifest-path"); ok && v != "" {
		return filepath.Dir(Resolve(dir, v))
	}
	return a.dirFlag(dir, "-C", "--prefix", "--cwd", "--dir", "--directory", "--project-dir")
}
