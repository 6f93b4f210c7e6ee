package main

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/guardlocks/guard/guard"
)

// A command that wrote its own explanation ends silently; any other failure is printed
// once, prefixed as main prints it.
func TestReportPrintsOnlyWhatWasNotSaid(t *testing.T) {
	var w bytes.Buffer
	assert.Equal(t, 1, report(&w, guard.Explained(guard.Refused)))
	assert.Equal(t, 7, report(&w, guard.CommandExit(7)))
	assert.Empty(t, w.String())
	assert.Equal(t, 2, report(&w, errors.New("disk full")))
	assert.Equal(t, 1, report(&w, guard.Fail(guard.Conflict, "lock refused: held by bob")))
	assert.Equal(t, "guard: disk full\nguard: lock refused: held by bob\n", w.String())
	assert.Equal(t, 0, report(&w, nil))
}
