package guard

import (
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestQuoteTOMLReadsBackAsTheSameString(t *testing.T) {
	for _, s := range []string{"", "npm publish", `a "quoted" \ path`, "tab\tand\nnewline", "bell\x07 del\x7f", "é ü 字"} {
		var v struct{ K string }
		_, err := toml.Decode("k = "+QuoteTOML(s)+"\n", &v)
		require.NoError(t, err, "%q", s)
		assert.Equal(t, s, v.K)
	}
	assert.Equal(t, `"a\tb\nc\u0007"`, QuoteTOML("a\tb\nc\a"))
}
