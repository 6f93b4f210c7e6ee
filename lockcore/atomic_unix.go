//go:build unix

package lockcore

import (
	"os"
	"syscall"
)

// oNoFollow makes an open fail on a symlink instead of following it.
const oNoFollow = syscall.O_NOFOLLOW

// beforePublish: the temp file stays open (and locked) while it is linked or renamed
// into place, so no cleanup can take it.
func beforePublish(*os.File) {}
