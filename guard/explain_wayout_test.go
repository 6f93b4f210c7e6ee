package guard

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTheWayOutOfALockThatNeverExpiresDoesNotSayWaitForIt(t *testing.T) {
	tests := []struct {
		name, file, body, want string
	}{
		{"a legacy lock is removed by hand", "TEST.txt", "owner: alice\n",
			"a legacy lock never expires: ask alice to remove %s when the work it marks is done"},
		{"an until lock without a usable not_before holds until removed", "LOCK.until.txt", "owner: alice\nnot_before: someday\n",
			"it has no usable not_before, so it never expires: ask alice to run `guard unlock %s` when done"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			lock := filepath.Join(root, tc.file)
			write(t, lock, tc.body)
			dec, err := NewPolicy(testEnv(root), Identity{Owner: "bob", Host: "hostA"}).Check(Request{Paths: []string{filepath.Join(root, "f")}})
			require.NoError(t, err)
			require.False(t, dec.Allowed)
			var b bytes.Buffer
			dec.Explain(&b)
			assert.NotContains(t, b.String(), "wait until it expires")
			assert.Contains(t, b.String(), "  what now: "+sprintf(tc.want, lock)+"\n")
		})
	}
}

func sprintf(format, path string) string { return fmt.Sprintf(format, path) }
