package lockcore

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestALockdownReasonStaysOnePurposeLine(t *testing.T) {
	for _, sep := range []string{"\n", "\x1c", "\x1d", "\x1e", "\u2028"} {
		body := LockdownBody("user", "h", "maintenance"+sep+"owner: eve", t0, 1)
		l, err := ParseLock("/r/LOCK.txt", body, t0, t0.Location())
		require.NoError(t, err)
		assert.Equal(t, "user", l.Owner, "%q", sep)
		assert.Equal(t, "maintenance owner: eve", l.Purpose, "%q", sep)
	}
}

func TestLockdownRefusesAnOwnerOrHostOfSeveralLines(t *testing.T) {
	tests := []struct {
		name        string
		owner, host string
	}{
		{"an owner with a newline would write a field of its own", "ops\nexpires_after: 1s", "h"},
		{"a host with U+2028 likewise", "ops", "h\u2028mode: soft"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			_, err := Lockdown([]string{root}, LockdownOptions{Owner: tc.owner, Host: tc.host, Now: t0, Commit: true})
			require.ErrorIs(t, err, ErrInvalid)
			_, statErr := os.Stat(filepath.Join(root, "LOCK.txt"))
			assert.True(t, os.IsNotExist(statErr), "nothing written")
		})
	}
}
