package lockcore

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAcquireAgainAppliesTheNewOptions(t *testing.T) {
	dir := t.TempDir()
	s := spec(dir)
	s.Purpose = "first"
	first, err := Acquire(s, AcquireOptions{Now: t0})
	require.NoError(t, err)
	// A field guard does not know is kept through the rewrite.
	data := strings.Replace(read(t, first.Path), "purpose: first\n", "purpose: first\nticket: 42\n", 1)
	require.NoError(t, os.WriteFile(first.Path, []byte(data), 0o644))

	again := spec(dir)
	again.Expires, again.Mode, again.Purpose = " 2 H ", "SOFT", "second"
	again.Operations, again.ReleaseCondition = []string{"commit", "push"}, "ci green"
	res, err := Acquire(again, AcquireOptions{Now: t0.Add(10 * 60e9)})
	require.NoError(t, err)
	assert.Equal(t, Renewed, res.Action)
	assert.Equal(t, first.Fence, res.Fence, "a renewal keeps the fence")
	assert.Equal(t, []string{"expires_after", "release_condition", "operations", "mode", "purpose"}, res.Updated)
	body := read(t, first.Path)
	for _, line := range []string{"owner: alice\n", "created: 2026-11-29T10:10:00\n", "expires_after: 2h\n", "mode: soft\n",
		"purpose: second\n", "ticket: 42\n", "operations: commit, push\n", "release_condition: ci green\n", "scope: project\n"} {
		assert.Contains(t, body, line)
	}
	assert.NotContains(t, body, "first")
	assert.True(t, res.Lock.Soft())

	t.Run("options left out keep the lock's values", func(t *testing.T) {
		res, err := Acquire(spec(dir), AcquireOptions{Now: t0.Add(20 * 60e9)})
		require.NoError(t, err)
		assert.Equal(t, Renewed, res.Action)
		// spec() gives expires 1h: only that changed.
		assert.Equal(t, []string{"expires_after"}, res.Updated)
		body := read(t, first.Path)
		assert.Contains(t, body, "mode: soft\n")
		assert.Contains(t, body, "purpose: second\n")
		assert.Contains(t, body, "expires_after: 1h\n")
	})
}

func TestAcquireWritesTheNormalisedLifetime(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"spaces and a capital unit are dropped", " 5 H ", "5h"},
		{"leading zeros are dropped", "007m", "7m"},
		{"a clean value stays", "30d", "30d"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := spec(t.TempDir())
			s.Expires = tc.in
			res, err := Acquire(s, AcquireOptions{Now: t0})
			require.NoError(t, err)
			assert.Contains(t, read(t, res.Path), "\nexpires_after: "+tc.want+"\n")
		})
	}
	t.Run("a value the readers would take for 24h is refused and nothing is written", func(t *testing.T) {
		s := spec(t.TempDir())
		s.Expires = "5 hours"
		_, err := Acquire(s, AcquireOptions{Now: t0})
		require.ErrorIs(t, err, ErrInvalid)
		assert.Contains(t, err.Error(), "24h")
		assert.NoFileExists(t, s.Path())
	})
}

func TestNormalizeDuration(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"5h", "5h", true}, {" 5 H ", "5h", true}, {"0s", "0s", true}, {"00d", "0d", true},
		{"5", "", false}, {"h", "", false}, {"5 hours", "", false}, {"-5h", "", false},
		{"99999999999999999999d", "", false},
	}
	for _, tc := range tests {
		got, ok := NormalizeDuration(tc.in)
		assert.Equal(t, tc.ok, ok, "%q", tc.in)
		assert.Equal(t, tc.want, got, "%q", tc.in)
	}
}

func FuzzNormalizeDuration(f *testing.F) {
	for _, s := range []string{"5h", " 5 H ", "007m", "x", "", "99999999999999999999d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		norm, ok := NormalizeDuration(v)
		if !ok {
			return
		}
		// The normal form is a fixed point and means the same lifetime.
		again, ok2 := NormalizeDuration(norm)
		require.True(t, ok2)
		require.Equal(t, norm, again)
		a, _, _ := ParseDuration(v)
		b, _, _ := ParseDuration(norm)
		require.Equal(t, a, b)
	})
}

