package install

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/guardlocks/guard/guard"
)

// gitVars are the environment variables git may need to find a repository and its
// configuration. The environment is read through guard.Env, which cannot list it.
var gitVars = []string{
	"PATH", "HOME", "USER", "LANG", "LC_ALL", "TMPDIR", "XDG_CONFIG_HOME",
	"SYSTEMROOT", "USERPROFILE",
	"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES",
	"GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_CONFIG", "GIT_CONFIG_GLOBAL",
	"GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_PARAMETERS", "GIT_EXEC_PATH",
}

func gitEnv(env *guard.Env) []string {
	var out []string
	for _, k := range gitVars {
		if v := env.Env(k); v != "" {
			out = append(out, k+"="+v)
		}
	}
	return out
}

// repoInfo is where a repository keeps the files install and doctor touch.
type repoInfo struct {
	Top       string // "" in a bare repository
	CommonDir string
	Hooks     string
	Exclude   string
}

// openRepo asks git where the repository that holds dir keeps its hooks (core.hooksPath
// honoured, shared by linked worktrees) and its exclude file.
func openRepo(ctx context.Context, env *guard.Env, dir string) (repoInfo, error) {
	run := func(args ...string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, "git", args...)
		cmd.Dir = dir
		cmd.Env = gitEnv(env)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("git %s in %s: %s", strings.Join(args, " "), dir, firstNonEmpty(strings.TrimSpace(stderr.String()), err.Error()))
		}
		return out, nil
	}
	args := []string{"rev-parse", "--path-format=absolute", "--git-common-dir",
		"--git-path", "hooks", "--git-path", "info/exclude", "--show-toplevel"}
	out, err := run(args...)
	if err != nil {
		// A bare repository has no top level: ask again without it.
		var err2 error
		if out, err2 = run(args[:len(args)-1]...); err2 != nil {
			return repoInfo{}, fmt.Errorf("%s is not in a git repository: %w", dir, err)
		}
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) < 3 {
		return repoInfo{}, fmt.Errorf("git rev-parse in %s: unexpected answer %q", dir, out)
	}
	r := repoInfo{CommonDir: filepath.Clean(lines[0]), Hooks: filepath.Clean(lines[1]), Exclude: filepath.Clean(lines[2])}
	if len(lines) > 3 && lines[3] != "" {
		r.Top = filepath.Clean(lines[3])
	}
	return r, nil
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
