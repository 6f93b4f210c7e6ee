package hooks

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseReceiveLinesReadsGitsLinesAndRefusesAnythingElse(t *testing.T) {
	a, b, z := strings.Repeat("a", 40), strings.Repeat("b", 40), strings.Repeat("0", 40)
	ups, err := ParseReceiveLines(strings.NewReader(a + " " + b + " refs/heads/main\n\n" + z + " " + b + " refs/tags/v1\r\n" + a + " " + z + " refs/heads/old\n"))
	require.NoError(t, err)
	require.Equal(t, []ReceiveUpdate{{a, b, "refs/heads/main"}, {z, b, "refs/tags/v1"}, {a, z, "refs/heads/old"}}, ups)
	assert.False(t, ups[0].Creation() || ups[0].Deletion() || ups[0].Tag())
	assert.True(t, ups[1].Creation() && ups[1].Tag())
	assert.True(t, ups[2].Deletion())
	assert.Equal(t, "create refs/tags/v1", ups[1].String())
	assert.Equal(t, "delete refs/heads/old", ups[2].String())

	for in, want := range map[string]string{
		a + " " + b:                              "receive input line 1: want `<old> <new> <ref>`, got",
		a + " " + b + " refs/heads/a b":          "receive input line 1: want `<old> <new> <ref>`",
		a + " " + b[:39] + " refs/heads/main":    "want two full object names",
		a + " " + strings.Repeat("b", 64) + " r": "want two full object names",
		a + " " + strings.Repeat("B", 40) + " r": "want two full object names",
		z + " " + z + " refs/heads/main":         "both object names are zeros",
		a + " " + b + " refs/heads/\x01":         "is not a ref name",
		"\n" + a + " " + b + "  refs/heads/main": "receive input line 2",
	} {
		_, err := ParseReceiveLines(strings.NewReader(in))
		require.Error(t, err, "%q", in)
		assert.Contains(t, err.Error(), want, "%q", in)
	}
}

// FuzzParseReceiveLines: whatever git (or anyone) writes on the hook's stdin, the
// parser never panics, and every update it accepts is one git could have sent: two
// object names of one length (not both zeros) and a ref without blanks, which read
// back the same.
func FuzzParseReceiveLines(f *testing.F) {
	a, b, z := strings.Repeat("a", 40), strings.Repeat("b", 40), strings.Repeat("0", 40)
	f.Add(a + " " + b + " refs/heads/main\n")
	f.Add(z + " " + b + " refs/tags/v1\r\n\n" + a + " " + z + " refs/heads/x\n")
	f.Add(a + " " + b)
	f.Add(strings.Repeat("c", 64) + " " + strings.Repeat("d", 64) + " refs/heads/sha256\n")
	f.Fuzz(func(t *testing.T, in string) {
		ups, err := ParseReceiveLines(strings.NewReader(in))
		if err != nil {
			return
		}
		var again strings.Builder
		for _, u := range ups {
			if !isHex(u.Old) || !isHex(u.New) || len(u.Old) != len(u.New) || (isZero(u.Old) && isZero(u.New)) {
				t.Fatalf("accepted object names %q %q", u.Old, u.New)
			}
			if u.Ref == "" || strings.ContainsAny(u.Ref, " \t\n\r\x00") {
				t.Fatalf("accepted ref %q", u.Ref)
			}
			again.WriteString(u.Old + " " + u.New + " " + u.Ref + "\n")
		}
		back, err := ParseReceiveLines(strings.NewReader(again.String()))
		if err != nil || len(back) != len(ups) {
			t.Fatalf("accepted %q but not its own rendering: %v", in, err)
		}
		for i := range ups {
			if back[i] != ups[i] {
				t.Fatalf("%v read back as %v", ups[i], back[i])
			}
		}
	})
}
