package ci

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/cmd/guard/exitcode"
	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/testing/guardtest"
	"github.com/guardlocks/guard/internal/testing/guardtest/envtest"
	"github.com/guardlocks/guard/internal/testing/testenv"
)

// ciNow is the pinned moment of the CI tests; locks are created an hour before.
var ciNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.Local)

const ciLock = "owner: bob\ncreated: 2026-03-01 11:00\nexpires_after: 24h\npurpose: vendor upgrade\n"

// ciWorld is a bare "origin" with a main branch and a CI checkout of it.
type ciWorld struct {
	t      *testing.T
	home   string
	origin string // bare repository
	seed   string // the working clone that pushes to origin
}

func (w *ciWorld) vars(extra map[string]string) map[string]string {
	v := map[string]string{
		"PATH": testenv.Path(), "HOME": w.home, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1",
		"GUARD_OWNER": "alice", "GUARD_HOST": "runner",
	}
	for k, x := range extra {
		v[k] = x
	}
	return v
}

func (w *ciWorld) git(dir string, args ...string) string {
	w.t.Helper()
	return guardtest.Git(w.t, dir, args...)
}

func (w *ciWorld) commit(dir, msg string, files map[string]string) string {
	w.t.Helper()
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if content == "" {
			w.git(dir, "rm", "-q", "--", rel)
			continue
		}
		require.NoError(w.t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(w.t, os.WriteFile(p, []byte(content), 0o644))
		w.git(dir, "add", "--", rel)
	}
	w.git(dir, "commit", "-q", "-m", msg)
	return w.git(dir, "rev-parse", "HEAD")
}

// newCIWorld makes origin with main = "base" (src/app.go, vendor/lib.go) and a seed
// clone to push from.
func newCIWorld(t *testing.T) *ciWorld {
	t.Helper()
	top := t.TempDir()
	w := &ciWorld{t: t, home: filepath.Join(top, "home"), origin: filepath.Join(top, "origin.git"), seed: filepath.Join(top, "seed")}
	require.NoError(t, os.MkdirAll(w.home, 0o755))
	w.git(top, "init", "-q", "--bare", "-b", "main", w.origin)
	w.git(top, "clone", "-q", w.origin, w.seed)
	w.git(w.seed, "checkout", "-q", "-b", "main")
	w.commit(w.seed, "base", map[string]string{"src/app.go": "package app\n", "vendor/lib.go": "package lib\n"})
	w.git(w.seed, "push", "-q", "origin", "main")
	return w
}

// checkout clones origin for a CI job at branch, with extra clone arguments
// (--depth 1), and puts bob's lock into vendor/ of the checkout.
func (w *ciWorld) checkout(branch string, args ...string) string {
	w.t.Helper()
	dir := filepath.Join(w.t.TempDir(), "ci")
	w.git(filepath.Dir(dir), append(append([]string{"clone", "-q", "-b", branch}, args...), "file://"+w.origin, dir)...)
	require.NoError(w.t, os.WriteFile(filepath.Join(dir, "vendor", "LOCK.txt"), []byte(ciLock), 0o644))
	return dir
}

type ciResult struct {
	code           int
	stdout, stderr string
}

func (w *ciWorld) run(dir string, extra map[string]string, opts Options) ciResult {
	w.t.Helper()
	vars := w.vars(extra)
	env := envtest.New(envtest.At(ciNow), envtest.Identity("runner", "runner"), envtest.Dir(dir), envtest.Vars(vars))
	opts.Env = env.Env
	err := Run(context.Background(), opts)
	if err != nil && !guard.IsExplained(err) {
		env.Err.WriteString("guard: " + err.Error() + "\n")
	}
	return ciResult{exitcode.Of(err), env.Out.String(), env.Err.String()}
}

func ciJSON(t *testing.T, s string) Report {
	t.Helper()
	var r Report
	require.NoError(t, json.Unmarshal([]byte(s), &r), s)
	return r
}

