package main

import (
	"fmt"
	"io"

	"github.com/guardlocks/guard/cmd/guard/exitcode"
	"github.com/guardlocks/guard/guard"
)

// exitCode is the exit code of a command's error (package exitcode), the one mapping
// main, guard mcp and guard serve use.
var exitCode = exitcode.Of

// report writes err's explanation on w as main prints it, unless the command already
// wrote its own, and returns the exit code.
func report(w io.Writer, err error) int {
	if err != nil && !guard.IsExplained(err) {
		fmt.Fprintf(w, "guard: %v\n", err)
	}
	return exitCode(err)
}
