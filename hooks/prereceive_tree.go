package hooks

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/gitrun"
	"github.com/guardlocks/guard/lockcore"
)

// lockTree is the part of pushed trees that the policy needs, written out as files: a
// bare repository has no working tree, so the lock files (and .guard.toml files) that
// the pushed commits carry are copied, at their places, into a scratch folder that
// stands in for one. The policy then judges the pushed paths under that folder exactly
// as `guard ci` judges them in a checkout: the same lock files, the same scopes.
//
// The folder lives in the repository's guard directory (<git-dir>/guard/receive), never
// in the quarantine (objects/incoming-*), and is removed when the hook is done.
type lockTree struct {
	root string
	// markers are the publication markers in the tree of the tip (the first commit
	// given), as pre-push finds them.
	markers []foundMarker
}

// treeEntry is one line of `git ls-tree -r -t -z`.
type treeEntry struct {
	mode, typ, oid, path string
}

// buildLockTree lists the trees of commits (the tip first: where two trees hold the same
// path, the first wins) with one `git ls-tree` each, reads the lock files and
// .guard.toml files they hold with one `git cat-file --batch`, and writes them under a
// new scratch folder in base. Folders that a scoped lock would cover are made too, so
// that the scope falls back to its folder as it would in a checkout.
func buildLockTree(ctx context.Context, g gitrun.Git, base string, commits []string) (*lockTree, error) {
	if err := os.MkdirAll(base, 0o755); err != nil {
		return nil, fmt.Errorf("scratch folder for the pushed locks: %w", err)
	}
	root, err := os.MkdirTemp(base, "push-")
	if err != nil {
		return nil, fmt.Errorf("scratch folder for the pushed locks: %w", err)
	}
	lt := &lockTree{root: root}
	// The scratch folder is the top of a pretend working tree: an empty .git file
	// stops the policy's search for the repository top and for .guard.toml there.
	if err := os.WriteFile(filepath.Join(root, ".git"), nil, 0o644); err != nil {
		lt.remove()
		return nil, err
	}
	procs := make([]*gitrun.Process, len(commits))
	for i, c := range commits {
		if procs[i], err = g.Start(ctx, nil, "-c", "core.quotePath=false", "ls-tree", "-r", "-t", "-z", "--full-tree", c); err != nil {
			lt.remove()
			return nil, err
		}
	}
	trees := map[string]bool{}
	wanted := map[string]treeEntry{}
	var order []string
	var listErr error
	for i, p := range procs {
		out, err := p.Wait()
		if err != nil {
			if listErr == nil {
				listErr = fmt.Errorf("listing the tree of %s: %w", short(commits[i]), err)
			}
			continue
		}
		for len(out) > 0 {
			rec, rest, _ := bytes.Cut(out, []byte{0})
			out = rest
			meta, name, ok := bytes.Cut(rec, []byte{'\t'})
			if !ok {
				continue
			}
			f := strings.Fields(string(meta))
			if len(f) != 3 {
				continue
			}
			e := treeEntry{mode: f[0], typ: f[1], oid: f[2], path: string(name)}
			if e.typ == "tree" {
				trees[e.path] = true
				continue
			}
			if i == 0 && guard.IsMarkerNameBytes(name) {
				lt.markers = append(lt.markers, foundMarker{rel: e.path, place: guard.MarkerInTree})
			}
			b := path.Base(e.path)
			if b != guard.ConfigFileName && !lockcore.IsLockName(b) {
				continue
			}
			if _, seen := wanted[e.path]; !seen {
				wanted[e.path] = e
				order = append(order, e.path)
			}
		}
	}
	if listErr != nil {
		lt.remove()
		return nil, listErr
	}
	var blobs []string
	for _, p := range order {
		if e := wanted[p]; e.typ == "blob" && e.mode != "120000" {
			blobs = append(blobs, e.oid)
		}
	}
	contents, err := catBlobs(ctx, g, blobs)
	if err != nil {
		lt.remove()
		return nil, err
	}
	for _, p := range order {
		if err := lt.write(wanted[p], contents, trees); err != nil {
			lt.remove()
			return nil, err
		}
	}
	return lt, nil
}

