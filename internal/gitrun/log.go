package gitrun

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"slices"
	"strings"
)

// ChangedPaths returns the paths (relative to the repository's top level, sorted,
// unique) changed by the commits reachable from head but not from base: both sides of
// every rename or copy, deletions included. An empty base means every commit reachable
// from head, a root commit contributing its whole tree.
func ChangedPaths(ctx context.Context, g Git, base, head string) ([]string, error) {
	rng := []string{head}
	if base != "" {
		rng = []string{head, "--not", base}
	}
	return LogPaths(ctx, g, rng...)
}

// LogPaths returns the paths changed by the commits that `git log revs...` lists, with
// a single git process whatever the number of commits: `git log --name-only -z` over
// the range. Renames are not detected (--no-renames), so both sides of a rename appear
// as a deletion and an addition. Root commits contribute their whole tree (git log
// shows a root commit's diff against the empty tree). A merge commit contributes the
// paths it changed relative to every parent (conflict resolutions, "evil" merges); the
// commits it merges are in the range themselves or already published.
func LogPaths(ctx context.Context, g Git, revs ...string) ([]string, error) {
	var paths []string
	err := LogPathsFunc(ctx, g, revs, func(batch []string) error {
		paths = append(paths, batch...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(paths)
	return paths, nil
}

// logBatch is how many new paths LogPathsFunc gathers before handing them on: large
// enough to keep the calls few, small enough that checking starts while git is still
// walking history.
const logBatch = 64

// LogPathsFunc is LogPaths streamed: fn receives the paths, each once, in batches as
// git prints them, so that the caller's work (reading lock directories) overlaps
// git's. An error from fn stops git and is returned.
func LogPathsFunc(ctx context.Context, g Git, revs []string, fn func([]string) error) error {
	args := append([]string{"-c", "core.quotePath=false", "-c", "log.showRoot=true", "log", "--no-renames", "--name-only", "-z", "--format=", "--diff-merges=combined", "--no-ext-diff", "--no-textconv"}, revs...)
	args = append(args, "--")
	var batch []string
	err := g.Stream(ctx, args, func(out io.Reader) error {
		seen := make(map[string]struct{})
		r := bufio.NewReaderSize(out, 64*1024)
		for {
			field, rerr := r.ReadString(0)
			// Exactly as git wrote it: a name may start with a newline (git prints no
			// separator between commits with an empty --format).
			if s := strings.TrimSuffix(field, "\x00"); s != "" {
				if _, ok := seen[s]; !ok {
					seen[s] = struct{}{}
					batch = append(batch, s)
					if len(batch) >= logBatch {
						if err := fn(batch); err != nil {
							return err
						}
						batch = nil
					}
				}
			}
			if rerr != nil {
				return nil
			}
		}
	})
	if err != nil {
		return err
	}
	if len(batch) > 0 {
		return fn(batch)
	}
	return nil
}

// SplitNames splits NUL-separated git output into sorted unique non-empty names, taken
// exactly as git wrote them (see EachName).
func SplitNames(out []byte) []string {
	seen := make(map[string]struct{})
	var paths []string
	EachName(out, func(s string) {
		if _, ok := seen[s]; !ok {
			seen[s] = struct{}{}
			paths = append(paths, s)
		}
	})
	slices.Sort(paths)
	return paths
}

// EachName calls fn with every non-empty NUL-terminated name in out (git's -z
// output), exactly as git wrote it: a name may start with a newline, and git prints
// no separator between commits with an empty --format (since git 2.2), so nothing is
// trimmed.
func EachName(out []byte, fn func(string)) {
	for len(out) > 0 {
		i := bytes.IndexByte(out, 0)
		if i < 0 {
			i = len(out)
		}
		if i > 0 {
			fn(string(out[:i]))
		}
		out = out[min(i+1, len(out)):]
	}
}
