//go:build windows

package lockcore

import "os"

// oNoFollow: Windows opens no POSIX symlinks; callers Lstat first where it matters.
const oNoFollow = 0

// beforePublish closes the temp file: Windows does not rename or link a file that is
// open without delete sharing. A cleanup may then take it; the caller retries.
func beforePublish(f *os.File) { _ = f.Close() }
