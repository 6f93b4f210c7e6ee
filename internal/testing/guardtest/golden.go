package guardtest

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

// update is the one flag that rewrites golden files, in every package:
// go test ./PKG -update.
var update = flag.Bool("update", false, "rewrite the golden files in testdata instead of comparing with them")

// Golden asserts that got is what the golden file at path holds; with -update it
// writes got there first (making its folder). Review the diff before committing.
func Golden(t testing.TB, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run '%s' -update writes it)", err, t.Name())
	}
	assert.Equal(t, string(want), got, "golden file %s", path)
}
