//go:build !windows

package lockcore

// fileAttributes: only Windows has placeholder attributes.
func fileAttributes(string) (uint32, bool) { return 0, false }