// diverge makes origin/main move on (touching the locked vendor/) after feature
// branched off, and pushes feature with the given changes.
func (w *ciWorld) diverge(feature map[string]string) (mainTip, featureTip string) {
	w.t.Helper()
	w.git(w.seed, "checkout", "-q", "-b", "feature")
	featureTip = w.commit(w.seed, "feature work", feature)
	w.git(w.seed, "checkout", "-q", "main")
	mainTip = w.commit(w.seed, "main moves on", map[string]string{"vendor/lib.go": "package lib // v2\n"})
	w.git(w.seed, "push", "-q", "origin", "main", "feature")
	return mainTip, featureTip
}

func TestCIPullRequestUsesTheMergeBaseWithTheBaseBranch(t *testing.T) {
	tests := []struct {
		name      string
		feature   map[string]string
		wantCode  int
		wantPaths []string
	}{
		{"changes outside the lock pass although main changed the locked folder since", map[string]string{"src/new.go": "package app\n"}, 0, []string{"src/new.go"}},
		{"a change in the locked folder is refused", map[string]string{"vendor/patch.go": "package lib\n"}, 1, []string{"vendor/patch.go"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newCIWorld(t)
			w.diverge(tc.feature)
			dir := w.checkout("feature")
			r := w.run(dir, map[string]string{"GITHUB_BASE_REF": "main"}, Options{Format: FormatJSON})
			assert.Equal(t, tc.wantCode, r.code, r.stderr)
			rep := ciJSON(t, r.stdout)
			assert.Equal(t, tc.wantPaths, rep.Paths)
			assert.Equal(t, w.git(dir, "merge-base", "HEAD", "origin/main"), rep.Base)
			assert.Equal(t, "merge base with origin/main (GITHUB_BASE_REF)", rep.BaseSource)
			assert.Equal(t, tc.wantCode == 0, rep.Allowed)
			require.Len(t, rep.Checks, 1)
			assert.Equal(t, "push", rep.Checks[0].Op)
			if tc.wantCode == 1 {
				require.Len(t, rep.Checks[0].Blocking, 1)
				assert.Equal(t, filepath.Join(dir, "vendor", "patch.go"), rep.Checks[0].Blocking[0].Path)
				assert.Contains(t, r.stderr, filepath.Join(dir, "vendor", "LOCK.txt"))
			}
		})
	}
}

func TestCIGitHubFormatAnnotatesAndSummarises(t *testing.T) {
	w := newCIWorld(t)
	w.diverge(map[string]string{"vendor/a,b.go": "package lib\n", "src/ok.go": "package app\n"})
	dir := w.checkout("feature")
	summary := filepath.Join(t.TempDir(), "summary.md")
	require.NoError(t, os.WriteFile(summary, []byte("earlier step\n"), 0o644))
	r := w.run(dir, map[string]string{"GITHUB_BASE_REF": "main", "GITHUB_STEP_SUMMARY": summary}, Options{Format: FormatGitHub})
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Equal(t, "::error file=vendor/a%2Cb.go::guard: push refused by vendor/LOCK.txt (held by bob): "+
		firstLine(t, r.stdout, "::error"), strings.SplitN(r.stdout, "\n", 2)[0])
	assert.Contains(t, r.stdout, "guard ci: refused\n")
	data, err := os.ReadFile(summary)
	require.NoError(t, err)
	s := string(data)
	assert.True(t, strings.HasPrefix(s, "earlier step\n## guard ci: refused\n"), s)
	assert.Contains(t, s, "| `vendor/a,b.go` | push | `vendor/LOCK.txt` | bob |")
}

// firstLine returns the part of the first line starting with prefix after its last
// "): " (the policy's reason), so the test pins the annotation's form, not the
// policy's wording.
func firstLine(t *testing.T, out, prefix string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, prefix) {
			i := strings.LastIndex(l, "): ")
			require.GreaterOrEqual(t, i, 0, l)
			return l[i+3:]
		}
	}
	t.Fatalf("no line starting with %q in %q", prefix, out)
	return ""
}

