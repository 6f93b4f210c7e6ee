package main

// Real kernel tests of [agent] sandbox (CONTRACT.md section 11, issue 12 item 3): the
// built hook reads Claude Code's hook JSON and rewrites the Bash command to run under
// guard sandbox; the test then runs the rewritten command with bash, as Claude Code's
// Bash tool does, and looks at what the kernel let through.

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sbAgentEnv is the environment of the agent (and so of its hook and its commands):
// no GUARD_OWNER, so the agent is its session id; this host is box1.
func (tr sbTree) agentEnv(extra ...string) []string {
	return append([]string{"PATH=" + sbPath, "HOME=" + tr.home, "TMPDIR=" + tr.tmp, "GUARD_HOST=box1",
		"NO_COLOR=1", "TZ=UTC", "LC_ALL=C", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1"}, extra...)
}

// sbHookAnswer is the hook's answer to one Bash call.
type sbHookAnswer struct {
	decision, reason, command string
	raw                       string
}

// hook feeds Claude Code's PreToolUse JSON for command (session "bob", the caller of
// sbTree, in mode) to `guard agent-hook claude` run as line (the command the settings
// hold), and returns its answer.
func (tr sbTree) hook(t *testing.T, line, input string) sbHookAnswer {
	t.Helper()
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir = tr.proj
	cmd.Env = tr.agentEnv()
	cmd.Stdin = strings.NewReader(input)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Run(), errb.String())
	a := sbHookAnswer{raw: out.String()}
	if out.Len() == 0 {
		return a
	}
	var doc struct {
		HookSpecificOutput struct {
			PermissionDecision, PermissionDecisionReason string
			UpdatedInput                                 map[string]any
		}
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &doc), out.String())
	h := doc.HookSpecificOutput
	a.decision, a.reason = h.PermissionDecision, h.PermissionDecisionReason
	if h.UpdatedInput != nil {
		a.command, _ = h.UpdatedInput["command"].(string)
		assert.Equal(t, "run it", h.UpdatedInput["description"], "the other fields of tool_input are kept")
	}
	return a
}

func sbBashInput(t *testing.T, cwd, command, mode string) string {
	t.Helper()
	data, err := json.Marshal(map[string]any{"session_id": "bob", "cwd": cwd, "hook_event_name": "PreToolUse",
		"tool_name": "Bash", "permission_mode": mode, "tool_input": map[string]any{"command": command, "description": "run it"}})
	require.NoError(t, err)
	return string(data)
}

// bash runs a command line with bash in dir, as Claude Code's Bash tool does (stdin
// from /dev/null).
func (tr sbTree) bash(t *testing.T, dir, line string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command("/bin/bash", "-c", line)
	cmd.Args[0] = "bash" // as a shell found on the PATH calls itself
	cmd.Dir = dir
	cmd.Env = tr.agentEnv("SANDBOX_TEST_VAR=it's \"exported\" $x")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), errb.String(), ee.ExitCode()
	}
	require.NoError(t, err)
	return out.String(), errb.String(), 0
}

// The hook rewrites a command it cannot judge (python code) into guard sandbox; run as
// Claude Code runs it, the kernel refuses its write into alice's area with EACCES
// while its write into a free folder, into the agent's own area and into a team lock
// of this host goes through: the sandbox judged as the identity the hook judged as.
func TestSandboxedHookRewriteIsEnforcedByTheKernel(t *testing.T) {
	sbNeedLandlock(t)
	tr := sbNewTree(t)
	ctWrite(t, tr.proj, ".claude/settings.json", `{"permissions": {"allow": ["Bash(python3 *)"]}}`)
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("no /usr/bin/python3: the write test needs a program guard cannot read")
	}
	ctWrite(t, tr.base, "probe.py", `import errno, sys
for p in sys.argv[1:]:
    try:
        open(p, 'w').write('agent\n')
        print(p, 'written')
    except OSError as e:
        print(p, errno.errorcode[e.errno])
`)
	script := "python3 ../probe.py locked/data.txt locked/new.txt free/new.txt mine/new.txt team/new.txt"
	before := tr.snapshot(t, sbProtected...)
	a := tr.hook(t, guardBin+" agent-hook claude --sandbox", sbBashInput(t, tr.proj, script, "default"))
	require.Equal(t, "allow", a.decision, a.raw)
	assert.Contains(t, a.reason, `Claude Code's allow rule "Bash(python3 *)"`)
	require.Equal(t, guardBin+" sandbox --owner bob --host box1 -- bash -c '"+script+"'", a.command)

	stdout, stderr, code := tr.bash(t, tr.proj, a.command)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "locked/data.txt "+sbDenied()+"\nlocked/new.txt "+sbDenied()+"\nfree/new.txt written\nmine/new.txt written\nteam/new.txt written\n", stdout)
	assert.Equal(t, before, tr.snapshot(t, sbProtected...))
	assert.Equal(t, "agent\n", ctRead(t, filepath.Join(tr.proj, "free", "new.txt")))

	// The same command unrewritten writes into alice's area: the rewrite is what held.
	stdout, _, _ = tr.bash(t, tr.proj, script)
	assert.Contains(t, stdout, "locked/data.txt written")
}

