package guard

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardlocks/guard/lockcore"
)

// BenchmarkCheckCommitUnderScopedLocks is a commit of 2000 files in a tree whose root
// holds scoped locks of another owner (one on the folder the files are in, one on a
// sibling folder), as the pre-commit hook asks it.
func BenchmarkCheckCommitUnderScopedLocks(b *testing.B) {
	root := b.TempDir()
	for _, d := range []string{"src/a", "docs"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	for _, n := range []string{"LOCK.docs.txt", "LOCK.src.txt"} {
		if err := os.WriteFile(filepath.Join(root, n), []byte(fresh), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	var paths []string
	for i := 0; i < 2000; i++ {
		paths = append(paths, filepath.Join(root, "src/a", fmt.Sprintf("f%d.go", i)))
	}
	env := testEnv(root)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		dec, err := NewPolicy(env, Identity{Owner: "bob", Host: "hostA"}).Check(Request{Ops: []string{"commit"}, Paths: paths})
		if err != nil || dec.Allowed || len(dec.Blocking) != 2000 {
			b.Fatalf("%v %v %d", err, dec.Allowed, len(dec.Blocking))
		}
	}
}

// BenchmarkCheckCommitUnderOwnTeamLock is a commit of 2000 files in the area of a team
// lock of the caller's own host, whose claims are looked at for every path.
func BenchmarkCheckCommitUnderOwnTeamLock(b *testing.B) {
	root := b.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "src"), 0o755); err != nil {
		b.Fatal(err)
	}
	body := "owner: lead\ncreated: 2026-11-29T11:00:00\nhost: hostA\nexpires_after: 24h\n" + lockcore.TeamSectionsTemplate()
	body = strings.Replace(body, "# FILE-CLAIMS:\n", "# FILE-CLAIMS:\n[agent-1] EDITING  order=000001 | docs\n", 1)
	if err := os.WriteFile(filepath.Join(root, "LOCK.team.hostA.txt"), []byte(body), 0o644); err != nil {
		b.Fatal(err)
	}
	var paths []string
	for i := 0; i < 2000; i++ {
		paths = append(paths, filepath.Join(root, "src", fmt.Sprintf("f%d.go", i)))
	}
	env := testEnv(root)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		dec, err := NewPolicy(env, Identity{Owner: "agent-2", Host: "hostA"}).Check(Request{Ops: []string{"commit"}, Paths: paths})
		if err != nil || !dec.Allowed {
			b.Fatalf("%v %+v", err, dec)
		}
	}
}
