package install

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestScriptRecordsTheGuardPath(t *testing.T) {
	for _, exe := range []string{"/usr/local/bin/guard", "/tmp/it's here/guard", "/a b/$HOME/`x`"} {
		s := script("pre-commit", exe, "")
		assert.True(t, IsGuardHook([]byte(s)))
		got, ok := RecordedExecutable([]byte(s))
		require.True(t, ok, exe)
		assert.Equal(t, exe, got)
	}
	assert.False(t, IsGuardHook([]byte("#!/bin/sh\nexec lefthook run pre-commit\n")))
}

func TestShellInterpreter(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, first, want string
	}{
		{"a sh script is sourced by sh", "#!/bin/sh", "/bin/sh"},
		{"env bash keeps its arguments", "#!/usr/bin/env bash -e", "/usr/bin/env bash -e"},
		{"husky's stub is sourced", "#!/usr/bin/env sh", "/usr/bin/env sh"},
		{"a python hook is executed", "#!/usr/bin/env python3", ""},
		{"a file without a shebang is executed", "echo hi", ""},
		{"shell names must match whole", "#!/usr/bin/shellcheck", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, "h")
			require.NoError(t, os.WriteFile(p, []byte(tc.first+"\nexit 0\n"), 0o755))
			assert.Equal(t, tc.want, shellInterpreter(p))
		})
	}
	assert.Equal(t, "", shellInterpreter(filepath.Join(dir, "missing")))
}

func TestAddExcludes(t *testing.T) {
	p := filepath.Join(t.TempDir(), "info", "exclude")
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte("*.log"), 0o644))
	added, err := addExcludes(p)
	require.NoError(t, err)
	assert.True(t, added)
	added, err = addExcludes(p)
	require.NoError(t, err)
	assert.False(t, added)
	data, _ := os.ReadFile(p)
	assert.Equal(t, "*.log\n"+excludeComment+"\nPRIVATE.txt\nPUBLIC.txt\nLOCK.team.*.txt.guard\n", string(data))
}

func FuzzRecordedExecutable(f *testing.F) {
	f.Add("/usr/bin/guard")
	f.Add("it's")
	f.Add("'\\''")
	f.Fuzz(func(t *testing.T, exe string) {
		for _, c := range exe {
			if c == '\n' || c == '\r' || c == 0 {
				return // not a path guard records
			}
		}
		got, ok := RecordedExecutable([]byte(script("pre-push", exe, "")))
		require.True(t, ok)
		require.Equal(t, exe, got)
	})
}
