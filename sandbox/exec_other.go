//go:build !unix

package sandbox

import "errors"

// execInPlace cannot replace a process where there is no exec(2).
func execInPlace(string, []string, []string) error {
	return errors.New("this system cannot replace a process with another (no exec)")
}
