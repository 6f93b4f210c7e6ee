//go:build !linux

package sandbox

import (
	"errors"
	"runtime"
)

// Exact reports whether the exact sandbox (user and mount namespaces) can run here:
// only Linux has them, so elsewhere it always says why not.
func Exact() error {
	return errors.New("the exact sandbox needs Linux user and mount namespaces; " + runtime.GOOS + " has none")
}
