package guard

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The outermost outcome decides, an error without one is Internal, and only an
// explanation not yet written is one a front end prints.
func TestOutcomeOf(t *testing.T) {
	conflict := Fail(Conflict, "held by %s", "bob")
	assert.Equal(t, Conflict, OutcomeOf(fmt.Errorf("lock: %w", conflict)))
	assert.Equal(t, BadInput, OutcomeOf(Fail(BadInput, "bad: %w", conflict)))
	assert.Equal(t, Internal, OutcomeOf(errors.New("disk full")))
	assert.Equal(t, Internal, OutcomeOf(nil))
	assert.Equal(t, "held by bob", conflict.Error())
	assert.False(t, IsExplained(conflict))
	assert.True(t, IsExplained(fmt.Errorf("check: %w", Explained(Refused))))
	assert.Equal(t, "refused", Explained(Refused).Error())
	assert.Equal(t, "exit status 9", CommandExit(9).Error())
	assert.Equal(t, Outcome(99).String(), "Outcome(99)")
}
