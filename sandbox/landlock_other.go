//go:build !linux

package sandbox

import "errors"

// ABI is 0 outside Linux: no kernel there offers Landlock.
func ABI() int { return 0 }

// Enforce always fails outside Linux.
func Enforce(*Plan, int) error {
	return errors.New("only Linux (5.13 and later, with Landlock) can enforce a sandbox")
}
