package classify

import (
	"os"
	"slices"
	"strings"
)

// A runner is a program that starts another command: a package runner (npx, uvx,
// pnpm dlx), a project environment's runner (poetry run, uv run, hatch run), a
// monorepo's per-package exec (lerna exec, pnpm -r exec, yarn workspaces foreach), a
// secrets or tool-version shim (op run, mise exec). What it runs is what publishes,
// so the classifier reads through it. Generic wrappers (env, sudo, nice, ...) are
// unwrap's; this file holds what guard knows about the runners of publishing
// ecosystems.

// runnerReadings tells whether words (program first, wrappers removed) run another
// command and, if so, the readings of that command, the likeliest first. A runner
// with nothing to run has no reading. Options guard does not know may take the next
// word as their value: each way of reading them is a reading, so that no spelling
// hides the command. soft is set for a package manager running a script or an
// installed program (yarn release): its readings count only when one publishes.
func runnerReadings(words []string, dir string) (runs []reading, isRunner, soft bool) {
	runs, isRunner = hardRunnerReadings(words, dir)
	if isRunner {
		return runs, true, false
	}
	runs, isRunner = scriptRunnerReadings(programName(words[0]), words[1:], dir)
	return runs, isRunner, true
}

// hardRunnerReadings is runnerReadings for the runners whose command always counts
// (what they run is the command, known or not).
func hardRunnerReadings(words []string, dir string) ([]reading, bool) {
	prog := programName(words[0])
	rest := words[1:]
	switch {
	case prog == "npx" || prog == "pnpx" || prog == "bunx" || prog == "uvx":
		return packageRunner.mustReadings(rest, dir), true
	case prog == "pipx" && runnerAt(rest, nil, "run") >= 0:
		return packageRunner.mustReadings(rest[runnerAt(rest, nil, "run")+1:], dir), true
	case prog == "uv" && runnerAt(rest, uvGlobal, "tool") >= 0 && runnerAt(rest[runnerAt(rest, uvGlobal, "tool")+1:], nil, "run") == 0:
		return packageRunner.mustReadings(rest[runnerAt(rest, uvGlobal, "tool")+2:], dir), true
	case prog == "pnpm" || prog == "yarn":
		// pnpm -r exec, pnpm --filter x exec, pnpm recursive exec, yarn dlx: the
		// command after it runs in each package (pnpm -C changes the folder first).
		plain := slices.DeleteFunc(slices.Clone(rest), isPnpmRecursive)
		i := runnerAt(plain, pnpmValued, "exec", "dlx")
		if i < 0 {
			if prog == "yarn" {
				return yarnWorkspaceReadings(rest, dir)
			}
			return nil, false
		}
		if d, ok := newArgs(plain[:i], "-C", "--dir", "--cwd").value("-C", "--dir", "--cwd"); ok && d != "" {
			dir = Resolve(dir, d)
		}
		runs := packageRunner.mustReadings(plain[i+1:], dir)
		if len(plain) < len(rest) || newArgs(plain[:i], pnpmValued...).anySet("-r", "--recursive") {
			for j := range runs {
				runs[j].each = true
			}
		}
		return runs, true
	case prog == "bun" && runnerAt(rest, bunValued, "x") >= 0:
		return packageRunner.mustReadings(rest[runnerAt(rest, bunValued, "x")+1:], dir), true
	case prog == "npm" && runnerAt(rest, npmValued, "exec", "x") >= 0:
		// npm exec and npm x, also after npm's own options (npm --yes exec).
		return packageRunner.mustReadings(rest[runnerAt(rest, npmValued, "exec", "x")+1:], dir), true
	case prog == "bundle" && runnerAt(rest, nil, "exec") >= 0:
		return []reading{{words: rest[runnerAt(rest, nil, "exec")+1:], dir: dir}}, true
	case strings.HasPrefix(prog, "python") || prog == "py":
		return pythonModule(rest, dir)
	}
	spec, ok := runners[prog]
	if !ok {
		return nil, false
	}
	return spec.readings(rest, dir)
}

// isPnpmRecursive reports pnpm's words for "in every package" (pnpm recursive exec,
// pnpm m publish), which pnpm reads like its -r option.
func isPnpmRecursive(w string) bool { return w == "recursive" || w == "m" || w == "multi" }

