package guard

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/guardlocks/guard/internal/gitrun"
)

// Subject is what guard knows about the place a command acts on, resolved once and the
// same way for every command (CONTRACT.md section 6): the repository holding it, the
// working trees of that repository, the .guard.toml that governs it and the identity
// that acts there. Commands never read configuration or resolve identity themselves;
// they ask ResolveSubject for the path they act on.
type Subject struct {
	// Path is the path asked about, absolute and clean, as the kernel resolves it
	// (KernelPath); it need not exist.
	Path string
	// Dir is Path when it is an existing directory, else Path's parent: the directory
	// whose locks, markers and configuration govern Path.
	Dir string
	// Top is the working-tree root of the repository holding Dir ("" outside one).
	Top string
	// Trees are the roots of every working tree of that repository (Top first; nil
	// outside a repository).
	Trees []string
	// Config is the .guard.toml governing Dir: the nearest one in Dir or above it up to
	// Top (outside a repository: up to the file-system root). Never nil; an empty
	// Config when there is none.
	Config *Config
	// Identity is who acts: the flags given, else GUARD_OWNER / GUARD_HOST, else owner
	// and host in Config, else <user>@<host> and the machine's host name.
	Identity Identity
}

// ResolveSubject resolves path (absolute, or relative to env.Dir) for a command whose
// --owner and --host flags are flags (either may be empty). A path that cannot be
// resolved (a loop of symbolic links) is an error naming it. A .guard.toml that cannot
// be read or parsed is an error naming the file and line: commands exit 2 on it
// rather than decide with a configuration they did not read (fail closed). The Subject
// is returned even then (with an empty Config), for the one caller that must record
// who acted whatever the configuration says: the bypass log.
func ResolveSubject(env *Env, path string, flags Identity) (*Subject, error) {
	return NewResolver(env).Resolve(path, flags)
}

// Policy returns a new Policy deciding for the subject's identity at env's time.
func (s *Subject) Policy(env *Env) *Policy { return NewPolicy(env, s.Identity) }

// SubjectsOf resolves every path of one command. Paths in different repositories may
// be governed by different configurations and so act under different identities;
// Groups sorts them out.
func SubjectsOf(env *Env, paths []string, flags Identity) ([]*Subject, error) {
	return NewResolver(env).Of(paths, flags)
}

// Resolver is ResolveSubject for a caller that asks about many paths in few folders
// (the agent hook judging a script of forty commands): what a folder's resolution
// reads (its repository, the working trees, the .guard.toml) is read once per
// Resolver and kept. Make one per decision: it does not see later changes.
type Resolver struct {
	env  *Env
	dirs map[string]resolvedDir
}

type resolvedDir struct {
	top   string
	trees []string
	cfg   *Config
	err   error
}

// NewResolver returns a Resolver for env.
func NewResolver(env *Env) *Resolver {
	return &Resolver{env: env, dirs: map[string]resolvedDir{}}
}

// Resolve is ResolveSubject, remembering what it read of path's folder.
func (r *Resolver) Resolve(path string, flags Identity) (*Subject, error) {
	env := r.env
	if path == "" {
		path = env.Dir
	}
	// The path the kernel reaches (a/link/../b is above where link points), not the
	// lexical one: that is where the command acts.
	abs, err := KernelPath(env.Dir, path)
	if err != nil {
		return &Subject{Path: abs, Dir: filepath.Dir(abs), Config: &Config{}}, err
	}
	s := &Subject{Path: abs, Dir: abs}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		s.Dir = filepath.Dir(abs)
	}
	rd, ok := r.dirs[s.Dir]
	if !ok {
		rd.top = gitrun.RepoTop(s.Dir)
		if rd.top != "" {
			rd.trees = gitrun.WorkingTrees(rd.top)
		}
		rd.cfg, rd.err = FindConfig(s.Dir)
		if rd.err != nil {
			// The error names the file (and line) already.
			rd.cfg = &Config{}
		}
		r.dirs[s.Dir] = rd
	}
	s.Top, s.Config = rd.top, rd.cfg
	if rd.trees != nil {
		s.Trees = slices.Clone(rd.trees)
	}
	s.Identity = ResolveIdentity(env, flags.Owner, flags.Host, rd.cfg)
	return s, rd.err
}

// Of is SubjectsOf, with what the Resolver has read.
func (r *Resolver) Of(paths []string, flags Identity) ([]*Subject, error) {
	out := make([]*Subject, 0, len(paths))
	for _, p := range paths {
		s, err := r.Resolve(p, flags)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// SubjectGroup is the paths of one command that act under one identity.
type SubjectGroup struct {
	Identity Identity
	Subjects []*Subject
}

// Paths are the group's paths, in the order given.
func (g SubjectGroup) Paths() []string {
	out := make([]string, 0, len(g.Subjects))
	for _, s := range g.Subjects {
		out = append(out, s.Path)
	}
	return out
}

// Groups splits subjects by identity, keeping the order in which each identity first
// appears (one group in the common case of one repository).
func Groups(subjects []*Subject) []SubjectGroup {
	var out []SubjectGroup
	idx := map[Identity]int{}
	for _, s := range subjects {
		i, ok := idx[s.Identity]
		if !ok {
			i = len(out)
			idx[s.Identity] = i
			out = append(out, SubjectGroup{Identity: s.Identity})
		}
		out[i].Subjects = append(out[i].Subjects, s)
	}
	return out
}

// CheckSubjects is Policy.Check for the paths of one command, each decided for the
// identity its own subject resolves to (a path in another repository is judged with
// that repository's owner and host). req.Paths is ignored: the subjects' paths are
// asked. The answers are merged into one Decision.
func CheckSubjects(env *Env, subjects []*Subject, req Request) (*Decision, error) {
	var out *Decision
	for _, g := range Groups(subjects) {
		r := req
		r.Paths = g.Paths()
		d, err := NewPolicy(env, g.Identity).Check(r)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = d
			// The fence is the caller's, not a path's: check it once.
			req.Fence, req.FenceFile = "", ""
			continue
		}
		out.Blocking = append(out.Blocking, d.Blocking...)
		for _, w := range d.Warnings {
			if !slices.Contains(out.Warnings, w) {
				out.Warnings = append(out.Warnings, w)
			}
		}
	}
	if out == nil {
		return NewPolicy(env, Identity{}).Check(req)
	}
	out.Allowed = len(out.Blocking) == 0
	return out, nil
}
