package main

import (
	"context"
	"io"
	"path/filepath"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/cmd/guard/exitcode"
	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/testing/guardtest/envtest"
	"github.com/guardlocks/guard/sandbox"
	"github.com/guardlocks/guard/web"
)

// flagEnv is a command environment in a temporary directory of its own, with a HOME
// and a state directory there, so that the roots file and the history resolve inside it.
func flagEnv(t *testing.T) *guard.Env {
	t.Helper()
	dir := t.TempDir()
	return envtest.New(envtest.Dir(dir), envtest.Vars(map[string]string{
		"HOME": filepath.Join(dir, "home"), "XDG_STATE_HOME": filepath.Join(dir, "state"),
	})).Env
}

// execute runs cmd with args the way main does, output discarded, and returns the
// error RunE or cobra returned.
func execute(cmd *cobra.Command, args ...string) error {
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	return cmd.Execute()
}

// The flags of guard sandbox, through its runF seam: what they put into
// sandbox.Options, without running anything.
func TestSandboxFlagsFillItsOptions(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want sandbox.Options // Command, Owner, Host, Allow, BestEffort, Exec
	}{
		{"a bare command", []string{"make", "-k"}, sandbox.Options{Command: []string{"make", "-k"}}},
		{"-- ends guard's flags", []string{"--", "make", "--owner", "x"}, sandbox.Options{Command: []string{"make", "--owner", "x"}}},
		{"flags after COMMAND are COMMAND's", []string{"make", "--owner", "x"}, sandbox.Options{Command: []string{"make", "--owner", "x"}}},
		{"owner, host, two allows and best effort", []string{"--owner", "bob", "--host", "box1", "--allow", "a", "--allow", "b/c", "--best-effort", "--", "sh"},
			sandbox.Options{Command: []string{"sh"}, Owner: "bob", Host: "box1", Allow: []string{"a", "b/c"}, BestEffort: true}},
		{"the hidden --exec of guard run --sandbox", []string{"--exec", "--", "sh", "-c", "true"},
			sandbox.Options{Command: []string{"sh", "-c", "true"}, Exec: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := flagEnv(t)
			var got *sandbox.Options
			err := execute(newSandboxCmd(env, func(o sandbox.Options) error { got = &o; return nil }), tc.args...)
			require.NoError(t, err)
			require.NotNil(t, got, "runF was not called")
			assert.Same(t, env, got.Env, "COMMAND's environment is the Env's (Env.Environ)")
			assert.Equal(t, tc.want.Command, got.Command)
			assert.Equal(t, tc.want.Owner, got.Owner)
			assert.Equal(t, tc.want.Host, got.Host)
			assert.Equal(t, tc.want.Allow, got.Allow)
			assert.Equal(t, tc.want.BestEffort, got.BestEffort)
			assert.Equal(t, tc.want.Exec, got.Exec)
		})
	}
	t.Run("no COMMAND is a usage error and runs nothing", func(t *testing.T) {
		ran := false
		err := execute(newSandboxCmd(flagEnv(t), func(sandbox.Options) error { ran = true; return nil }), "--owner", "bob")
		assert.Equal(t, exitcode.Usage, exitCode(err), "%v", err)
		assert.False(t, ran)
	})
	t.Run("an unknown flag before COMMAND runs nothing", func(t *testing.T) {
		ran := false
		err := execute(newSandboxCmd(flagEnv(t), func(sandbox.Options) error { ran = true; return nil }), "--no-such-flag", "--", "sh")
		assert.Error(t, err)
		assert.False(t, ran)
	})
}

// The flags of guard serve, through its runF seam: address, browser and roots, without
// listening.
func TestServeFlagsFillItsOptions(t *testing.T) {
	cases := []struct {
		name  string
		args  []string
		addr  string
		open  bool
		roots int // the roots given as arguments
	}{
		{"the default address", nil, "127.0.0.1:8095", false, 0},
		{"--addr and --open", []string{"--addr", "[::1]:0", "--open"}, "[::1]:0", true, 0},
		{"ROOT arguments", []string{"--addr", "localhost:9000", "ROOT1", "ROOT2"}, "localhost:9000", false, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := flagEnv(t)
			var args []string
			for _, a := range tc.args {
				if a == "ROOT1" || a == "ROOT2" {
					a = ctMkdir(t, env.Dir, a)
				}
				args = append(args, a)
			}
			var got *web.ServeOptions
			err := execute(newServeCmd(env, func(_ context.Context, o web.ServeOptions) error { got = &o; return nil }), args...)
			require.NoError(t, err)
			require.NotNil(t, got, "runF was not called")
			assert.Equal(t, tc.addr, got.Addr)
			assert.Equal(t, tc.open, got.Open)
			assert.Same(t, env, got.Env)
			assert.Len(t, got.RootsInput.Roots, tc.roots)
			if tc.roots == 0 {
				require.Len(t, got.Roots, 1, "no ROOT: the current directory")
				assert.Equal(t, env.Dir, got.Roots[0].Path)
			} else {
				require.Len(t, got.Roots, tc.roots)
				assert.Equal(t, filepath.Join(env.Dir, "ROOT1"), got.Roots[0].Path)
			}
		})
	}
}