// bunValued are bun's global options that take a value.
var bunValued = []string{"--cwd", "--config", "-c"}

// pnpmValued are the global options of pnpm and yarn that take a value.
var pnpmValued = []string{"-C", "--dir", "--cwd", "--filter", "-F", "--filter-prod", "--workspace-dir", "--reporter", "--loglevel", "--test-pattern", "--changed-files-ignore-pattern"}

// uvGlobal are uv's global options that take a value.
var uvGlobal = []string{"--directory", "--project", "--config-file", "--cache-dir", "--color", "--python", "-p", "--allow-insecure-host"}

// runnerAt is the index in rest of a package manager's runner subcommand (one of
// subs: pnpm's exec, npm's x, ...) after its global options (valued: those that take a
// value), or -1 when the subcommand is another.
func runnerAt(rest []string, valued []string, subs ...string) int {
	for i := 0; i < len(rest); i++ {
		w := rest[i]
		switch {
		case strings.HasPrefix(w, "-") && len(w) > 1:
			if slices.Contains(valued, w) {
				i++
			}
		case slices.Contains(subs, w):
			return i
		default:
			return -1
		}
	}
	return -1
}

// runnerSpec describes how a runner finds the command it runs.
type runnerSpec struct {
	// sub is the subcommand path that runs a command (["run"], ["exec|x"]: a word
	// of the path may have several spellings); empty when the program itself runs
	// one (xargs, cross-env).
	sub []string
	// global are the options before the subcommand that take a value.
	global []string
	// valued are the subcommand's own options that take a value; bools are its
	// options known to take none (fewer readings to try).
	valued, bools []string
	// dirs are options (global or own) whose value is the directory the command
	// runs in.
	dirs []string
	// strings are options whose value is a whole command line (nix-shell --run,
	// doppler run --command, npm exec -c).
	strings []string
	// dashDash: the command follows "--" (op run, mise exec); without one, each
	// later positional word may start it.
	dashDash bool
	// positionals is how many positional words the runner takes before the
	// command (aws-vault exec PROFILE, direnv exec DIR); dirPositional says the
	// first is the directory the command runs in.
	positionals   int
	dirPositional bool
	// envPrefix: the command's first word may be ENV:COMMAND (hatch run test:cov).
	envPrefix bool
	// packageSpec: the first word is a package spec naming its program
	// (npx np@latest, uvx --from x twine).
	packageSpec bool
	// each: the command runs in every package of the workspace (lerna exec).
	each bool
	// startsAt lists more words that, like "--", start the command (nix develop -c).
	startsAt []string
}

// packageRunner is npx and its kind: npx, pnpx, bunx, uvx, pipx run, pnpm dlx|exec,
// yarn dlx|exec, npm exec|x, bun x, uv tool run.
var packageRunner = runnerSpec{
	valued:      []string{"-p", "--package", "--from", "--with", "--with-editable", "--with-requirements", "--python", "--registry", "--cache", "-w", "--workspace", "--spec", "--index", "--index-url", "--extra-index-url", "--filter", "-F", "--pip-args", "--prefix", "--userconfig", "--loglevel"},
	bools:       []string{"--yes", "-y", "--no", "--quiet", "-q", "--silent", "-s", "--ws", "--workspaces", "--include-workspace-root", "--no-install", "--ignore-existing", "--offline", "--isolated", "--verbose", "-v", "--shell-mode", "--bun", "--recursive", "-r", "--parallel", "--no-bail", "--if-present"},
	strings:     []string{"-c", "--call"},
	packageSpec: true,
}

