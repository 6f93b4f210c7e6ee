//go:build windows

package atomicfile

// closeBeforeRename: Windows does not rename a file that is open without delete
// sharing.
const closeBeforeRename = true

// SyncDir does nothing on Windows: a directory cannot be opened for flushing there,
// and NTFS journals the rename itself.
func SyncDir(dir string) error { return nil }