// A shell redirection and a grandchild in the rewritten command are refused by the
// kernel too, and the command's exit code and guard sandbox's explanation come back to
// the agent.
func TestSandboxedHookRewriteRefusesShellWritesAndKeepsTheExitCode(t *testing.T) {
	sbNeedLandlock(t)
	tr := sbNewTree(t)
	ctWrite(t, tr.proj, ".guard.toml", "[agent]\nsandbox = true\n")
	// A target guard cannot read (a variable set from a command) near alice's lock is
	// asked about by the hook itself; with the rewrite, what runs is sandboxed.
	command := `d=$(echo locked); sh -c "echo pwned > $d/data.txt"`
	before := tr.snapshot(t, sbProtected...)
	a := tr.hook(t, guardBin+" agent-hook claude", sbBashInput(t, tr.proj, command, "default"))
	require.Equal(t, "ask", a.decision, a.raw)
	assert.Contains(t, a.reason, "guard: cannot judge this command")
	assert.Contains(t, a.reason, "guard runs this command under guard sandbox as bob on host box1")
	require.NotEmpty(t, a.command)
	_, stderr, code := tr.bash(t, tr.proj, a.command)
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, map[string]string{"EROFS": "Read-only file system", "EACCES": "Permission denied"}[sbDenied()])
	assert.Contains(t, stderr, "guard sandbox: bash exited with status 2. While it ran, these areas were read-only")
	assert.Contains(t, stderr, filepath.Join(tr.proj, "locked")+": exclusive lock")
	assert.Equal(t, before, tr.snapshot(t, sbProtected...))
}

// sbCorpus are commands with every awkward byte a shell command line can hold: quotes
// of both kinds inside each other, $ and backslashes, line breaks, here-documents,
// non-UTF-8 output, the environment, the working directory.
var sbCorpus = []string{
	`echo "double $HOME" 'single $HOME' $'ansi\tc' "it's" 'say "hi"'`,
	`printf '%s|' "it's" 'a "b" c' \\back\\slash \$dollar '\' "\\" "\$(no)" '$(no)' && echo`,
	"echo one\necho two\n\necho three",
	"echo line \\\ncontinued",
	"cat <<'EOF'\n$HOME `id` \\n it's \"q\"\nEOF",
	"cat <<EOF\n$((1+2)) it's ${SANDBOX_TEST_VAR}\nEOF",
	"cat <<-\tEOF\n\tindented 'x'\n\tEOF",
	`printf '\xff\xfe\x00z\x80' | od -An -tx1`,
	`printf '\xff\xfe\x80 raw bytes\n'`,
	`x=1; echo ${x}'$x'"$x" "${x:-d}" "${#x}"`,
	`echo "$SANDBOX_TEST_VAR"`,
	`pwd; cd .. && pwd; cd free; pwd; cd nowhere`,
	`echo 'héllo wörld ✓ ' "日本"`,
	"echo a\tb\r",
	`echo free/*.txt`,
	`(echo sub; echo err >&2) 2>&1 | tr a-z A-Z`,
	`echo "$(printf '%s' "'")" "$(echo "nested \"quotes\"")"`,
	`echo '''' "''" '"'"'"'"'`,
	`set -- a 'b c'; echo $# "$2"`,
	`echo x > "free/it's here.txt" && cat "free/it's here.txt"`,
	`false; echo $?; (exit 42)`,
	`echo; echo '#not a comment' # a comment 'with quote`,
	"echo $'\\x27single\\x27 \\u263a'",
	`a=(1 "2 3"); echo "${#a[@]}" "${a[1]}"`,
	`echo {a,b}{1,2} ~/x`,
	`cat`,
	`echo $0 | grep -c bash`,
	`echo -n "no newline"`,
}

