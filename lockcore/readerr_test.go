package lockcore

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestAnUnreadableLockNeverExpires(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	name, _ := Classify("LOCK.txt")
	for _, tc := range []struct {
		name    string
		modTime time.Time
	}{
		{"a file written a week ago whose body (and so its lifetime) cannot be read", now.Add(-7 * 24 * time.Hour)},
		{"a file that could not even be stat'ed", time.Time{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newLock(name, "/x/LOCK.txt", nil, errors.New("permission denied"), tc.modTime, time.UTC)
			assert.False(t, l.Expired(now), "fail closed: its expires_after may be a month")
			assert.False(t, l.Prunable(now))
			_, ok := l.ExpiresAt()
			assert.False(t, ok)
		})
	}
}

func TestTheRemainingOfAnUnreadableLockSaysItHolds(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	name, _ := Classify("LOCK.txt")
	l := newLock(name, "/x/LOCK.txt", nil, errors.New("permission denied"), now.Add(-time.Hour), time.UTC)
	assert.Equal(t, "unreadable (held, fail closed)", l.Remaining(now))
}
