package install

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/guardtest"
	"github.com/guardlocks/guard/internal/testing/guardtest/envtest"
	"github.com/guardlocks/guard/lockcore"
)

// A doctor over several repositories ends with a count of them; at a terminal it
// shows where it is on stderr while it walks, and erases the line before the report.
func TestDoctorOverManyRepositoriesSummarisesAndShowsProgressAtATerminal(t *testing.T) {
	top := t.TempDir()
	home := guardtest.Home(t)
	for _, n := range []string{"a", "b", "c"} {
		guardtest.InitRepo(t, filepath.Join(top, n))
	}
	guardBin := filepath.Join(top, "bin", "guard")
	require.NoError(t, os.MkdirAll(filepath.Dir(guardBin), 0o755))
	require.NoError(t, os.WriteFile(guardBin, []byte("#!/bin/sh\n"), 0o755))
	vars := map[string]string{"HOME": home, "PATH": "/usr/bin:/bin"}
	for _, n := range []string{"a", "b"} {
		e := envtest.New(envtest.Dir(filepath.Join(top, n)), envtest.Vars(vars), envtest.Executable(guardBin))
		require.NoError(t, RunInstall(context.Background(), Options{Env: e.Env}), e.Err.String())
	}
	// b is healthy but has a bypass in its log: a warning.
	bypass := filepath.Join(top, "b", ".git", "guard", "bypass.log")
	require.NoError(t, os.MkdirAll(filepath.Dir(bypass), 0o755))
	require.NoError(t, os.WriteFile(bypass, []byte(`{"time":"2026-11-30T10:00:00Z","owner":"bob","hook":"pre-commit","reason":"hotfix","blocking":[]}`+"\n"), 0o644))

	for _, tty := range []bool{true, false} {
		// Every reading of the clock is a second later: the walk outlasts the delay.
		now := envtest.Now
		clock := lockcore.ClockFunc(func() time.Time { now = now.Add(time.Second); return now })
		e := envtest.New(envtest.Dir(top), envtest.Vars(vars), envtest.Executable(guardBin), envtest.Clock(clock))
		e.StderrTTY = tty
		err := RunDoctor(context.Background(), DoctorOptions{Env: e.Env})
		require.Error(t, err, "c has no hooks")
		out := e.Out.String()
		assert.True(t, strings.HasSuffix(out, "\n3 repositories: 1 ok, 1 with problems, 1 with warnings\n"), out)
		assert.NotContains(t, out, "\r")
		if tty {
			for i, n := range []string{"a", "b", "c"} {
				assert.Contains(t, e.Err.String(), "\rdoctor: repository "+string(rune('1'+i))+"/3: "+filepath.Join(top, n)+"\x1b[K")
			}
			assert.True(t, strings.HasSuffix(e.Err.String(), "\r\x1b[K"), "%q", e.Err.String())
		} else {
			assert.Empty(t, e.Err.String())
		}
	}

	// One repository gets no summary and no progress, even at a terminal.
	e := envtest.New(envtest.Dir(filepath.Join(top, "a")), envtest.Vars(vars), envtest.Executable(guardBin))
	e.StderrTTY = true
	require.NoError(t, RunDoctor(context.Background(), DoctorOptions{Env: e.Env}), e.Out.String())
	assert.NotContains(t, e.Out.String(), "repositories:")
	assert.Empty(t, e.Err.String())
}
