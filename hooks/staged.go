package hooks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/guardlocks/guard/internal/gitrun"
)

// Change is one staged path and git's status letter for it (A added, C copied,
// M modified, D deleted, T type changed, U unmerged, ...).
type Change struct {
	Status byte
	Path   string // relative to the top level, slash-separated
}

// StagedChanges lists what the next commit would change: the index against HEAD, or
// against the empty tree when there is no HEAD yet (git diff --cached does that by
// itself on an unborn branch). Renames are not paired (--no-renames), so both sides
// of a rename appear, as a deletion and an addition. It honours GIT_INDEX_FILE from
// g.Env, which git sets for `git commit -a` and `git commit <paths>`.
func StagedChanges(ctx context.Context, g gitrun.Git) ([]Change, error) {
	var changes []Change
	err := StreamStagedChanges(ctx, g, func(batch []Change) error {
		changes = append(changes, batch...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return changes, nil
}

// StreamStagedChanges is StagedChanges streamed: fn gets the changes in batches as git
// prints them (git prints them sorted by path), so that a hook reads lock directories
// while git still writes the rest of an initial import. A batch is only valid during
// the call (its slice is reused); the paths in it stay valid. An error from fn stops git.
//
// On an unborn branch (a repository's first commit) every entry of the index is an
// addition, and git's own list of the index (ls-files) says so sooner: `git diff
// --cached` against the empty tree prints nothing until it has compared all of an
// initial import (its first path comes after three quarters of its time), ls-files
// starts at once and takes a third of the time, so the folders are read while git
// still lists. An entry added with `git add -N` (not part of the commit) is checked
// too: the stricter side.
func StreamStagedChanges(ctx context.Context, g gitrun.Git, fn func([]Change) error) error {
	unborn, err := gitrun.HeadUnborn(ctx, g)
	if err != nil {
		return fmt.Errorf("cannot tell whether HEAD has a commit: %w", err)
	}
	if unborn {
		// --full-name and the top-level pathspec: the whole index, top-relative,
		// wherever the hook runs. An unmerged path is listed once per stage.
		args := []string{"ls-files", "-z", "--full-name", "--", ":/"}
		last := ""
		return g.Stream(ctx, args, func(out io.Reader) error {
			return streamFields(out, "git ls-files", fn, func(field string, add func(Change) error) error {
				if field == "" {
					return fmt.Errorf("git ls-files: an empty path")
				}
				if field == last {
					return nil
				}
				last = field
				return add(Change{Status: 'A', Path: field})
			}, func() error { return nil })
		})
	}
	args := []string{"diff", "--cached", "--name-status", "-z", "--no-renames",
		"--no-relative", "--ignore-submodules=none", "--no-ext-diff", "--no-textconv"}
	return g.Stream(ctx, args, func(out io.Reader) error {
		var p nameStatusParser
		return streamFields(out, "git diff --name-status", fn, p.feed, p.finish)
	})
}

// streamFields reads git's NUL-terminated fields from out as they come, feeds each to
// feed, which adds the changes it makes, and hands fn what each read added; finish
// checks what is left at the end.
func streamFields(out io.Reader, what string, fn func([]Change) error, feed func(string, func(Change) error) error, finish func() error) error {
	var batch []Change
	add := func(c Change) error {
		batch = append(batch, c)
		return nil
	}
	buf := make([]byte, 64<<10)
	carry := ""
	for {
		n, err := out.Read(buf)
		if n > 0 {
			// One string per read: the paths are slices of it, not one
			// allocation each (an initial import prints 100,000 of them).
			block := carry + string(buf[:n])
			for {
				i := strings.IndexByte(block, 0)
				if i < 0 {
					break
				}
				if perr := feed(block[:i], add); perr != nil {
					return perr
				}
				block = block[i+1:]
			}
			carry = block
			if len(batch) > 0 {
				if ferr := fn(batch); ferr != nil {
					return ferr
				}
				batch = batch[:0]
			}
		}
		if errors.Is(err, io.EOF) {
			if carry != "" {
				if perr := feed(carry, add); perr != nil {
					return perr
				}
				if len(batch) > 0 {
					if ferr := fn(batch); ferr != nil {
						return ferr
					}
				}
			}
			return finish()
		}
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
	}
}

// parseNameStatusZ parses `--name-status -z` output without renames: a status field
// then a path, each NUL-terminated. A trailing record without its path is an error:
// a hook must not guess.
func parseNameStatusZ(out []byte) ([]Change, error) {
	var changes []Change
	add := func(c Change) error {
		changes = append(changes, c)
		return nil
	}
	var p nameStatusParser
	text := string(out)
	for text != "" {
		f, rest, _ := strings.Cut(text, "\x00")
		text = rest
		if err := p.feed(f, add); err != nil {
			return nil, err
		}
	}
	if err := p.finish(); err != nil {
		return nil, err
	}
	return changes, nil
}

// nameStatusParser reads the NUL-separated fields of `--name-status -z` one at a time.
type nameStatusParser struct {
	status  string // the status of the record being read ("" between records)
	want    int    // paths still to come for it
	records int
}

// feed takes the next field (without its NUL) and passes each complete change to fn.
func (p *nameStatusParser) feed(field string, fn func(Change) error) error {
	if p.want == 0 {
		if field == "" {
			return fmt.Errorf("git diff --name-status: empty status field at record %d", p.records+1)
		}
		p.status, p.want = field, 1
		if field[0] == 'R' || field[0] == 'C' {
			p.want = 2 // a score and two paths, should rename detection be on after all
		}
		return nil
	}
	if field == "" {
		return fmt.Errorf("git diff --name-status: status %q with an empty path", p.status)
	}
	s := p.status[0]
	if p.status[0] == 'R' || p.status[0] == 'C' {
		if p.want == 2 && s == 'R' {
			s = 'D' // the old side of a rename leaves the tree
		} else {
			s = 'A'
		}
	}
	p.want--
	p.records++
	return fn(Change{Status: s, Path: field})
}

// finish reports a record whose paths did not all come.
func (p *nameStatusParser) finish() error {
	if p.want > 0 {
		return fmt.Errorf("git diff --name-status: status %q without a path", p.status)
	}
	return nil
}
