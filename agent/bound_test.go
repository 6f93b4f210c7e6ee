package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// `rm -rf` of a folder too big to read within the hook's time (here: more folders
// than the near-lock search reads, maxNearDirs) is denied, naming the folder, instead
// of keeping the client waiting: a client that times its hook out may run the command
// unjudged. Before the bound, `rm -rf /*` kept the hook reading for 20-50 s.
func TestRemovingATreeTooBigToReadIsDenied(t *testing.T) {
	root := fixtureTree(t)
	big := filepath.Join(root, "repo", "free", "big")
	for i := range maxNearDirs/100 + 1 {
		for j := range 100 {
			require.NoError(t, os.MkdirAll(filepath.Join(big, fmt.Sprintf("d%03d", i), fmt.Sprintf("e%02d", j)), 0o755))
		}
	}
	env, _, _ := fixtureEnv(root, "", map[string]string{})
	call := &Call{Agent: Claude, SessionID: "sess-1", Cwd: filepath.Join(root, "repo", "free"), Tool: "Bash", Action: "Bash", Kind: KindShell, Command: "rm -rf big"}
	v, err := Decide(env, call, DecideOptions{})
	require.NoError(t, err)
	assert.Equal(t, Deny, v.Decision)
	assert.Contains(t, v.Reason, big+": more than 20000 folders lie below the paths checked, so guard stopped reading them; name smaller folders")

	// One folder of it is read whole and allowed.
	call.Command = "rm -rf big/d000"
	v, err = Decide(env, call, DecideOptions{})
	require.NoError(t, err)
	assert.Equal(t, None, v.Decision, v.Reason)
}
