//go:build !unix

package child

import (
	"os/exec"

	"github.com/guardlocks/guard/internal/execpath"
)

// Run runs cmd to its end and returns its exit code.
func Run(cmd *exec.Cmd) (int, error) {
	return execpath.Status(cmd, cmd.Run())
}
