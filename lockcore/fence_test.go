package lockcore

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var fenceNow = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func TestNewFence(t *testing.T) {
	t.Run("a frozen clock still gives a larger fence than the previous one", func(t *testing.T) {
		a := NewFence(0, fenceNow)
		b := NewFence(a, fenceNow)
		assert.Greater(t, b, a)
	})
	t.Run("a huge previous fence is stepped past", func(t *testing.T) {
		assert.Greater(t, NewFence(1e18, fenceNow), int64(1e18))
	})
	t.Run("a clock ahead of the previous fence sets the value", func(t *testing.T) {
		now := time.Date(2099, 1, 1, 0, 0, 0, 0, time.Local)
		assert.Equal(t, now.UnixMicro(), NewFence(5, now))
	})
	t.Run("the largest fence saturates instead of wrapping", func(t *testing.T) {
		assert.Equal(t, int64(9223372036854775807), NewFence(9223372036854775807, fenceNow))
	})
}

func writeFenceLock(t *testing.T, dir, body string) string {
	t.Helper()
	p := filepath.Join(dir, "LOCK.traffic.txt")
	require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	return p
}

func TestFenceStatus(t *testing.T) {
	created := FormatCreated(fenceNow.Add(-time.Hour))
	old := FormatCreated(fenceNow.Add(-30 * time.Hour))
	tests := []struct {
		name    string
		body    string // "" means no file
		mine    string
		state   FenceState
		contain string
	}{
		{"a current fence on a live lock is held", "owner: a\ncreated: " + created + "\nfence: 1000\n", "1000", FenceHeld, "1000 still current"},
		{"a larger fence in the file means the lease moved on", "created: " + created + "\nfence: 2000\n", "1000", FenceLost, "lease moved on: fence 2000 > own fence 1000"},
		{"a smaller fence in the file means it went backwards", "created: " + created + "\nfence: 500\n", "1000", FenceLost, "fence went backwards"},
		{"a file without a fence is lost", "created: " + created + "\n", "1000", FenceLost, "no fence"},
		{"the last duplicate fence wins", "created: " + created + "\nfence: 1000\nfence: 2000\n", "2000", FenceHeld, "still current"},
		{"a broken last duplicate means no fence", "created: " + created + "\nfence: 1000\nfence: broken\n", "1000", FenceLost, "no fence"},
		{"an empty last duplicate means no fence", "created: " + created + "\nfence: 1000\nfence:\n", "1000", FenceLost, "no fence"},
		{"a 20-digit fence is no fence", "created: " + created + "\nfence: 1000\nfence: 12345678901234567890\n", "1000", FenceLost, "no fence"},
		{"an expired own grant is lost", "created: " + old + "\nfence: 1000\n", "1000", FenceLost, "expired"},
		{"a broken expires_after falls back to 24h and expires", "created: " + old + "\nfence: 1000\nexpires_after: broken\n", "1000", FenceLost, "expired"},
		{"an emptied expires_after duplicate falls back to 24h", "created: " + old + "\nfence: 1000\nexpires_after: 48h\nexpires_after:\n", "1000", FenceLost, "expired"},
		{"an unrepresentable lifetime is expired without panicking", "created: " + created + "\nfence: 1000\nexpires_after: 999999999999999999999d\n", "1000", FenceLost, "expired"},
		{"leading zeros in the lifetime are fine", "created: " + FormatCreated(fenceNow.Add(-10*time.Second)) + "\nfence: 1000\nexpires_after: 0000001s\n", "1000", FenceLost, "expired"},
		{"a missing file is lost", "", "1000", FenceLost, "lock file is gone: LOCK.traffic.txt"},
		{"no recorded fence is unknown", "created: " + created + "\nfence: 1000\n", "", FenceUnknown, "pre-fencing"},
		{"a non-numeric own fence is lost", "created: " + created + "\nfence: 1000\n", "10x", FenceLost, "not a number"},
		{"a 20-digit own fence is lost", "created: " + created + "\nfence: 1000\n", "12345678901234567890", FenceLost, "not a number"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "LOCK.traffic.txt")
			if tc.body != "" {
				p = writeFenceLock(t, dir, tc.body)
			}
			st, reason := FenceStatus(p, tc.mine, fenceNow, time.UTC)
			assert.Equal(t, tc.state, st, reason)
			assert.Contains(t, reason, tc.contain)
		})
	}
}

func TestFenceStatusWithoutCreatedUsesMtime(t *testing.T) {
	dir := t.TempDir()
	p := writeFenceLock(t, dir, "owner: a\nfence: 1000\n")
	old := fenceNow.Add(-30 * time.Hour)
	require.NoError(t, os.Chtimes(p, old, old))
	st, reason := FenceStatus(p, strconv.Itoa(1000), fenceNow, time.UTC)
	assert.Equal(t, FenceLost, st)
	assert.Contains(t, reason, "expired")
}

func TestFenceStatusUnreadableFileIsLost(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads any file")
	}
	dir := t.TempDir()
	p := writeFenceLock(t, dir, "fence: 1000\n")
	require.NoError(t, os.Chmod(p, 0))
	st, reason := FenceStatus(p, "1000", fenceNow, time.UTC)
	assert.Equal(t, FenceLost, st)
	assert.Contains(t, reason, "unreadable")
}
