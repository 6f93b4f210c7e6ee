package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/guard"
)

// guardHook runs the Claude Code hook (no sandbox) on one Bash call in the fixture
// tree as session sess-1 and returns its stdout with the tree's root as {{ROOT}}.
func guardHook(t *testing.T, root, command string, getenv map[string]string) string {
	t.Helper()
	in, err := json.Marshal(map[string]any{"session_id": "sess-1", "cwd": filepath.Join(root, "repo"), "hook_event_name": "PreToolUse",
		"tool_name": "Bash", "tool_input": map[string]any{"command": command}})
	require.NoError(t, err)
	vars := map[string]string{"HOME": filepath.Join(root, "home"), "XDG_STATE_HOME": filepath.Join(root, "state")}
	for k, v := range getenv {
		vars[k] = v
	}
	env, out, _ := fixtureEnv(root, string(in), vars)
	require.NoError(t, RunHook(HookOptions{Env: env, Agent: Claude, Sandbox: guard.SandboxOff}))
	return strings.ReplaceAll(out.String(), root, "{{ROOT}}")
}

func denial(reason string) string {
	out, _ := marshal(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": reason}})
	return string(out) + "\n"
}

// An agent claims, renews and releases its own locks with guard, and reads with it;
// forcing another's lock away, acting as someone else, taking guard's hooks out and
// undoing another's lockdown are refused, however the command is spelled.
func TestGuardsOwnCommandsAreJudged(t *testing.T) {
	const you = "\n  (you are sess-1 on host laptop, your session id)"
	forceUnlock := func(text string) string {
		return "guard: refused `" + text + "`: --force removes a lock whoever holds it, and an agent releases only its own locks." + you
	}
	actsAs := func(text, how string) string {
		return "guard: refused `" + text + "`: " + how + ", which makes guard act as someone other than this agent; an agent acts only as itself." + you
	}
	denied := []struct{ command, reason string }{
		{"guard unlock --force locked", forceUnlock("guard unlock --force locked")},
		{"/usr/local/bin/guard unlock locked --force", forceUnlock("/usr/local/bin/guard unlock locked --force")},
		{"env guard unlock --force=true locked", forceUnlock("guard unlock --force=true locked")},
		{"sh -c 'cd free && guard unlock --force ../locked'", forceUnlock("guard unlock --force ../locked")},
		{"nohup timeout 5 guard unlock --force locked", forceUnlock("guard unlock --force locked")},
		{"guard lock --force locked", "guard: refused `guard lock --force locked`: --force would replace {{ROOT}}/repo/locked/LOCK.txt (held by alice), and an agent takes no one's lock away." + you},
		{"guard run --force locked -- make", "guard: refused `guard run --force locked -- make`: --force would replace {{ROOT}}/repo/locked/LOCK.txt (held by alice), and an agent takes no one's lock away." + you},
		{"GUARD_OWNER=alice guard unlock locked", actsAs("guard unlock locked", "it sets GUARD_OWNER=alice")},
		{"export GUARD_OWNER='alice'; guard unlock locked", actsAs("guard unlock locked", "it sets GUARD_OWNER=alice")},
		{"env GUARD_OWNER=alice guard renew locked", actsAs("guard renew locked", "it sets GUARD_OWNER=alice")},
		{"GUARD_OWNER=$(cat owner) guard lock free", actsAs("guard lock free", "it sets GUARD_OWNER to a value only known when it runs")},
		{"guard unlock --owner alice locked", "guard: refused `guard unlock --owner alice locked`: --owner alice acts as someone other than this agent, and an agent acts only as itself." + you},
		{"guard sandbox --owner=alice -- make", "guard: refused `guard sandbox --owner=alice -- make`: --owner alice acts as someone other than this agent, and an agent acts only as itself." + you},
		{"guard sandbox --allow locked -- make", "guard: refused `guard sandbox --allow locked -- make`: --allow would exempt {{ROOT}}/repo/locked/LOCK.txt (held by alice) from the sandbox, and an agent does not exempt another's locked area." + you},
		{"guard uninstall", "guard: refused `guard uninstall`: it removes guard's hooks, and an agent does not switch guard off; only a person does." + you},
		{"guard agent-uninstall claude --project", "guard: refused `guard agent-uninstall claude --project`: it removes guard's hooks, and an agent does not switch guard off; only a person does." + you},
		{"guard lockdown --undo --commit", "guard: refused `guard lockdown --undo --commit`: it removes the locks of user's lockdown (recorded in {{ROOT}}/state/guard/lockdown.json), and an agent undoes only its own." + you},
	}
	allowed := []string{
		"guard lock free --purpose 'the parser'", "guard renew mine", "guard unlock mine", "guard lock --force free",
		"guard status locked", "guard check locked/a.go", "guard scan", "guard history --owner alice",
		"GUARD_OWNER=sess-1 guard lock free", "guard sandbox --owner sess-1 -- ls", "guard lockdown --undo",
		"guard unlock --help --force", "echo $GUARD_OWNER && guard lock free",
	}
	root := fixtureTree(t)
	manifest := filepath.Join(root, "state", "guard", "lockdown.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(manifest), 0o755))
	require.NoError(t, os.WriteFile(manifest, []byte(`{"created":"2026-11-29T08:00:00","owner":"user","reason":"incident","locks":["`+filepath.Join(root, "repo", "free", "LOCK.txt")+`"]}`), 0o644))
	for _, c := range denied {
		assert.Equal(t, denial(c.reason), guardHook(t, root, c.command, nil), c.command)
	}
	for _, command := range allowed {
		assert.Empty(t, guardHook(t, root, command, nil), command)
	}
	// An agent with GUARD_OWNER acts as it; clearing it for guard acts as someone else.
	assert.Empty(t, guardHook(t, root, "guard unlock locked", map[string]string{"GUARD_OWNER": "alice"}))
	assert.Empty(t, guardHook(t, root, "GUARD_OWNER=alice guard unlock --owner \"$GUARD_OWNER\" locked", map[string]string{"GUARD_OWNER": "alice"}))
	assert.Equal(t, denial("guard: refused `guard unlock locked`: a wrapper before it clears GUARD_OWNER, which makes guard act as someone other than this agent; an agent acts only as itself.\n  (you are alice on host laptop, from GUARD_OWNER)"),
		guardHook(t, root, "env -i PATH=/usr/bin guard unlock locked", map[string]string{"GUARD_OWNER": "alice"}))
	// guard cannot tell whose lock a resource's is: --force on it is refused.
	assert.Equal(t, denial("guard: refused `guard lock --resource db://x --force`: --force replaces a lock whoever holds it, and guard cannot tell whose lock this one is."+you),
		guardHook(t, root, "guard lock --resource db://x --force", nil))
	// Its own lockdown an agent may undo.
	require.NoError(t, os.WriteFile(manifest, []byte(`{"owner":"sess-1","locks":["`+filepath.Join(root, "repo", "free", "LOCK.txt")+`"]}`), 0o644))
	assert.Empty(t, guardHook(t, root, "guard lockdown --undo --commit", nil))
	// What guard run and guard sandbox run is read as the command it is.
	out := guardHook(t, root, "guard run free -- rm -rf locked", nil)
	assert.Contains(t, out, `"permissionDecision":"deny"`)
	assert.Contains(t, out, "alice")
}

// FuzzOwnerChange: a command that does not mention GUARD_OWNER changes nothing, and
// one that sets it to anything but the agent's own name always does.
func FuzzOwnerChange(f *testing.F) {
	for _, s := range []string{"GUARD_OWNER=alice guard unlock x", "export GUARD_OWNER='a b'", "echo $GUARD_OWNER", "env -u GUARD_OWNER guard lock", "GUARD_OWNER=\"sess-1\" x", "GUARD_OWNER=", "${GUARD_OWNER}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, command string) {
		why := ownerChange(command, "sess-1")
		if !strings.Contains(command, "GUARD_OWNER") && why != "" {
			t.Fatalf("%q: %s", command, why)
		}
		if v := "GUARD_OWNER=mallory "; strings.HasPrefix(command, v) && why == "" {
			t.Fatalf("%q sets another owner, unnoticed", command)
		}
	})
}
