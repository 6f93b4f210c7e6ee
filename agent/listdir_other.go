//go:build !linux

package agent

import "os"

// listDir calls fn for each entry of dir with whether it is a folder (not following
// links).
func listDir(dir string, _ []byte, fn func(name string, isDir bool)) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		fn(e.Name(), e.IsDir())
	}
	return nil
}
