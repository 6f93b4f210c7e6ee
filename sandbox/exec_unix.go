//go:build unix

package sandbox

import "syscall"

// execInPlace replaces guard with the program at path; it returns only on failure.
func execInPlace(path string, argv, environ []string) error {
	return syscall.Exec(path, argv, environ)
}
