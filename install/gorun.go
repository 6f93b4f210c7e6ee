package install

import (
	"path/filepath"
	"strings"
)

// temporaryBuild reports whether exe is a binary `go run` built: in its scratch folder
// ($TMPDIR/go-build.../b001/exe/guard), or, from Go 1.24 on, in the build cache
// ($GOCACHE/5a/<64 hex>-d/guard). A hook that records it stops working when Go removes
// it (at once after go run exits, or by go clean -cache and cache trimming), and then
// fails closed on every commit.
func temporaryBuild(exe string) bool {
	parts := strings.Split(filepath.ToSlash(exe), "/")
	for i, p := range parts {
		if strings.HasPrefix(p, "go-build") && i+2 < len(parts) && parts[i+2] == "exe" {
			return true
		}
	}
	if n := len(parts); n >= 3 {
		dir, shard := parts[n-2], parts[n-3]
		return len(shard) == 2 && isHex(shard) && len(dir) == 66 && strings.HasSuffix(dir, "-d") && isHex(dir[:64]) && strings.HasPrefix(dir, shard)
	}
	return false
}

func isHex(s string) bool {
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