func TestCIShallowCloneSaysHowToFetch(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		extra map[string]string
	}{
		{"a depth-1 clone of the branch lacks origin/main", []string{"--depth", "1"}, map[string]string{"GITHUB_BASE_REF": "main"}},
		{"a depth-1 clone of every branch has no merge base", []string{"--depth", "1", "--no-single-branch"}, map[string]string{"GITHUB_BASE_REF": "main"}},
		{"a depth-1 clone lacks the pushed range's previous tip", []string{"--depth", "1"}, map[string]string{"GITHUB_EVENT_BEFORE": "<base>"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newCIWorld(t)
			w.diverge(map[string]string{"src/new.go": "package app\n"})
			base := w.git(w.seed, "rev-parse", "main~1")
			dir := w.checkout("feature", tc.args...)
			require.Equal(t, "true", w.git(dir, "rev-parse", "--is-shallow-repository"))
			extra := map[string]string{}
			for k, v := range tc.extra {
				extra[k] = strings.ReplaceAll(v, "<base>", base)
			}
			r := w.run(dir, extra, Options{})
			assert.Equal(t, 2, r.code)
			assert.Contains(t, r.stderr, "the clone is shallow")
			assert.Contains(t, r.stderr, "`fetch-depth: 0` on actions/checkout")
			assert.Empty(t, r.stdout)
		})
	}
}

func TestCIPushRanges(t *testing.T) {
	w := newCIWorld(t)
	base := w.git(w.seed, "rev-parse", "HEAD")
	w.git(w.seed, "checkout", "-q", "-b", "topic")
	old := w.commit(w.seed, "touch vendor", map[string]string{"vendor/old.go": "package lib\n"})
	w.git(w.seed, "push", "-q", "origin", "topic")
	w.git(w.seed, "reset", "-q", "--hard", base)
	w.commit(w.seed, "rewrite", map[string]string{"src/rewritten.go": "package app\n"})
	w.git(w.seed, "push", "-q", "-f", "origin", "topic")
	dir := w.checkout("topic")
	// The CI clone has no trace of the old tip, as after a real force push; a second
	// clone that fetched it before has.
	withOld := w.checkout("topic")
	w.git(w.seed, "push", "-q", "origin", old+":refs/heads/keep-old")
	w.git(withOld, "fetch", "-q", "origin")

	tests := []struct {
		name       string
		dir        string
		before     string
		wantBase   string
		wantSource string
		wantPaths  []string
		wantNote   string
	}{
		{"a force push whose old tip is known checks only what the old tip lacks", withOld, old, old, "GITHUB_EVENT_BEFORE " + old[:12],
			[]string{"src/rewritten.go"}, "is not an ancestor of"},
		{"a force push whose old tip is gone falls back to the default branch", dir, strings.Repeat("ab", 20), base, "merge base with origin/HEAD",
			[]string{"src/rewritten.go"}, "(GITHUB_EVENT_BEFORE) is not in this clone (a force push?)"},
		{"a new branch is compared with the default branch", dir, strings.Repeat("0", 40), base, "new branch: merge base with origin/HEAD",
			[]string{"src/rewritten.go"}, ""},
		{"an ordinary push checks the commits since the previous tip", dir, base, base, "GITHUB_EVENT_BEFORE " + base[:12],
			[]string{"src/rewritten.go"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := w.run(tc.dir, map[string]string{"GITHUB_EVENT_BEFORE": tc.before, "GITHUB_BASE_REF": ""}, Options{Format: FormatJSON})
			require.Equal(t, 0, r.code, r.stderr)
			rep := ciJSON(t, r.stdout)
			assert.Equal(t, tc.wantBase, rep.Base)
			assert.Equal(t, tc.wantSource, rep.BaseSource)
			assert.Equal(t, tc.wantPaths, rep.Paths)
			if tc.wantNote != "" {
				require.Len(t, rep.Notes, 1)
				assert.Contains(t, rep.Notes[0], tc.wantNote)
				assert.Contains(t, r.stderr, tc.wantNote)
			} else {
				assert.Empty(t, rep.Notes)
			}
		})
	}
}

