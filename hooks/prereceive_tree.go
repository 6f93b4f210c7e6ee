package hooks

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
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
	// prev is the commit whose lock files addPrev adds ("" none), and inTip the
	// lock-named paths the listed tree holds.
	prev  string
	inTip map[string]bool
	// markers are the publication markers in the tree of the tip (the first commit
	// given), as pre-push finds them.
	markers []foundMarker
}

// treeEntry is a lock-named (or .guard.toml) entry of a tree: its mode, its object
// (or, for an entry of the previous tree, the "<commit>:<path>" that names it), and
// the commit whose tree holds it.
type treeEntry struct {
	mode, oid, path, commit string
}

// buildLockTree writes under a new scratch folder in base the lock files and .guard.toml
// files of the tree of tip, listed with one `git ls-tree -r`; tip "" lists prev in
// full. Those of prev (the ref's previous commit; "" none) that tip's tree no longer
// holds are added by addPrev once the changed paths are known: a push that deletes
// another's lock is still judged by it. This part runs while git still walks the
// pushed commits.
func buildLockTree(ctx context.Context, g gitrun.Git, base, tip, prev string) (*lockTree, error) {
	if tip == "" {
		tip, prev = prev, ""
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		return nil, fmt.Errorf("scratch folder for the pushed locks: %w", err)
	}
	root, err := os.MkdirTemp(base, "push-")
	if err != nil {
		return nil, fmt.Errorf("scratch folder for the pushed locks: %w", err)
	}
	lt := &lockTree{root: root, prev: prev, inTip: map[string]bool{}}
	// The scratch folder is the top of a pretend working tree: an empty .git file
	// stops the policy's search for the repository top and for .guard.toml there.
	if err := os.WriteFile(filepath.Join(root, ".git"), nil, 0o644); err != nil {
		lt.remove()
		return nil, err
	}
	if tip == "" {
		return lt, nil
	}
	fail := func(err error) (*lockTree, error) {
		lt.remove()
		return nil, err
	}
	list, err := g.Start(ctx, nil, "-c", "core.quotePath=false", "ls-tree", "-r", "-z", "--full-tree", tip)
	if err != nil {
		return fail(err)
	}
	out, lerr := list.Wait()
	if lerr != nil {
		return fail(fmt.Errorf("listing the tree of %s: %w", gitrun.Short(tip), lerr))
	}
	var wanted []treeEntry
	inTip := lt.inTip
	// A large tree has many names and few lock files: the names are looked at in
	// place, and only a candidate becomes a string.
	for len(out) > 0 {
		rec, rest, _ := bytes.Cut(out, []byte{0})
		out = rest
		meta, name, ok := bytes.Cut(rec, []byte{'\t'})
		if !ok {
			continue
		}
		if guard.IsMarkerNameBytes(name) {
			lt.markers = append(lt.markers, foundMarker{rel: string(name), place: guard.MarkerInTree})
		}
		if !lockOrConfigName(name) {
			continue
		}
		f := strings.Fields(string(meta))
		if len(f) != 3 {
			continue
		}
		p := string(name)
		inTip[p] = true
		wanted = append(wanted, treeEntry{mode: f[0], oid: f[2], path: p, commit: tip})
		if f[1] != "blob" {
			wanted[len(wanted)-1].mode = "160000" // a submodule named like a lock
		}
	}
	if err := lt.fill(ctx, g, tip, wanted); err != nil {
		return fail(err)
	}
	return lt, nil
}