// Acquire asks the caller's RESPECT under the creation mutex, with the lock file it
// would write; a refusal writes nothing, warnings come back with the result.
func TestAcquireAsksRespectUnderTheCreationMutex(t *testing.T) {
	dir := t.TempDir()
	s := spec(dir)
	var asked []string
	refuse := &ConflictError{Lock: &Lock{Path: filepath.Join(dir, "elsewhere", "LOCK.txt"), Owner: "carol"}, Reason: "it covers " + dir}
	_, err := Acquire(s, AcquireOptions{Now: t0, Respect: func(got Spec, path string) ([]string, error) {
		asked = append(asked, path)
		_, statErr := os.Stat(filepath.Join(dir, DirMutexName))
		assert.NoError(t, statErr, "RESPECT runs while the creation mutex is held")
		assert.Equal(t, "alice", got.Owner)
		return nil, refuse
	}})
	require.ErrorIs(t, err, refuse)
	assert.Equal(t, []string{s.Path()}, asked)
	assert.NoFileExists(t, s.Path())

	res, err := Acquire(s, AcquireOptions{Now: t0, Respect: func(Spec, string) ([]string, error) {
		return []string{"soft lock nearby"}, nil
	}})
	require.NoError(t, err)
	assert.Equal(t, Created, res.Action)
	assert.Equal(t, []string{"soft lock nearby"}, res.Warnings)
}

func TestAcquireAgainMovesAnUntilLocksMoment(t *testing.T) {
	s := spec(t.TempDir())
	s.Kind, s.NotBefore, s.Expires = Until, "2027-01-01", ""
	first, err := Acquire(s, AcquireOptions{Now: t0})
	require.NoError(t, err)
	s.NotBefore = " 2027-02-01T09:00 "
	res, err := Acquire(s, AcquireOptions{Now: t0})
	require.NoError(t, err)
	assert.Equal(t, Renewed, res.Action)
	assert.Equal(t, []string{"not_before"}, res.Updated)
	body := read(t, first.Path)
	assert.Contains(t, body, "\nnot_before: 2027-02-01T09:00\n")
	assert.NotContains(t, body, "expires_after")
}

func TestUpdateBodyReportsOnlyFieldsWhoseValueAsReadChanges(t *testing.T) {
	now := t0
	tests := []struct {
		name  string
		body  string
		given map[string]string
		want  []string
	}{
		{"a duplicate key is read as its last value, as ParseFields does", "owner: a\npurpose: old\npurpose: current\n", map[string]string{"purpose": "current"}, nil},
		{"a duplicate key whose last value differs is updated", "owner: a\npurpose: current\npurpose: old\n", map[string]string{"purpose": "current"}, []string{"purpose"}},
		{"a key written in capitals is the same key", "owner: a\nPURPOSE: same\n", map[string]string{"purpose": "same"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, updated, err := updateBody([]byte(tc.body), now, tc.given)
			require.NoError(t, err)
			assert.Equal(t, tc.want, updated)
		})
	}
}

func TestAnUnusableExpiresSaysWhatIsWrongWithIt(t *testing.T) {
	tests := []struct {
		name, expires, want string
	}{
		{"a value of another form is not <number><unit>", "soon", `expires "soon" is not <number><s|m|h|d> (the reference would silently read it as 24h, so guard refuses it)`},
		{"a lifetime beyond 999999999 days is too long, not malformed", "1000000000d", `expires "1000000000d" is longer than the reference can represent (999999999 days; it would call the lock expired at once), so guard refuses it`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := spec(t.TempDir())
			s.Expires = tc.expires
			err := s.Validate()
			require.ErrorIs(t, err, ErrInvalid)
			assert.Equal(t, "invalid lock request: "+tc.want, err.Error())
			_, _, err = updateBody([]byte("owner: alice\n"), t0, map[string]string{"expires_after": tc.expires})
			require.ErrorIs(t, err, ErrInvalid)
			assert.Equal(t, "invalid lock request: "+tc.want, err.Error())
		})
	}
}

func TestAFieldValueCannotStartAnotherLineForTheReaders(t *testing.T) {
	// The readers split lines where Python's splitlines does, so each of these would
	// end the value and start a line of its own: "owner: eve" would take the lock over.
	for _, sep := range []string{"\n", "\r", "\v", "\f", "\x1c", "\u0085", "\u2028", "\u2029"} {
		t.Run(fmt.Sprintf("%q", sep), func(t *testing.T) {
			s := spec(t.TempDir())
			s.Purpose = "fix" + sep + "owner: eve"
			require.ErrorIs(t, s.Validate(), ErrInvalid)
			_, _, err := updateBody([]byte("owner: alice\n"), t0, map[string]string{"purpose": s.Purpose})
			require.ErrorIs(t, err, ErrInvalid)
		})
	}
}

func TestUpdateBodyKeepsTheFilesLineEndings(t *testing.T) {
	body := "owner: bob\r\ncreated: 2026-11-29 10:00\r\nexpires_after: 48H"
	out, _, err := updateBody([]byte(body), t0, map[string]string{"purpose": "x"})
	require.NoError(t, err)
	assert.Equal(t, "owner: bob\r\npurpose: x\r\ncreated: 2026-11-29T10:00:00\r\nexpires_after: 48H", string(out))
}
