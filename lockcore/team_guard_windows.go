//go:build windows

package lockcore

import (
	"errors"
	"io/fs"
	"os"
)

// openGuard opens (creating) a team lock's guard file, refusing anything at that
// name that is not a regular file (Windows opens would follow a symbolic link).
func openGuard(gp string) (*os.File, error) {
	if st, err := os.Lstat(gp); err == nil && !st.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "open guard", Path: gp, Err: errors.New("not a regular file (symbolic links are refused)")}
	}
	return os.OpenFile(gp, os.O_RDWR|os.O_CREATE, 0o666)
}
