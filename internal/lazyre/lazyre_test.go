package lazyre

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCompiledOnFirstUseOnly(t *testing.T) {
	re := New(`^a(b+)$`)
	assert.True(t, re.MatchString("abb"))
	assert.Equal(t, []string{"abb", "bb"}, re.FindStringSubmatch("abb"))
	assert.Same(t, re.Regexp(), re.Regexp(), "compiled once")
	assert.Equal(t, "aXX", New(`b`).ReplaceAllStringFunc("abb", func(string) string { return "X" }))
	assert.Panics(t, func() { New(`(`).MatchString("x") }, "a bad pattern fails where it is used")
}
