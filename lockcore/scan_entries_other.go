//go:build !linux

package lockcore

import (
	"errors"
	"io"
	"io/fs"
	"os"
)

// forEachEntry calls fn with the name and type of every entry of dir. opened reports
// whether dir could be opened; err is the first failure (entries read before it are
// still passed to fn).
func forEachEntry(dir string, fn func(name string, typ fs.FileMode)) (opened bool, err error) {
	f, err := os.Open(dir)
	if err != nil {
		return false, err
	}
	defer f.Close()
	for {
		entries, err := f.ReadDir(1024)
		for _, e := range entries {
			fn(e.Name(), e.Type())
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return true, nil
			}
			return true, err
		}
		if len(entries) == 0 {
			return true, nil
		}
	}
}