// Every corpus command, rewritten by the hook, prints exactly what it prints
// unrewritten, exits with the same code and leaves the same files, run by bash in the
// same folder with the same environment.
func TestSandboxedHookRewriteKeepsEveryCommandExactly(t *testing.T) {
	sbNeedLandlock(t)
	for i, command := range sbCorpus {
		t.Run(strings.ReplaceAll(command, "/", "_"), func(t *testing.T) {
			orig, rewr := sbNewTree(t), sbNewTree(t)
			// Without the soft lock, whose warning guard sandbox prints on every run.
			require.NoError(t, os.Remove(filepath.Join(orig.proj, "soft", "LOCK.txt")))
			require.NoError(t, os.Remove(filepath.Join(rewr.proj, "soft", "LOCK.txt")))
			a := rewr.hook(t, guardBin+" agent-hook claude --sandbox", sbBashInput(t, filepath.Join(rewr.proj, "free"), command, "bypassPermissions"))
			require.NotEmpty(t, a.command, "corpus %d was not rewritten: %s", i, a.raw)
			require.Contains(t, []string{"allow", "ask"}, a.decision, a.raw)
			wantOut, wantErr, wantCode := orig.bash(t, filepath.Join(orig.proj, "free"), command)
			gotOut, gotErr, gotCode := rewr.bash(t, filepath.Join(rewr.proj, "free"), a.command)
			assert.Equal(t, strings.ReplaceAll(wantOut, orig.base, "BASE"), strings.ReplaceAll(gotOut, rewr.base, "BASE"), "stdout")
			assert.Equal(t, wantCode, gotCode, "exit code (stderr %q)", gotErr)
			if wantCode == 0 {
				assert.Equal(t, strings.ReplaceAll(wantErr, orig.base, "BASE"), strings.ReplaceAll(gotErr, rewr.base, "BASE"), "stderr")
			}
			assert.Equal(t, orig.snapshot(t, "."), rewr.snapshot(t, "."), "files")
		})
	}
}

// Claude Code sends the command as JSON text; an escape it chose (a lone surrogate, an
// escaped quote) comes back in updatedInput exactly as it went.
func TestSandboxedHookRewriteKeepsTheJSONEscapes(t *testing.T) {
	tr := sbNewTree(t)
	input := `{"session_id":"bob","cwd":"` + tr.proj + `","hook_event_name":"PreToolUse","tool_name":"Bash","permission_mode":"bypassPermissions",` +
		`"tool_input":{"command":"echo \u0027a\u0027 \ud800 \"\\\" <&>","description":"run it"}}`
	a := tr.hook(t, guardBin+" agent-hook claude --sandbox", input)
	assert.Equal(t, "ask", a.decision, "a command that does not parse is asked about near a lock: %s", a.raw)
	assert.Contains(t, a.raw, `"command":"`+jsonText(guardBin)+` sandbox --owner bob --host box1 -- bash -c 'echo '\\''a'\\'' \ud800 \"\\\" <&>'"`)
}

func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// agent-install claude --sandbox writes a hook command that, run as written, rewrites;
// Claude Code's deny rule stays a denial, and a command already in the hook's own
// form is not wrapped again.
func TestInstalledSandboxHookAsClaudeCodeRunsIt(t *testing.T) {
	sbNeedLandlock(t)
	tr := sbNewTree(t)
	ctWrite(t, tr.proj, ".claude/settings.local.json", `{"permissions": {"deny": ["Bash(curl:*)"], "allow": ["Bash(cat *)"]}}`)
	out, stderr, code := sbRun(t, tr.proj, tr.agentEnv(), "agent-install", "claude", "--sandbox", "--json")
	require.Equal(t, 0, code, stderr)
	var res struct{ Command string }
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	require.Equal(t, guardBin+" agent-hook claude --claim --sandbox", res.Command, "agent-install turns claim on write on (issue 23)")

	a := tr.hook(t, res.Command, sbBashInput(t, tr.proj, "curl -s https://example.com", "default"))
	assert.Equal(t, "deny", a.decision)
	assert.Contains(t, a.reason, `Claude Code's deny rule "Bash(curl:*)"`)
	assert.Empty(t, a.command)

	a = tr.hook(t, res.Command, sbBashInput(t, tr.proj, "cat README.md", "default"))
	require.Equal(t, "allow", a.decision, a.raw)
	stdout, stderr, code := tr.bash(t, tr.proj, a.command)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "readme\n", stdout)

	again := tr.hook(t, res.Command, sbBashInput(t, tr.proj, a.command, "default"))
	assert.Equal(t, "", again.raw, "the hook's own form is passed through to Claude Code unchanged")

	a = tr.hook(t, res.Command, sbBashInput(t, tr.proj, "npm install", "default"))
	assert.Equal(t, "ask", a.decision, "no allow rule: Claude Code would ask, so the rewrite is asked about")
	a = tr.hook(t, res.Command, sbBashInput(t, tr.proj, "git status", "default"))
	assert.Equal(t, "ask", a.decision, "sandbox = true rewrites even a command Claude Code might run without asking")
}

