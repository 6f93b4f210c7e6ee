package install

import (
	"path/filepath"
	"strings"
)

// temporaryBuild reports whether exe is a binary `go run` built in its scratch folder
// ($TMPDIR/go-build.../b001/exe/guard): a hook that records it stops working when the
// folder is removed (at once after go run exits, or by go clean -cache), and then fails
// closed on every commit.
func temporaryBuild(exe string) bool {
	parts := strings.Split(filepath.ToSlash(exe), "/")
	for i, p := range parts {
		if strings.HasPrefix(p, "go-build") && i+2 < len(parts) && parts[i+2] == "exe" {
			return true
		}
	}
	return false
}