func TestCIPushEventPayloadGivesThePreviousTip(t *testing.T) {
	w := newCIWorld(t)
	base := w.git(w.seed, "rev-parse", "HEAD")
	w.commit(w.seed, "more", map[string]string{"vendor/more.go": "package lib\n"})
	w.git(w.seed, "push", "-q", "origin", "main")
	dir := w.checkout("main")
	event := filepath.Join(t.TempDir(), "event.json")
	require.NoError(t, os.WriteFile(event, []byte(`{"before": "`+base+`", "repository": {"default_branch": "main"}}`), 0o644))
	r := w.run(dir, map[string]string{"GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": event}, Options{})
	assert.Equal(t, 1, r.code, "on main origin/HEAD is HEAD; only the payload's before finds the pushed commit: %s", r.stderr)
	assert.Contains(t, r.stdout, "guard ci: "+base[:12]+"..")
	assert.Contains(t, r.stdout, "1 changed path(s) checked for push\nrefused: 1 blocked path(s), 0 committed marker(s)\n")
}

func TestCIFlagsAndExtraOps(t *testing.T) {
	w := newCIWorld(t)
	base := w.git(w.seed, "rev-parse", "HEAD")
	w.commit(w.seed, "docs", map[string]string{"docs/guide.md": "# guide\n"})
	w.git(w.seed, "push", "-q", "origin", "main")
	dir := w.checkout("main")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "docs", "LOCK.release.txt"),
		[]byte("owner: bob\ncreated: 2026-03-01 11:00\noperations: release-tag, publish-release\n"), 0o644))
	tests := []struct {
		name     string
		ops      []string
		wantCode int
		wantOps  []string
	}{
		{"a lock for releases does not stop a plain push", nil, 0, []string{"push"}},
		{"an extra --op the lock names is refused", []string{"release-tag"}, 1, []string{"push", "release-tag"}},
		{"comma-separated and repeated ops are each checked once", []string{"push,publish-release", "publish-release"}, 1, []string{"push", "publish-release"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := w.run(dir, nil, Options{Base: base, Head: "HEAD", Ops: tc.ops, Format: FormatJSON})
			assert.Equal(t, tc.wantCode, r.code, r.stderr)
			rep := ciJSON(t, r.stdout)
			assert.Equal(t, tc.wantOps, rep.Ops)
			assert.Equal(t, "--base "+base, rep.BaseSource)
			assert.Equal(t, []string{"docs/guide.md"}, rep.Paths)
		})
	}
	r := w.run(dir, nil, Options{Format: "yaml"})
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, `unknown --format "yaml"`)
	r = w.run(dir, nil, Options{Base: "no-such-ref"})
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "ci: the base no-such-ref does not exist in this clone")
}

func TestCITagBuildIsAReleaseAtTheRoot(t *testing.T) {
	w := newCIWorld(t)
	w.git(w.seed, "tag", "v1.0.0")
	w.git(w.seed, "push", "-q", "origin", "v1.0.0")
	dir := w.checkout("v1.0.0")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "LOCK.freeze.txt"),
		[]byte("owner: bob\ncreated: 2026-03-01 11:00\noperations: release-tag\npurpose: release freeze\n"), 0o644))
	zero := strings.Repeat("0", 40)
	r := w.run(dir, map[string]string{"GITHUB_REF_TYPE": "tag", "GITHUB_REF": "refs/tags/v1.0.0", "GITHUB_EVENT_BEFORE": zero}, Options{Format: FormatJSON})
	assert.Equal(t, 1, r.code, "a tag without new commits is still a release-tag at the root: %s", r.stderr)
	rep := ciJSON(t, r.stdout)
	assert.Equal(t, []string{"push", "release-tag"}, rep.Ops)
	assert.Empty(t, rep.Paths)
	require.Len(t, rep.Checks, 2)
	assert.True(t, rep.Checks[0].Allowed)
	assert.False(t, rep.Checks[1].Allowed)
	assert.Contains(t, r.stderr, "release freeze")

	r = w.run(dir, map[string]string{"GITHUB_EVENT_BEFORE": zero}, Options{Format: FormatJSON})
	assert.Equal(t, 0, r.code, "the same checkout built as a branch is no release: %s", r.stderr)
}