// guard sandbox -- AGENT: a script standing for an agent without input rewriting runs
// the commands its hook lets through; started under guard sandbox, every process it
// starts is confined, and its hook (Gemini CLI's, with [agent] sandbox on) lets shell
// commands through because the session is sandboxed (GUARD_SANDBOX).
func TestSandboxedAgentSessionConfinesEveryCommand(t *testing.T) {
	sbNeedLandlock(t)
	tr := sbNewTree(t)
	ctWrite(t, tr.proj, ".guard.toml", "[agent]\nsandbox = true\n")
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("no /usr/bin/python3 for the agent's program guard cannot read")
	}
	ctWrite(t, tr.base, "writer.py", "import sys\nopen(sys.argv[1], 'a').write('agent\\n')\n")
	ctWrite(t, tr.base, "grandchild.sh", "sh -c 'echo agent >> otherhost/x.txt'\n")
	agent := ctWrite(t, tr.base, "fake-agent.sh", `#!/bin/sh
# A stand-in for a coding agent: it asks its hook about each shell command, then runs
# the command the way an agent does (sh -c) when the hook does not refuse it.
run() {
  input=$(printf '{"session_id":"gem-1","cwd":"%s","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"%s"}}' "$PWD" "$1")
  answer=$(printf '%s' "$input" | "$GUARD" agent-hook gemini)
  case "$answer" in
    *'"deny"'*) echo "hook refused: $1"; return ;;
  esac
  sh -c "$1" 2>/dev/null && echo "ran: $1" || echo "failed: $1"
}
echo "GUARD_SANDBOX=$GUARD_SANDBOX"
run 'python3 ../writer.py locked/data.txt'
run 'sh ../grandchild.sh'
run 'python3 ../writer.py free/new.txt'
if [ -n "$GUARD_SANDBOX" ]; then
  (sleep 0.2; echo agent > locked/bg.txt 2>/dev/null; echo "background rc $?") &
  wait
fi
`)
	require.NoError(t, os.Chmod(agent, 0o755))
	before := tr.snapshot(t, sbProtected...)

	cmd := exec.Command(guardBin, "sandbox", "--owner", "gem-1", "--", agent)
	cmd.Dir = tr.proj
	cmd.Env = tr.agentEnv("GUARD=" + guardBin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Run(), errb.String())
	assert.Regexp(t, `^GUARD_SANDBOX=[1-9][0-9]*\n`, out.String())
	assert.Contains(t, out.String(), "failed: python3 ../writer.py locked/data.txt\n")
	assert.Contains(t, out.String(), "failed: sh ../grandchild.sh\n")
	assert.Contains(t, out.String(), "ran: python3 ../writer.py free/new.txt\n")
	assert.Contains(t, out.String(), "background rc 2")
	assert.NotContains(t, out.String(), "hook refused")
	assert.Equal(t, before, tr.snapshot(t, sbProtected...))
	assert.Equal(t, "agent\n", ctRead(t, filepath.Join(tr.proj, "free", "new.txt")))

	// The same agent started unsandboxed: its hook refuses shell commands, saying how
	// to start it sandboxed, rather than run them unconfined.
	cmd = exec.Command(agent)
	cmd.Dir = tr.proj
	cmd.Env = tr.agentEnv("GUARD=" + guardBin)
	out.Reset()
	cmd.Stdout = &out
	require.NoError(t, cmd.Run())
	assert.Contains(t, out.String(), "hook refused: python3 ../writer.py free/new.txt\n")
	assert.Equal(t, before, tr.snapshot(t, sbProtected...))
}
