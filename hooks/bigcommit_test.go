package hooks_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 10, item 8: a commit of thousands of files (an initial import) is judged
// from per-directory views and its folders are read while git still prints the diff.
// Every staged path must still get its own refusal, from the right lock, exactly as
// when it is checked alone.
func TestABigCommitGetsTheSamePerPathRefusals(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	dir := filepath.Join(t.TempDir(), "repo")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	w.git(dir, "init", "-q", "-b", "main")
	w.git(dir, "config", "user.name", "Alice")
	w.git(dir, "config", "user.email", "alice@example.com")
	write(t, dir, ".git/info/exclude", "LOCK*.txt\n")
	const dirs, perDir = 60, 50
	var rels []string
	for d := range dirs {
		for f := range perDir {
			rel := fmt.Sprintf("d%02d/f%02d.txt", d, f)
			write(t, dir, rel, "x\n")
			rels = append(rels, rel)
		}
	}
	// bob's locks stop alice; her own and a soft lock do not; a scoped lock covers
	// only its folder; a lock two levels up covers a nested folder.
	for _, d := range []int{3, 17, 42} {
		lock(t, dir, fmt.Sprintf("d%02d/LOCK.txt", d), "")
	}
	write(t, dir, "d05/LOCK.txt", "owner: alice\nexpires_after: 24h\n")
	lock(t, dir, "d07/LOCK.txt", "mode: soft\n")
	lock(t, dir, "d09/LOCK.web.txt", "")
	for f := range perDir {
		rel := fmt.Sprintf("d09/web/g%02d.txt", f)
		write(t, dir, rel, "x\n")
		rels = append(rels, rel)
	}
	lock(t, dir, "d11/LOCK.txt", "")
	for f := range 10 {
		rel := fmt.Sprintf("d11/a/b/h%02d.txt", f)
		write(t, dir, rel, "x\n")
		rels = append(rels, rel)
	}
	w.git(dir, "add", "-A")
	w.install(dir)

	blockedBy := map[string]string{} // path -> lock
	for _, rel := range rels {
		top := rel[:3]
		switch {
		case top == "d03" || top == "d17" || top == "d42" || top == "d11":
			blockedBy[filepath.Join(dir, filepath.FromSlash(rel))] = filepath.Join(dir, top, "LOCK.txt")
		case strings.HasPrefix(rel, "d09/web/"):
			blockedBy[filepath.Join(dir, filepath.FromSlash(rel))] = filepath.Join(dir, "d09", "LOCK.web.txt")
		}
	}
	require.Len(t, blockedBy, 3*perDir+perDir+perDir+10)

	r := w.gitCode(dir, nil, "commit", "-q", "-m", "initial import")
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Contains(t, r.stderr, fmt.Sprintf("guard: refused commit: %d path(s) blocked", len(blockedBy)))
	assert.Contains(t, r.stderr, "soft lock "+filepath.Join(dir, "d07", "LOCK.txt"))
	assert.Equal(t, 0, strings.Count(r.stderr, "d05"), "alice's own lock stops nobody: %s", r.stderr)
	for _, d := range []string{"d03", "d17", "d42"} {
		assert.Contains(t, r.stderr, "lock: "+filepath.Join(dir, d, "LOCK.txt"))
	}
	assert.Contains(t, r.stderr, fmt.Sprintf("... and %d more", perDir+10-20), "d11 holds its own files and the nested ones")

	// The whole list, as `guard check --json` gives it for the same paths.
	var abs []string
	for _, rel := range rels {
		abs = append(abs, filepath.Join(dir, filepath.FromSlash(rel)))
	}
	c := w.guard(dir, append([]string{"check", "--json", "--op", "commit"}, abs...)...)
	require.Equal(t, 1, c.code, c.stderr)
	var got struct {
		Blocking []struct {
			Path string `json:"path"`
			Lock struct {
				Path string `json:"path"`
			} `json:"lock"`
		} `json:"blocking"`
	}
	require.NoError(t, json.Unmarshal([]byte(c.stdout), &got))
	gotBy := map[string]string{}
	for _, b := range got.Blocking {
		gotBy[b.Path] = b.Lock.Path
	}
	assert.Equal(t, blockedBy, gotBy)

	// And one path of every folder checked alone gives the same answer.
	sort.Strings(rels)
	seen := map[string]bool{}
	for _, rel := range rels {
		d := filepath.Dir(rel)
		if seen[d] {
			continue
		}
		seen[d] = true
		p := filepath.Join(dir, filepath.FromSlash(rel))
		one := w.guard(dir, "check", "--op", "commit", p)
		want := 0
		if _, ok := blockedBy[p]; ok {
			want = 1
		}
		assert.Equal(t, want, one.code, "%s: %s", rel, one.stderr)
	}
}
