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