// runners are the runners known by program name.
var runners = map[string]runnerSpec{
	"poetry": {sub: []string{"run"}, global: []string{"-C", "--directory", "-P", "--project"}, dirs: []string{"-C", "--directory", "-P", "--project"}},
	"uv": {sub: []string{"run"}, global: uvGlobal, dirs: []string{"--directory", "--project"},
		valued: []string{"--with", "--with-editable", "--with-requirements", "--python", "-p", "--package", "--extra", "--group", "--only-group", "--no-group", "--env-file", "--index", "--default-index", "--index-url", "-i", "--extra-index-url", "--find-links", "-f", "--index-strategy", "--keyring-provider", "--resolution", "--prerelease", "--exclude-newer", "--link-mode", "--refresh-package", "--reinstall-package", "--upgrade-package", "-P", "--no-binary-package", "--no-build-package", "--config-setting", "-C", "--directory", "--project", "--python-platform", "--config-file", "--cache-dir", "--color"},
		bools:  []string{"--frozen", "--locked", "--isolated", "--no-project", "--no-sync", "--all-packages", "--all-extras", "--no-dev", "--dev", "--only-dev", "--all-groups", "--active", "--no-editable", "--script", "-s", "--module", "-m", "--exact", "--inexact", "-q", "--quiet", "-v", "--verbose", "--offline", "--no-cache", "-n", "--native-tls", "--upgrade", "-U", "--reinstall", "--refresh", "--compile-bytecode", "--no-build", "--no-binary", "--no-env-file", "--with-editable"}},
	"hatch":      {sub: []string{"run"}, global: []string{"-e", "--env", "-p", "--project", "--data-dir", "--cache-dir", "--config"}, envPrefix: true},
	"pdm":        {sub: []string{"run"}, global: []string{"-p", "--project", "-c", "--config"}, dirs: []string{"-p", "--project"}, valued: []string{"--venv"}, bools: []string{"-s", "--site-packages", "-l", "--list", "-j", "--json", "-r", "--recreate"}},
	"pipenv":     {sub: []string{"run"}, global: []string{"--python", "--pypi-mirror"}},
	"rye":        {sub: []string{"run"}, valued: []string{"--pyproject"}},
	"conda":      {sub: []string{"run"}, valued: []string{"-n", "--name", "-p", "--prefix", "--cwd"}, dirs: []string{"--cwd"}, bools: []string{"--live-stream", "--no-capture-output", "--dev", "-v", "--debug-wrapper-scripts"}},
	"mamba":      {sub: []string{"run"}, valued: []string{"-n", "--name", "-p", "--prefix", "--cwd"}, dirs: []string{"--cwd"}, bools: []string{"--live-stream", "--no-capture-output"}},
	"micromamba": {sub: []string{"run"}, valued: []string{"-n", "--name", "-p", "--prefix", "--cwd", "-a", "--attach"}, dirs: []string{"--cwd"}, bools: []string{"--clean-env", "-d", "--detach"}},
	"pixi":       {sub: []string{"run"}, global: []string{"--manifest-path", "--color"}, valued: []string{"-e", "--environment", "--manifest-path", "--executable", "--tls-root-certs"}, bools: []string{"--frozen", "--locked", "--clean-env", "--force-activate", "--skip-deps", "-n", "--dry-run"}},
	"lerna":      {sub: []string{"exec"}, each: true, valued: []string{"--scope", "--ignore", "--concurrency", "--since", "--loglevel", "--ignore-changes"}, bools: []string{"--stream", "--parallel", "--no-bail", "--no-prefix", "--profile", "--include-dependents", "--include-dependencies", "--no-private"}},
	"nx":         {sub: []string{"exec"}, each: true, valued: []string{"--projects", "-p", "--exclude", "--parallel", "--output-style"}, bools: []string{"--all", "--verbose"}},
	"mise":       {sub: []string{"exec|x"}, valued: []string{"-j", "--jobs", "-C", "--cd", "-E", "--env"}, dirs: []string{"-C", "--cd"}, strings: []string{"-c", "--command"}, dashDash: true},
	"rtx":        {sub: []string{"exec|x"}, valued: []string{"-j", "--jobs", "-C", "--cd"}, dirs: []string{"-C", "--cd"}, strings: []string{"-c", "--command"}, dashDash: true},
	"asdf":       {sub: []string{"exec"}},
	"rbenv":      {sub: []string{"exec"}},
	"pyenv":      {sub: []string{"exec"}},
	"nodenv":     {sub: []string{"exec"}},
	"goenv":      {sub: []string{"exec"}},
	"jenv":       {sub: []string{"exec"}},
	"direnv":     {sub: []string{"exec"}, positionals: 1, dirPositional: true},
	"dotenv":     {valued: []string{"-e", "-v", "-c", "-p"}, bools: []string{"--debug", "--quiet", "-o", "--override"}},
	"cross-env":  {},
	"env-cmd":    {valued: []string{"-f", "--file", "-e", "--environments", "-r", "--rc-file"}, bools: []string{"--fallback", "--no-override", "--silent", "--use-shell", "--expand-envs", "--verbose"}},
	"op":         {sub: []string{"run"}, valued: []string{"--env-file", "--account", "--config", "--encoding"}, bools: []string{"--no-masking"}, dashDash: true},
	"doppler":    {sub: []string{"run"}, valued: []string{"-p", "--project", "-c", "--config", "--token", "--mount", "--mount-format", "--fallback", "--scope", "--name-transformer"}, strings: []string{"--command"}, dashDash: true},
	"infisical":  {sub: []string{"run"}, valued: []string{"--env", "--projectId", "--path", "--token", "--domain", "--tags"}, strings: []string{"--command"}, dashDash: true},
	"aws-vault":  {sub: []string{"exec"}, valued: []string{"-d", "--duration", "-t", "--mfa-token", "-r", "--region", "--backend"}, bools: []string{"-n", "--no-session", "-j", "--json", "-s", "--server", "--ec2-server", "--ecs-server", "--stdout"}, positionals: 1, dashDash: true},
	"chamber":    {sub: []string{"exec"}, dashDash: true},
	"nix":        {sub: []string{"develop|shell"}, startsAt: []string{"-c", "--command"}, dashDash: true},
	"nix-shell":  {strings: []string{"--run", "--command"}, dashDash: true},
	"devbox":     {sub: []string{"run"}, valued: []string{"-c", "--config", "-e", "--env", "--env-file"}},
}

