package lockcore

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkAcquireCreate measures one uncontended creation plus release.
func BenchmarkAcquireCreate(b *testing.B) {
	dir := b.TempDir()
	s := spec(dir)
	for i := 0; i < b.N; i++ {
		res, err := Acquire(s, AcquireOptions{Now: t0})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Release(res.Path, ReleaseOptions{Owner: s.Owner, Now: t0}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAcquireTakeover measures taking over an expired lock.
func BenchmarkAcquireTakeover(b *testing.B) {
	dir := b.TempDir()
	s := spec(dir)
	stale := spec(dir)
	stale.Owner = "old"
	now := t0
	for i := 0; i < b.N; i++ {
		if err := os.WriteFile(filepath.Join(dir, "LOCK.txt"), stale.Body(now.Add(-2*time.Hour), 1), 0o644); err != nil {
			b.Fatal(err)
		}
		if _, err := Acquire(s, AcquireOptions{Now: now}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBaselineOpenExcl is the reference's way, for comparison: open(O_EXCL),
// write, close, remove; no fsync, no temp file, so a crash can leave a torn lock.
func BenchmarkBaselineOpenExcl(b *testing.B) {
	dir := b.TempDir()
	p := filepath.Join(dir, "LOCK.txt")
	body := spec(dir).Body(t0, 1)
	for i := 0; i < b.N; i++ {
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := f.Write(body); err != nil {
			b.Fatal(err)
		}
		f.Close()
		os.Remove(p)
	}
}
