package publish

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/guardlocks/guard/classify"
	"github.com/guardlocks/guard/cmd/guard/exitcode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/guard"
)

// preflight runs guard preflight in the world's project.
func (w *world) preflight(o PreflightOptions) int {
	w.t.Helper()
	o.Env = w.env("")
	o.Identity = &guard.Identity{Owner: "bob", Host: "hostA"}
	o.Env.Environ = w.environ
	err := RunPreflight(o)
	var oe *guard.OutcomeError
	if err != nil && errors.As(err, &oe) && oe.Err != nil {
		w.stderr.WriteString("guard: " + oe.Err.Error() + "\n")
	}
	return exitcode.Of(err)
}

// pushedRepo makes the project a repository whose main branch is pushed to a bare
// origin.
func (w *world) pushedRepo() {
	w.t.Helper()
	origin := filepath.Join(filepath.Dir(w.bin), "origin.git")
	w.git("init", "-q", "--bare", origin)
	w.git("init", "-q", "-b", "main")
	w.write("README.md", "hi\n")
	w.git("add", "README.md")
	w.git("commit", "-q", "-m", "first")
	w.git("remote", "add", "origin", origin)
	w.git("push", "-q", "-u", "origin", "main")
}

func TestPreflightReadyProjectIsZero(t *testing.T) {
	w := newWorld(t)
	w.pushedRepo()
	w.write("PUBLIC.txt", "check: echo check >> \"$RECORD\"\nchore: echo chore >> \"$RECORD\"\n")
	require.Equal(t, 0, w.preflight(PreflightOptions{}), w.stderr.String())
	assert.Equal(t, []string{"check"}, w.ran(), "checks run, chores do not")
	assert.Equal(t, "preflight publish-release of "+w.root+"\n"+
		"  markers:      public\n"+
		"                PUBLIC.txt  "+filepath.Join(w.root, "PUBLIC.txt")+"\n"+
		"  locks:        none blocking\n"+
		"  check:        ok  echo check >> \"$RECORD\"\n"+
		"  repository:   "+w.root+" (main)\n"+
		"  working tree: clean\n"+
		"  HEAD:         pushed to origin/main\n"+
		"verdict: ready\n", w.stdout.String())
}

func TestPreflightRefusals(t *testing.T) {
	cases := []struct {
		name   string
		files  map[string]string
		op     string
		stderr []string
		ran    []string
	}{
		{name: "PRIVATE.txt refuses and runs no check", files: map[string]string{"PRIVATE.txt": "after the audit", "PUBLIC.txt": "check: echo check >> \"$RECORD\""},
			stderr: []string{"both PRIVATE.txt and PUBLIC.txt are present", "| after the audit"}},
		{name: "a failing check refuses", files: map[string]string{"PUBLIC.txt": "check: exit 4"},
			stderr: []string{`the check "exit 4" from `, "PUBLIC.txt failed (exit 4)"}},
		{name: "package.json private:true contradicts PUBLIC.txt", files: map[string]string{"PUBLIC.txt": "", "package.json": `{"name":"x","private":true}`},
			stderr: []string{`says "private": true, which contradicts`}},
		{name: "a lock on releases refuses", files: map[string]string{"PUBLIC.txt": "", "LOCK.txt": "owner: alice\ncreated: 2026-11-29T11:00:00\npurpose: release freeze\n"},
			stderr: []string{"release freeze", "alice"}},
		{name: "the operation decides which locks apply", op: "registry-upload",
			files:  map[string]string{"PUBLIC.txt": "", "LOCK.condition.txt": "owner: alice\ncreated: 2026-11-29T11:00:00\nrelease_condition: npm org approves\noperations: registry-upload\n"},
			stderr: []string{"npm org approves"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			for f, c := range tc.files {
				w.write(f, c)
			}
			assert.Equal(t, 1, w.preflight(PreflightOptions{Op: tc.op}))
			for _, s := range tc.stderr {
				assert.Contains(t, w.stderr.String(), s)
			}
			assert.Contains(t, w.stdout.String(), "verdict: refused\n")
			assert.Equal(t, tc.ran, w.ran())
		})
	}
}

func TestPreflightRepositoryStateWarnsWithoutRefusing(t *testing.T) {
	w := newWorld(t)
	w.pushedRepo()
	w.write("PUBLIC.txt", "")
	w.write("package.json", `{"name":"x"}`)
	w.git("add", "package.json")
	w.git("commit", "-q", "-m", "unpushed")
	w.write("README.md", "changed\n")
	require.Equal(t, 0, w.preflight(PreflightOptions{}), w.stderr.String())
	assert.Contains(t, w.stdout.String(), "  working tree: 1 change(s)\n")
	assert.Contains(t, w.stdout.String(), "  HEAD:         1 commit(s) not pushed to origin/main\n")
	assert.Contains(t, w.stdout.String(), "  package.json: no \"private\" field\n")
	assert.Contains(t, w.stderr.String(), "is not clean (README.md)")
	assert.Contains(t, w.stderr.String(), "1 commit(s) of HEAD are not pushed to origin/main")
}

func TestPreflightWarnsWhenPackageJSONCouldStillPublishAPrivateProject(t *testing.T) {
	w := newWorld(t)
	w.write("PRIVATE.txt", "")
	w.write("package.json", `{"name":"x"}`)
	assert.Equal(t, 1, w.preflight(PreflightOptions{Op: classify.OpRegistryUpload}))
	assert.Contains(t, w.stderr.String(), `lacks "private": true although`)
}

func TestPreflightJSONIsOneDocumentOnStdout(t *testing.T) {
	w := newWorld(t)
	w.pushedRepo()
	w.write("PUBLIC.txt", "check: echo noisy check output\n")
	w.write("package.json", `{"name":"x","private":false}`)
	require.Equal(t, 0, w.preflight(PreflightOptions{JSON: true, Dir: "."}), w.stderr.String())
	var r map[string]any
	require.NoError(t, json.Unmarshal(w.stdout.Bytes(), &r), w.stdout.String())
	assert.Equal(t, true, r["ready"])
	assert.Equal(t, "publish-release", r["op"])
	assert.Equal(t, w.root, r["dir"])
	pub := r["publication"].(map[string]any)
	assert.Equal(t, "public", pub["markers"].(map[string]any)["state"])
	checks := r["checks"].([]any)
	require.Len(t, checks, 1)
	assert.Equal(t, true, checks[0].(map[string]any)["ok"])
	repo := r["repository"].(map[string]any)
	assert.Equal(t, "main", repo["branch"])
	assert.Equal(t, true, repo["pushed"])
	assert.Equal(t, false, r["package_json"].(map[string]any)["private"])
	assert.Contains(t, w.stderr.String(), "noisy check output", "check output goes to stderr")
}

func TestPreflightOfAMissingDirectoryIsAUsageError(t *testing.T) {
	w := newWorld(t)
	assert.Equal(t, 2, w.preflight(PreflightOptions{Dir: "nope"}))
	assert.Contains(t, w.stderr.String(), filepath.Join(w.root, "nope")+" is not a directory")
}