// write puts one tree entry in its place under the scratch folder.
func (lt *lockTree) write(e treeEntry, contents map[string][]byte, trees map[string]bool) error {
	if !cleanGitPath(e.path) {
		return nil // git never records such a path; nothing of it can be judged as a place
	}
	dst := joinGitPath(lt.root, e.path)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	b := path.Base(e.path)
	if b == guard.ConfigFileName {
		if data, ok := contents[e.oid]; ok && e.typ == "blob" {
			return os.WriteFile(dst, data, 0o644)
		}
		return nil
	}
	switch {
	case e.typ != "blob":
		return nil // a submodule named like a lock is no lock file
	case e.mode == "120000":
		// A symbolic link named like a lock: the checkout would hold a link guard never
		// follows and treats as a held lock (fail closed). A folder of that name is
		// judged the same way, and points nowhere on the server.
		if err := os.MkdirAll(dst, 0o755); err != nil {
			return err
		}
	default:
		if err := os.WriteFile(dst, contents[e.oid], 0o644); err != nil {
			return err
		}
	}
	// A scoped lock without a [scopes] mapping covers the folder of its scope if the
	// tree has one: make it, so that the policy sees it.
	if n, ok := lockcore.Classify(b); ok && n.Scope != "" && !strings.EqualFold(n.Scope, lockcore.ProjectScope) {
		folder := path.Join(path.Dir(e.path), strings.ReplaceAll(n.Scope, ".", "/"))
		if path.Dir(e.path) == "." {
			folder = strings.ReplaceAll(n.Scope, ".", "/")
		}
		for t := range trees {
			if strings.EqualFold(t, folder) && cleanGitPath(t) {
				if err := os.MkdirAll(joinGitPath(lt.root, t), 0o755); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// abs places git paths under the scratch folder.
func (lt *lockTree) abs(rel []string) []string {
	out := make([]string, 0, len(rel))
	for _, p := range rel {
		out = append(out, joinGitPath(lt.root, p))
	}
	return out
}

// rel turns a path under the scratch folder back into the repository's name for it
// ("" for the top itself); text elsewhere is returned as it is.
func (lt *lockTree) rel(p string) string {
	if p == lt.root {
		return "(the repository)"
	}
	return strings.TrimPrefix(p, lt.root+string(filepath.Separator))
}

// scrub takes the scratch folder's name out of a sentence.
func (lt *lockTree) scrub(s string) string {
	s = strings.ReplaceAll(s, lt.root+string(filepath.Separator), "")
	return strings.ReplaceAll(s, lt.root, "(the repository)")
}

func (lt *lockTree) remove() {
	if lt != nil && lt.root != "" {
		_ = os.RemoveAll(lt.root)
	}
}

// maxLockBlob bounds what is read of one lock-named blob: a lock file is a few lines,
// and a pushed 1 GB file named LOCK.txt must not be read into the server's memory.
const maxLockBlob = 1 << 20

// tooLarge stands in for a lock-named blob larger than maxLockBlob: not a lock guard
// can read, so it is treated as held (fail closed).
var tooLarge = []byte("this lock file is too large for guard to read\n")

// catBlobs reads blobs with `git cat-file --batch-check` (their sizes) and one `git
// cat-file --batch` (those of at most maxLockBlob bytes), and returns their contents by
// object name.
func catBlobs(ctx context.Context, g gitrun.Git, oids []string) (map[string][]byte, error) {
	out := map[string][]byte{}
	seen := map[string]bool{}
	var asked []string
	for _, o := range oids {
		if !seen[o] {
			seen[o] = true
			asked = append(asked, o)
		}
	}
	if len(asked) == 0 {
		return out, nil
	}
	check, err := g.RunInput(ctx, []byte(strings.Join(asked, "\n")+"\n"), "cat-file", "--batch-check")
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSuffix(string(check), "\n"), "\n")
	if len(lines) != len(asked) {
		return nil, fmt.Errorf("git cat-file --batch-check: %d answers for %d objects", len(lines), len(asked))
	}
	var small []string
	for i, l := range lines {
		f := strings.Fields(l)
		if len(f) != 3 || f[0] != asked[i] {
			return nil, fmt.Errorf("git cat-file --batch-check: %q for %s (a pushed object is missing?)", l, asked[i])
		}
		if size, err := strconv.ParseInt(f[2], 10, 64); err != nil || size > maxLockBlob {
			out[asked[i]] = tooLarge
			continue
		}
		small = append(small, asked[i])
	}
	if len(small) == 0 {
		return out, nil
	}
	data, err := g.RunInput(ctx, []byte(strings.Join(small, "\n")+"\n"), "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	br := bufio.NewReader(bytes.NewReader(data))
	for _, want := range small {
		header, err := br.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("git cat-file --batch: %w", err)
		}
		f := strings.Fields(header)
		if len(f) != 3 || f[0] != want {
			return nil, fmt.Errorf("git cat-file --batch: unexpected answer %q for %s", strings.TrimSpace(header), want)
		}
		size, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil || size < 0 || size > maxLockBlob {
			return nil, fmt.Errorf("git cat-file --batch: bad size in %q", strings.TrimSpace(header))
		}
		body := make([]byte, size)
		if _, err := io.ReadFull(br, body); err != nil {
			return nil, fmt.Errorf("git cat-file --batch: reading %s: %w", want, err)
		}
		if _, err := br.Discard(1); err != nil { // the newline after the content
			return nil, fmt.Errorf("git cat-file --batch: reading %s: %w", want, err)
		}
		out[want] = body
	}
	return out, nil
}
