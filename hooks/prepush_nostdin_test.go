package hooks_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A hook manager that drops git's stdin (lefthook without use_stdin: true) hands the
// pre-push hook no ref lines; nothing can be checked, and guard says so instead of
// passing in silence.
func TestPrePushWithoutRefLinesWarns(t *testing.T) {
	w := newWorld(t)
	dir := w.repo()
	r := w.guard(dir, "hook", "pre-push", "origin", "/nowhere")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "guard: warning: pre-push got no ref lines on stdin, so no pushed path was checked")
}
