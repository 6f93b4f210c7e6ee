package exitcode

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/guardlocks/guard/guard"
)

// Of is CONTRACT.md section 3 in one table: every outcome a layer below can
// return, the code a process exits with for it.
func TestExitCodeOfEveryOutcome(t *testing.T) {
	cases := []struct {
		err  error
		want int
	}{
		{nil, 0},
		{errors.New("disk full"), 2},
		{guard.Fail(guard.Internal, "x"), 2},
		{guard.Fail(guard.BadInput, "x"), 2},
		{guard.Fail(guard.Refused, "x"), 1},
		{guard.Fail(guard.Conflict, "x"), 1},
		{guard.Fail(guard.NotFound, "x"), 1},
		{guard.Fail(guard.ContestLost, "x"), 3},
		{guard.Explained(guard.Ask), 4},
		{guard.Fail(guard.LockLost, "x"), 5},
		{guard.Fail(guard.CommandNotFound, "x"), 127},
		{guard.Fail(guard.CannotRun, "x"), 126},
		{guard.CommandExit(0), 0},
		{guard.CommandExit(1), 1},
		{guard.CommandExit(143), 143},
		// The outermost outcome decides: bad input that wraps a conflict is bad input.
		{guard.Fail(guard.BadInput, "reading: %w", guard.Fail(guard.Conflict, "held")), 2},
		{fmt.Errorf("lock: %w", guard.Fail(guard.Conflict, "held")), 1},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, Of(c.err), "%v (%s)", c.err, guard.OutcomeOf(c.err))
	}
}
