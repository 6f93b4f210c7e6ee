//go:build unix

package guard

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/guardtest"
	"github.com/guardlocks/guard/lockcore"
)

// blockKey is a Block as a refusal shows it.
type blockKey struct {
	Path, Lock, Reason string
	TeamClaim          bool
}

func blockKeys(d *Decision) []blockKey {
	var out []blockKey
	for _, b := range d.Blocking {
		k := blockKey{Path: b.Path, Reason: b.Reason, TeamClaim: b.TeamClaim}
		if b.Lock != nil {
			k.Lock = b.Lock.Path
		}
		out = append(out, k)
	}
	return out
}

// A commit of many files is judged from per-directory views (and its folders read
// several at once); every path must get exactly the answer it gets on its own way up
// (an lstat, a symlink resolution and a walk per path), in the same order.
func TestPolicyViewsDecideAsThePathByPathWalk(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	wt := filepath.Join(root, "wt")
	guardtest.InitRepo(t, repo)
	guardtest.Commit(t, repo, "init", map[string]string{"README": "r\n"})
	guardtest.Git(t, repo, "worktree", "add", "-q", "--detach", wt)

	other := fresh                                       // alice's
	mine := "owner: bob\ncreated: 2026-11-29T11:00:00\n" // the caller's own
	soft := other + "mode: soft\n"                       // only warns
	files := map[string]string{
		"a/LOCK.txt":           other,
		"b/LOCK.txt":           mine,
		"c/LOCK.web.txt":       other,
		"c/web/.keep":          "",
		"d/LOCK.api.txt":       other, // no folder, no mapping: all of d
		"e/LOCK.txt":           soft,
		"g/x/y/LOCK.txt":       other,
		"h/LOCK.docs.txt":      other,
		".guard.toml":          "[scopes]\ndocs = [\"manual/**\", \"*.md\"]\n",
		"k/LOCK.condition.txt": other + "release_condition: review\noperations: push\n",
		"LOCK.team.hostA.txt":  "owner: lead\ncreated: 2026-11-29T11:00:00\nhost: hostA\n\n" + lockcore.TeamSectionsTemplate(),
	}
	for rel, body := range files {
		write(t, filepath.Join(repo, rel), body)
	}
	_, err := lockcore.UpdateTeamLock(filepath.Join(repo, "LOCK.team.hostA.txt"), testNow,
		lockcore.TeamOp{Action: lockcore.TeamClaim, Agent: "agent-2", Section: lockcore.SectionFileClaims, Resources: []string{"m/claimed"}},
		lockcore.TeamUpdateOptions{})
	require.NoError(t, err)
	write(t, filepath.Join(wt, "w", "LOCK.txt"), other) // a lock in the linked worktree
	require.NoError(t, os.Symlink(filepath.Join(repo, "a"), filepath.Join(repo, "f")))
	// A link into a locked area: the lock is above the link's target, not in it.
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "a", "inner"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(repo, "a", "inner"), filepath.Join(repo, "r")))
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "l"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(repo, "a", "f000.txt"), filepath.Join(repo, "l", "to-a.txt")))
	require.NoError(t, os.Symlink(filepath.Join(repo, "nowhere"), filepath.Join(repo, "l", "dangling.txt")))
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "n"), 0o755))
	require.NoError(t, syscall.Mkfifo(filepath.Join(repo, "n", "LOCK.txt"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "s", "sub"), 0o755)) // a folder among the paths

	var paths []string
	for _, dir := range []string{"a", "b", "c", "c/web", "d", "e", "g", "g/x", "g/x/y", "g/x/y/z", "h", "h/manual", "k",
		"m", "m/claimed", "m/free", "w", "f", "r", "a/inner", "n", "s", "new/never/made", "z"} {
		for i := range 30 {
			rel := fmt.Sprintf("%s/f%03d.txt", dir, i)
			if i%3 == 0 && dir != "new/never/made" && dir != "f" && dir != "r" {
				write(t, filepath.Join(repo, rel), "x\n") // some exist, some do not (deletions)
			}
			paths = append(paths, filepath.Join(repo, filepath.FromSlash(rel)))
		}
	}
	paths = append(paths, filepath.Join(repo, "h", "notes.md"), filepath.Join(repo, "l", "to-a.txt"),
		filepath.Join(repo, "l", "dangling.txt"), filepath.Join(repo, "s", "sub"), filepath.Join(repo, "f"),
		filepath.Join(repo, "c", "web"), repo, filepath.Join(repo, "README"), "relative/x.txt")
	require.Greater(t, len(paths), prefetchMin, "large enough to be read several folders at once")

	for _, ops := range [][]string{{OpCommit}, {"push"}} {
		for _, descend := range []bool{false, true} {
			id := Identity{Owner: "bob", Host: "hostA"}
			req := Request{Ops: ops, Paths: paths, Descend: descend}
			fast, err := NewPolicy(testEnv(repo), id).Check(req)
			require.NoError(t, err)
			slow := NewPolicy(testEnv(repo), id)
			slow.perPath = true
			want, err := slow.Check(req)
			require.NoError(t, err)
			assert.Equal(t, blockKeys(want), blockKeys(fast), "ops %v, descend %v", ops, descend)
			assert.Equal(t, want.Warnings, fast.Warnings)

			// Streamed in batches while they are still being sent, as the pre-commit
			// hook asks while git prints: the same answer, in the same order.
			batches := make(chan []string)
			go func() {
				for i := 0; i < len(paths); i += 7 {
					batches <- paths[i:min(i+7, len(paths))]
				}
				close(batches)
			}()
			streamed, err := NewPolicy(testEnv(repo), id).CheckStream(Request{Ops: ops, Descend: descend}, batches)
			require.NoError(t, err)
			assert.Equal(t, blockKeys(want), blockKeys(streamed), "streamed: ops %v, descend %v", ops, descend)
			assert.Equal(t, want.Warnings, streamed.Warnings)
			assert.NotEmpty(t, want.Warnings)
			if len(ops) == 1 && ops[0] == OpCommit {
				// Through the link r the file lies in a's area, whose lock is above
				// the link's target: only the real path finds it.
				assert.Contains(t, blockKeys(fast), blockKey{Path: filepath.Join(repo, "r", "f001.txt"),
					Lock: filepath.Join(repo, "a", "LOCK.txt"), Reason: "exclusive lock " + filepath.Join(repo, "a", "LOCK.txt") + " held by alice"})
			}

			// And each path alone, as a single-file commit asks.
			one := NewPolicy(testEnv(repo), id)
			var each []blockKey
			for _, p := range paths {
				d, err := one.Check(Request{Ops: ops, Paths: []string{p}, Descend: descend})
				require.NoError(t, err)
				each = append(each, blockKeys(d)...)
			}
			assert.Equal(t, blockKeys(want), dedupeKeys(each), "ops %v, descend %v", ops, descend)
		}
	}
}

// dedupeKeys keeps the first of repeated keys, as one Check over all paths does.
func dedupeKeys(keys []blockKey) []blockKey {
	seen := map[blockKey]bool{}
	var out []blockKey
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}