// prevPaths are the paths of changed that may be lock files or .guard.toml files of
// the previous tree which the pushed tree does not hold: only those make the
// previous tree's files matter (addPrev).
func (lt *lockTree) prevPaths(changed []string) []string {
	if lt.prev == "" {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, p := range changed {
		if !seen[p] && !lt.inTip[p] && lockOrConfigName([]byte(p)) {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// addPrev writes the lock files and .guard.toml files of the previous tree at the
// paths of changed that the pushed tree no longer holds (prevPaths): of prev's tree,
// only the paths that changed between the two can differ, and changed names them: the
// paths of the pushed commits and of the commits the update drops. (A path changed
// only by commits another ref of the server already has was judged when those came.)
func (lt *lockTree) addPrev(ctx context.Context, g gitrun.Git, changed []string) error {
	fromPrev := lt.prevPaths(changed)
	if len(fromPrev) == 0 {
		return nil
	}
	prev := lt.prev
	var ask []string
	for _, p := range fromPrev {
		ask = append(ask, prev+":"+p)
	}
	if err := noLineBreaks(ask); err != nil {
		return err
	}
	answers, err := batchCheck(ctx, g, ask)
	if err != nil {
		return err
	}
	var more []treeEntry
	for i, p := range fromPrev {
		a := answers[i]
		if a.typ == "" {
			continue // not in prev either: nothing to add
		}
		mode := "100644"
		if a.typ != "blob" {
			mode = "160000"
		}
		more = append(more, treeEntry{mode: mode, oid: a.oid, path: p, commit: prev})
	}
	return lt.fill(ctx, g, prev, more)
}

// fill writes the entries of commit's tree (lock files and .guard.toml files) under
// the scratch folder, with one `git cat-file --batch-check` (their sizes, and whether
// the folder of each scoped lock exists in that tree) and one `git cat-file --batch`
// (their contents). Folders that a scoped lock would cover are made too, so that the
// scope falls back to its folder as in a checkout.
func (lt *lockTree) fill(ctx context.Context, g gitrun.Git, commit string, wanted []treeEntry) error {
	if len(wanted) == 0 {
		return nil
	}
	var ask []string
	for _, e := range wanted {
		ask = append(ask, e.oid)
	}
	var folders []string
	for _, e := range wanted {
		if n, ok := lockcore.Classify(path.Base(e.path)); ok && n.Scope != "" && !strings.EqualFold(n.Scope, lockcore.ProjectScope) {
			folders = append(folders, path.Join(path.Dir(e.path), strings.ReplaceAll(n.Scope, ".", "/")))
		}
	}
	for _, f := range folders {
		ask = append(ask, commit+":"+f)
	}
	if err := noLineBreaks(ask); err != nil {
		return err
	}
	answers, err := batchCheck(ctx, g, ask)
	if err != nil {
		return err
	}
	var blobs []string
	for i, e := range wanted {
		if e.mode != "160000" && e.mode != "120000" && answers[i].size <= maxLockBlob {
			blobs = append(blobs, e.oid)
		}
	}
	contents, err := catBlobs(ctx, g, blobs)
	if err != nil {
		return err
	}
	for _, e := range wanted {
		if _, ok := contents[e.oid]; !ok && e.mode != "160000" && e.mode != "120000" {
			contents[e.oid] = tooLarge
		}
		if err := lt.write(e, contents); err != nil {
			return err
		}
	}
	for i, f := range folders {
		if answers[len(wanted)+i].typ == "tree" && cleanGitPath(f) {
			if err := os.MkdirAll(joinGitPath(lt.root, f), 0o755); err != nil {
				return err
			}
		}
	}
	return nil
}

// noLineBreaks refuses object names that `git cat-file --batch-check` would read as
// two questions.
func noLineBreaks(ask []string) error {
	for _, a := range ask {
		if strings.ContainsAny(a, "\n\r") {
			return fmt.Errorf("the pushed tree holds a lock file whose path has a line break (%q): guard cannot read it, so it cannot judge the push", a)
		}
	}
	return nil
}

// lockOrConfigName reports whether the last element of the git path p may be a lock
// file (lockcore.IsLockName decides) or is .guard.toml; a cheap test first, since a
// tree has many names and few of them end in ".txt".
func lockOrConfigName(p []byte) bool {
	b := p
	if i := bytes.LastIndexByte(p, '/'); i >= 0 {
		b = p[i+1:]
	}
	if string(b) == guard.ConfigFileName {
		return true
	}
	if len(b) < 8 || !bytes.EqualFold(b[len(b)-4:], []byte(".txt")) {
		return false
	}
	return lockcore.IsLockName(string(b))
}

// checked is one answer of `git cat-file --batch-check`: typ "" when git has no such
// object.
type checked struct {
	oid, typ string
	size     int64
}

// batchCheck asks `git cat-file --batch-check` about each object name (an object id
// or "<commit>:<path>"), one answer per question, in order.
func batchCheck(ctx context.Context, g gitrun.Git, ask []string) ([]checked, error) {
	if len(ask) == 0 {
		return nil, nil
	}
	out, err := g.RunInput(ctx, []byte(strings.Join(ask, "\n")+"\n"), "cat-file", "--batch-check")
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(ask) {
		return nil, fmt.Errorf("git cat-file --batch-check: %d answers for %d questions", len(lines), len(ask))
	}
	res := make([]checked, len(ask))
	for i, l := range lines {
		f := strings.Fields(l)
		if len(f) == 3 {
			size, err := strconv.ParseInt(f[2], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("git cat-file --batch-check: %q", l)
			}
			res[i] = checked{oid: f[0], typ: f[1], size: size}
		} else if !strings.HasSuffix(l, " missing") && !strings.HasSuffix(l, " ambiguous") {
			return nil, fmt.Errorf("git cat-file --batch-check: %q for %s", l, ask[i])
		}
	}
	return res, nil
}

// write puts one tree entry in its place under the scratch folder.
func (lt *lockTree) write(e treeEntry, contents map[string][]byte) error {
	if !cleanGitPath(e.path) {
		return nil // git never records such a path; nothing of it can be judged as a place
	}
	dst := joinGitPath(lt.root, e.path)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	switch {
	case path.Base(e.path) == guard.ConfigFileName:
		if data, ok := contents[e.oid]; ok && e.mode != "160000" && e.mode != "120000" {
			return os.WriteFile(dst, data, 0o644)
		}
		return nil
	case e.mode == "160000":
		return nil // a submodule named like a lock is no lock file
	case e.mode == "120000":
		// A symbolic link named like a lock: the checkout would hold a link guard never
		// follows and treats as a held lock (fail closed). A folder of that name is
		// judged the same way, and points nowhere on the server.
		return os.MkdirAll(dst, 0o755)
	}
	return os.WriteFile(dst, contents[e.oid], 0o644)
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

// maxLockBlob bounds what is read of one lock-named blob, and tooLarge stands in for
// a larger one (held, fail closed): the bound and the stand-in every gate that reads
// lock files from git uses.
const maxLockBlob = guard.TreeLockBound

var tooLarge = guard.TooLargeLockBody

// catBlobs reads blobs (each at most maxLockBlob bytes: batchCheck said so) with one
// `git cat-file --batch` and returns their contents by object name.
func catBlobs(ctx context.Context, g gitrun.Git, oids []string) (map[string][]byte, error) {
	out := map[string][]byte{}
	seen := map[string]bool{}
	var small []string
	for _, o := range oids {
		if !seen[o] {
			seen[o] = true
			small = append(small, o)
		}
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
		body, err := gitrun.ReadBatchObject(br, want, maxLockBlob)
		if err != nil {
			return nil, err
		}
		out[want] = body
	}
	return out, nil
}
