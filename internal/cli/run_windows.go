//go:build windows

package cli

import (
	"os"
	"os/exec"
	"syscall"
)

// childAttrs: Windows has no process groups to signal; COMMAND is stopped alone.
func childAttrs(int) *syscall.SysProcAttr { return nil }

// signalGroup stops COMMAND: Windows cannot deliver SIGTERM or SIGINT to another
// process, so every signal ends it.
func signalGroup(cmd *exec.Cmd, _ os.Signal) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

// stopGroup: nothing is left to stop on Windows once COMMAND exited.
func stopGroup(*exec.Cmd, syscall.Signal) {}

// restoreForeground: no terminal process groups on Windows.
func restoreForeground(int, *exec.Cmd) {}