func TestCICommittedMarkersFail(t *testing.T) {
	tests := []struct {
		name    string
		commits []map[string]string
		want    []Marker
	}{
		{"a PRIVATE.txt in head's tree fails", []map[string]string{{"PRIVATE.txt": "never\n"}}, []Marker{{"PRIVATE.txt", "tree"}}},
		{"a PUBLIC.txt deep in the tree fails", []map[string]string{{"pkg/sub/PUBLIC.txt": "ok\n"}}, []Marker{{"pkg/sub/PUBLIC.txt", "tree"}}},
		{"a marker added and removed in the range fails", []map[string]string{{"PRIVATE.txt": "never\n"}, {"PRIVATE.txt": ""}}, []Marker{{"PRIVATE.txt", "range"}}},
		{"a file that merely resembles a marker passes", []map[string]string{{"PRIVATE.txt.example": "x\n"}}, []Marker{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newCIWorld(t)
			w.git(w.seed, "checkout", "-q", "-b", "feature")
			for i, c := range tc.commits {
				w.commit(w.seed, "step "+string(rune('a'+i)), c)
			}
			w.git(w.seed, "push", "-q", "origin", "feature")
			dir := w.checkout("feature")
			r := w.run(dir, map[string]string{"GITHUB_BASE_REF": "main"}, Options{Format: FormatJSON})
			rep := ciJSON(t, r.stdout)
			assert.Equal(t, tc.want, rep.Markers)
			if len(tc.want) == 0 {
				assert.Equal(t, 0, r.code, r.stderr)
				return
			}
			assert.Equal(t, 1, r.code)
			assert.False(t, rep.Allowed)
			assert.Contains(t, r.stderr, tc.want[0].Path)
		})
	}
}

func TestCIBaseRefFallsBackToALocalBranchWithoutOrigin(t *testing.T) {
	w := newCIWorld(t)
	dir := t.TempDir()
	w.git(dir, "init", "-q", "-b", "main")
	w.commit(dir, "base", map[string]string{"vendor/lib.go": "package lib\n"})
	w.git(dir, "checkout", "-q", "-b", "feature")
	w.commit(dir, "feature", map[string]string{"vendor/new.go": "package lib\n"})
	require.NoError(t, os.WriteFile(filepath.Join(dir, "vendor", "LOCK.txt"), []byte(ciLock), 0o644))
	r := w.run(dir, map[string]string{"GITHUB_BASE_REF": "main"}, Options{Format: FormatJSON})
	assert.Equal(t, 1, r.code, r.stderr)
	rep := ciJSON(t, r.stdout)
	assert.Equal(t, []string{"vendor/new.go"}, rep.Paths)
	assert.Equal(t, "merge base with main (GITHUB_BASE_REF; no origin/main)", rep.BaseSource)
	assert.Equal(t, []string{"origin/main does not exist in this clone: using the local branch main"}, rep.Notes)

	r = w.run(dir, map[string]string{"GITHUB_BASE_REF": "develop"}, Options{})
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "ci: the base origin/develop does not exist in this clone: fetch it (`git fetch origin`) or pass --base REF")
}

func TestCIWithoutAnyBaseIsAUsageError(t *testing.T) {
	w := newCIWorld(t)
	dir := t.TempDir()
	w.git(dir, "init", "-q", "-b", "main")
	w.commit(dir, "only", map[string]string{"a": "a\n"})
	r := w.run(dir, nil, Options{})
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "no base for the range: this clone has no origin/HEAD")
}

func TestAnnotationEscaping(t *testing.T) {
	assert.Equal(t, "a%25b%0D%0Ac", escapeData("a%b\r\nc"))
	assert.Equal(t, "x%3Ay%2Cz%0A", escapeProperty("x:y,z\n"))
}

func TestRelToKeepsNamesThatOnlyStartWithTwoDots(t *testing.T) {
	cases := []struct{ name, p, want string }{
		{"a file inside the top is relative", "/top/a/b.txt", "a/b.txt"},
		{"a file named ..env inside the top is relative too", "/top/..env", "..env"},
		{"a path outside the top stays absolute", "/elsewhere/x", "/elsewhere/x"},
		{"the parent of the top stays absolute", "/", "/"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, relTo("/top", tc.p))
		})
	}
}
