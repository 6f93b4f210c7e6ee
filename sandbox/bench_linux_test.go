package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/testing/guardtest/envtest"
)

// benchTree makes a project of 10,000 leaf folders (10 x 10 x 100, each with a file)
// and 100 locks of another owner, one in each middle folder: every middle folder is
// then a boundary whose 99 other leaves need a rule of their own, the worst spread of
// 100 locks for the ruleset's size.
func benchTree(b *testing.B) string {
	b.Helper()
	root := b.TempDir()
	for i := range 10 {
		for j := range 10 {
			for k := range 100 {
				leaf := filepath.Join(root, fmt.Sprintf("a%d", i), fmt.Sprintf("b%d", j), fmt.Sprintf("c%d", k))
				if err := os.MkdirAll(leaf, 0o755); err != nil {
					b.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(leaf, "f.txt"), nil, 0o644); err != nil {
					b.Fatal(err)
				}
				if k == 0 {
					lock := "owner: alice\ncreated: 2099-01-01T00:00:00\n"
					if err := os.WriteFile(filepath.Join(leaf, "LOCK.txt"), []byte(lock), 0o644); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
	}
	return root
}

func benchAreas(b *testing.B, root string) []string {
	b.Helper()
	env := envtest.New(envtest.At(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)), envtest.Identity("bob", "box1"), envtest.Dir(root)).Env
	subject, err := guard.ResolveSubject(env, root, guard.Identity{Owner: "bob", Host: "box1"})
	if err != nil {
		b.Fatal(err)
	}
	set := subject.Policy(env).ReadOnlyAreas(Roots(subject), nil)
	var paths []string
	for _, a := range set.Areas {
		paths = append(paths, a.Path)
	}
	return paths
}

func needABI(b *testing.B) int {
	abi := ABI()
	if abi < 1 {
		b.Skip("this kernel offers no Landlock: there is no ruleset to build")
	}
	return abi
}

// BenchmarkRuleset is the cost of turning the read-only areas of the tree into a
// Landlock ruleset: the plan (listing the boundary folders) and the kernel's ruleset
// with every rule added, not enforced.
func BenchmarkRuleset(b *testing.B) {
	abi := needABI(b)
	root := benchTree(b)
	paths := benchAreas(b, root)
	if len(paths) != 200 {
		b.Fatalf("want 100 areas and 100 lock files, got %d paths", len(paths))
	}
	b.ResetTimer()
	var rules int
	cpu0 := cpuTime(b)
	for b.Loop() {
		plan, err := NewPlan(paths, nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := Build(plan, abi); err != nil {
			b.Fatal(err)
		}
		rules = len(plan.Writable) + len(plan.WritableFiles) + 1
	}
	b.ReportMetric(float64(rules), "rules")
	b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the CPU time (user and system, every thread) the process has used: on a
// loaded machine it says more about the work than the wall clock does.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkAreasAndRuleset adds what comes before: reading every lock of the tree
// (10,110 folders) and asking the policy for the areas.
func BenchmarkAreasAndRuleset(b *testing.B) {
	abi := needABI(b)
	root := benchTree(b)
	b.ResetTimer()
	cpu0 := cpuTime(b)
	for b.Loop() {
		plan, err := NewPlan(benchAreas(b, root), nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := Build(plan, abi); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkAreasAndExactPlan is the exact sandbox's share of the same work: reading
// every lock of the tree, asking the policy for the areas, and the mounts' plan (one
// lstat per path, no folder listed). The mounts themselves happen in the namespace
// child; bench/sandbox.sh times them end to end.
func BenchmarkAreasAndExactPlan(b *testing.B) {
	root := benchTree(b)
	b.ResetTimer()
	cpu0 := cpuTime(b)
	var mounts int
	for b.Loop() {
		plan, err := NewExactPlan(benchAreas(b, root), nil)
		if err != nil {
			b.Fatal(err)
		}
		mounts = len(plan.ReadOnly) + len(plan.Pinned)
	}
	b.ReportMetric(float64(mounts), "mounts")
	b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(b.N), "cpu-ns/op")
}
