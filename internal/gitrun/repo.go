package gitrun

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Repo is where a repository's parts are, as git reports them (absolute paths).
type Repo struct {
	// Top is the working tree's top level ("" in a bare repository).
	Top string
	// GitDir is this working tree's git directory; CommonDir the one shared by all
	// working trees (they differ in linked worktrees).
	GitDir, CommonDir string
	// Hooks is the folder git runs hooks from (core.hooksPath honoured).
	Hooks string
	// Exclude is the repository's info/exclude file.
	Exclude string
}

// OpenRepo asks git, with one process, where the parts of the repository that holds
// g.Dir are.
func OpenRepo(ctx context.Context, g Git) (Repo, error) {
	args := []string{"rev-parse", "--path-format=absolute",
		"--git-dir", "--git-common-dir", "--git-path", "hooks", "--git-path", "info/exclude",
		"--show-toplevel"}
	out, err := g.Run(ctx, args...)
	if err != nil {
		// Outside a working tree (a bare repository, or inside .git) --show-toplevel
		// fails: ask again without it.
		var err2 error
		out, err2 = g.Run(ctx, args[:len(args)-1]...)
		if err2 != nil {
			// git's own words for the common case are enough; its command line is noise
			// to a person who ran guard install in the wrong folder.
			var ge *Error
			if errors.As(err2, &ge) && strings.Contains(ge.Stderr, "not a git repository") {
				return Repo{}, fmt.Errorf("%s is not in a git repository", g.Dir)
			}
			return Repo{}, fmt.Errorf("%s is not in a git repository: %w", g.Dir, err)
		}
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) < 4 {
		return Repo{}, fmt.Errorf("git rev-parse in %s: unexpected answer %q", g.Dir, out)
	}
	r := Repo{
		GitDir:    filepath.Clean(lines[0]),
		CommonDir: filepath.Clean(lines[1]),
		Hooks:     filepath.Clean(lines[2]),
		Exclude:   filepath.Clean(lines[3]),
	}
	if len(lines) >= 5 && lines[4] != "" {
		r.Top = filepath.Clean(lines[4])
	}
	return r, nil
}

// GuardDir is the folder where guard keeps its per-repository records (the bypass
// log, the chores record) in the git directory shared by all working trees.
func (r Repo) GuardDir() string { return filepath.Join(r.CommonDir, "guard") }

// BypassLogPath is the audit log of GUARD_BYPASS uses (written by the hooks, read by
// guard doctor).
func (r Repo) BypassLogPath() string { return filepath.Join(r.GuardDir(), "bypass.log") }