// readings finds the command in rest (the words after the program).
func (s runnerSpec) readings(rest []string, dir string) ([]reading, bool) {
	// The subcommand path, after the global options.
	for _, sub := range s.sub {
		i := runnerAt(rest, s.global, strings.Split(sub, "|")...)
		if i < 0 {
			return nil, false
		}
		a := newArgs(rest[:i], s.global...)
		if d, ok := a.value(s.dirs...); ok && d != "" && len(s.dirs) > 0 {
			dir = Resolve(dir, d)
		}
		rest = rest[i+1:]
	}
	var out []reading
	unknown := 0
	for consume := 0; consume <= unknown && len(out) < 32; consume++ {
		cmds, d, n := s.commandAt(rest, dir, consume)
		unknown = n
		for _, c := range cmds {
			if len(c) == 0 {
				continue
			}
			if s.packageSpec {
				c = append([]string{packageBin(c[0])}, c[1:]...)
			}
			if s.envPrefix {
				if env, cmd, ok := strings.Cut(c[0], ":"); ok && env != "" && !strings.ContainsAny(env, `/\`) {
					if cmd == "" {
						c = c[1:]
					} else {
						c = append([]string{cmd}, c[1:]...)
					}
				}
			}
			if len(c) > 0 {
				out = append(out, reading{words: c, dir: d, each: s.each})
			}
		}
	}
	return out, true
}

// commandAt reads the runner's own options in rest, letting the first consume of
// the options it does not know (and that stand before a word that is not an option)
// take the next word as their value, and returns the
// command lines it may run (several when the runner takes "--" but has none: each
// positional word may start the command), the directory, and how many unknown
// options it saw.
func (s runnerSpec) commandAt(rest []string, dir string, consume int) ([][]string, string, int) {
	unknown, pos := 0, 0
	for i := 0; i < len(rest); i++ {
		w := rest[i]
		switch {
		case w == "--" || slices.Contains(s.startsAt, w):
			return [][]string{rest[i+1:]}, dir, unknown
		case strings.HasPrefix(w, "-") && len(w) > 1:
			name, val, eq := strings.Cut(w, "=")
			if !eq && len(name) > 2 && name[1] != '-' && (slices.Contains(s.strings, name[:2]) || slices.Contains(s.valued, name[:2])) {
				// -c'cmd', -nenv: a short option with its value attached.
				name, val, eq = name[:2], name[2:], true
			}
			takes := slices.Contains(s.valued, name) || slices.Contains(s.dirs, name) || slices.Contains(s.strings, name)
			if takes && !eq {
				if i+1 < len(rest) {
					val = rest[i+1]
				}
				i++
			}
			switch {
			case slices.Contains(s.strings, name):
				return [][]string{strings.Fields(val)}, dir, unknown
			case slices.Contains(s.dirs, name) && val != "":
				dir = Resolve(dir, val)
			case !takes && !eq && !slices.Contains(s.bools, name) && i+1 < len(rest) && !strings.HasPrefix(rest[i+1], "-"):
				// An option guard does not know, before a word it may take.
				unknown++
				if unknown <= consume {
					i++
				}
			}
		case s.dashDash && slices.ContainsFunc(rest[i+1:], func(w string) bool { return w == "--" || slices.Contains(s.startsAt, w) }):
			// The runner's own words (mise exec node@20 -- ..., nix develop .#ci -c ...).
			if pos == 0 && s.dirPositional {
				dir = Resolve(dir, w)
			}
			pos++
		case pos < s.positionals:
			if pos == 0 && s.dirPositional {
				dir = Resolve(dir, w)
			}
			pos++
		case s.dashDash && !slices.ContainsFunc(rest[i:], func(w string) bool { return w == "--" || slices.Contains(s.startsAt, w) }):
			// The runner wants "--" before the command but has none: it may take
			// its own words first (mise x node@20 npm publish).
			var out [][]string
			for j := i; j < len(rest) && len(out) < 8; j++ {
				if !strings.HasPrefix(rest[j], "-") {
					out = append(out, rest[j:])
				}
			}
			return out, dir, unknown
		default:
			return [][]string{rest[i:]}, dir, unknown
		}
	}
	return nil, dir, unknown
}

// pythonModule reads python -m MODULE (python3 -u -m twine upload): the module runs
// as its program. Any other python command is not a runner (a script or -c code is a
// program guard does not know).
func pythonModule(rest []string, dir string) ([]reading, bool) {
	for i := 0; i < len(rest); i++ {
		w := rest[i]
		switch {
		case w == "-m":
			if i+1 < len(rest) {
				return []reading{{words: rest[i+1:], dir: dir}}, true
			}
			return nil, true
		case strings.HasPrefix(w, "-m") && len(w) > 2:
			return []reading{{words: append([]string{w[2:]}, rest[i+1:]...), dir: dir}}, true
		case w == "-W" || w == "-X" || w == "--check-hash-based-pycs":
			i++
		case len(w) > 2 && w[1] != '-' && strings.HasSuffix(w, "m") && !strings.ContainsAny(w, "cWX"):
			// -um twine: grouped one-letter options, -m last.
			if i+1 < len(rest) {
				return []reading{{words: rest[i+1:], dir: dir}}, true
			}
			return nil, true
		case strings.HasPrefix(w, "-") && len(w) > 1 && w != "-c" && !strings.HasPrefix(w, "-c"):
		default:
			return nil, false
		}
	}
	return nil, false
}

// yarnWorkspaceReadings reads yarn workspace NAME COMMAND and yarn workspaces
// foreach [options] COMMAND: COMMAND is a yarn command (yarn npm publish, yarn exec
// npm publish) run in that workspace or in each.
func yarnWorkspaceReadings(rest []string, dir string) ([]reading, bool) {
	a := newArgs(rest, "--cwd")
	dir = a.dirFlag(dir, "--cwd")
	pos := a.positionals()
	switch {
	case len(pos) >= 2 && pos[0] == "workspace":
		i := slices.Index(rest, pos[1])
		if isDir(Resolve(dir, pos[1])) {
			dir = Resolve(dir, pos[1])
		}
		return []reading{{words: append([]string{"yarn"}, rest[i+1:]...), dir: dir}}, true
	case len(pos) >= 2 && pos[0] == "workspaces" && pos[1] == "foreach":
		i := slices.Index(rest, "foreach")
		var out []reading
		for _, r := range yarnForeach.mustReadings(rest[i+1:], dir) {
			out = append(out, reading{words: append([]string{"yarn"}, r.words...), dir: r.dir, each: true})
		}
		return out, true
	}
	return nil, false
}

// yarnForeach is yarn workspaces foreach's own options.
var yarnForeach = runnerSpec{
	valued: []string{"--from", "--include", "--exclude", "-j", "--jobs"},
	bools:  []string{"-A", "--all", "-R", "--recursive", "-W", "--worktree", "-v", "--verbose", "-p", "--parallel", "-i", "--interlaced", "-t", "--topological", "--topological-dev", "--no-private"},
}

// mustReadings is readings for a spec without a subcommand path.
func (s runnerSpec) mustReadings(rest []string, dir string) []reading {
	r, _ := s.readings(rest, dir)
	return r
}

// isDir reports whether p is a directory.
func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
