//go:build !unix

package child

import (
	"errors"
	"os/exec"
)

// Run runs cmd to its end and returns its exit code.
func Run(cmd *exec.Cmd) (int, error) {
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return 0, err
	}
	return cmd.ProcessState.ExitCode(), nil
}
