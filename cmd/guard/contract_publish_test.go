package main

// CONTRACT.md sections 4-6: guard publish, guard preflight, PRIVATE.txt/PUBLIC.txt,
// .guard.toml, and guard audit github against an httptest server.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/guardtest"
	"github.com/guardlocks/guard/internal/testing/testenv"
)

// ctStandIns puts fake npm and gh on PATH that record their arguments in a log
// and exit with $FAKE_RC.
func ctStandIns(t *testing.T) (pathEnv, log string) {
	t.Helper()
	bin := t.TempDir()
	log = filepath.Join(bin, "ran.log")
	for _, name := range []string{"npm", "gh"} {
		script := "#!/bin/sh\necho \"" + name + " $*\" >> " + log + "\necho \"" + name + " output\"\nexit ${FAKE_RC:-0}\n"
		require.NoError(t, os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755))
	}
	return "PATH=" + bin + ":" + testenv.Path(), log
}

func ctRan(t *testing.T, log string) string {
	t.Helper()
	b, err := os.ReadFile(log)
	if os.IsNotExist(err) {
		return ""
	}
	require.NoError(t, err)
	return string(b)
}

func TestContractPublishMarkers(t *testing.T) {
	cases := []struct {
		name    string
		files   map[string]string
		cmd     []string
		code    int
		ran     bool
		message string
	}{
		{"no marker: allowed with a warning", nil, []string{"npm", "publish"}, 0, true, "nothing approved"},
		{"PRIVATE.txt refuses a registry upload and shows its content", map[string]string{"PRIVATE.txt": "wait for legal\n"}, []string{"npm", "publish"}, 1, false, "wait for legal"},
		{"an empty PRIVATE.txt refuses too", map[string]string{"PRIVATE.txt": ""}, []string{"npm", "publish"}, 1, false, "PRIVATE.txt"},
		{"PRIVATE.txt refuses a release", map[string]string{"PRIVATE.txt": "no\n"}, []string{"gh", "release", "create", "v1"}, 1, false, "PRIVATE.txt"},
		{"PRIVATE.txt refuses gh repo create --public", map[string]string{"PRIVATE.txt": "no\n"}, []string{"gh", "repo", "create", "x", "--public"}, 1, false, "PRIVATE.txt"},
		{"PRIVATE.txt refuses gh repo edit --visibility public", map[string]string{"PRIVATE.txt": "no\n"}, []string{"gh", "repo", "edit", "--visibility", "public"}, 1, false, "PRIVATE.txt"},
		{"gh repo create --private publishes nothing and runs", map[string]string{"PRIVATE.txt": "no\n"}, []string{"gh", "repo", "create", "x", "--private"}, 0, true, ""},
		{"a dry-run form runs and is not refused", map[string]string{"PRIVATE.txt": "no\n"}, []string{"npm", "publish", "--dry-run"}, 0, true, ""},
		{"PRIVATE.txt in a directory above refuses", map[string]string{"../PRIVATE.txt": "parent says no\n"}, []string{"npm", "publish"}, 1, false, "parent says no"},
		{"both markers: PRIVATE.txt wins and the message says both", map[string]string{"PRIVATE.txt": "no\n", "PUBLIC.txt": "note: yes\n"}, []string{"npm", "publish"}, 1, false, "both"},
		{"PUBLIC.txt approves", map[string]string{"PUBLIC.txt": "note: approved by legal\n"}, []string{"npm", "publish"}, 0, true, ""},
		{"a failing check refuses", map[string]string{"PUBLIC.txt": "check: test -f release-ok\n"}, []string{"npm", "publish"}, 1, false, "test -f release-ok"},
		{"a passing check allows", map[string]string{"PUBLIC.txt": "check: test -f release-ok\n", "release-ok": ""}, []string{"npm", "publish"}, 0, true, ""},
		{"an unclassified command is refused with 2", nil, []string{"mytool", "up"}, 2, false, "mytool"},
		{"require_public turns no marker into a refusal", map[string]string{".guard.toml": "[publish]\nrequire_public = true\n"}, []string{"npm", "publish"}, 1, false, "require_public"},
		{".guard.toml maps an unknown command", map[string]string{".guard.toml": "[publish.commands]\n\"npm whoami-publish\" = \"registry-upload\"\n", "PRIVATE.txt": "no\n"}, []string{"npm", "whoami-publish"}, 1, false, "PRIVATE.txt"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			outer := t.TempDir()
			project := filepath.Join(outer, "project")
			guardtest.Git(t, outer, "init", "-q", "-b", "main", project)
			for rel, content := range c.files {
				ctWrite(t, project, rel, content)
			}
			pathEnv, log := ctStandIns(t)
			out, errOut, code := ctRun(t, project, []string{pathEnv}, "", append([]string{"publish", "--"}, c.cmd...)...)
			assert.Equal(t, c.code, code, errOut)
			if c.ran {
				assert.Equal(t, strings.Join(c.cmd, " ")+"\n", ctRan(t, log))
				assert.Equal(t, c.cmd[0]+" output\n", out, "the command's own stdout")
			} else {
				assert.Empty(t, ctRan(t, log), "the command did not run")
				assert.Empty(t, out)
			}
			assert.Contains(t, errOut, c.message)
		})
	}
}

func TestContractPublishRunsTheCommandAndItsChores(t *testing.T) {
	project := ctRepo(t, nil)
	ctWrite(t, project, "PUBLIC.txt", "note: approved\ncheck: true\nchore: echo tagged >> chores.log\nchore: echo announced >> chores.log\n")
	pathEnv, log := ctStandIns(t)

	_, errOut, code := ctRun(t, project, []string{pathEnv, "FAKE_RC=7"}, "", "publish", "--", "npm", "publish")
	assert.Equal(t, 7, code, "the command's own exit code: %s", errOut)
	assert.NoFileExists(t, filepath.Join(project, "chores.log"), "no chores after a failed command")

	_, errOut, code = ctRun(t, project, []string{pathEnv}, "", "publish", "--", "npm", "publish")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "tagged\nannounced\n", ctRead(t, filepath.Join(project, "chores.log")))

	_, errOut, code = ctRun(t, project, []string{pathEnv}, "", "publish", "--", "npm", "publish")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "tagged\nannounced\n", ctRead(t, filepath.Join(project, "chores.log")), "each chore runs once")
	assert.Equal(t, 3, strings.Count(ctRan(t, log), "npm publish\n"))
	entries, err := os.ReadDir(project)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.Equal(t, []string{".git", "PUBLIC.txt", "chores.log"}, names, "the chore record lives in the git directory")

	t.Run("outside a repository the record lives beside PUBLIC.txt", func(t *testing.T) {
		p := t.TempDir()
		ctWrite(t, p, "PUBLIC.txt", "chore: echo once >> chores.log\n")
		for i := 0; i < 2; i++ {
			_, errOut, code := ctRun(t, p, []string{pathEnv}, "", "publish", "--", "npm", "publish")
			require.Equal(t, 0, code, errOut)
		}
		assert.Equal(t, "once\n", ctRead(t, filepath.Join(p, "chores.log")))
	})

	t.Run("the command gets guard's stdin and keeps its stdout, stderr and exit code", func(t *testing.T) {
		p := ctRepo(t, nil)
		bin := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(bin, "npm"), []byte("#!/bin/sh\necho \"got: $(cat)\"\necho to-stderr >&2\nexit 5\n"), 0o755))
		out, errOut, code := ctRun(t, p, []string{"PATH=" + bin + ":" + testenv.Path()}, "hello\n", "publish", "--", "npm", "publish")
		assert.Equal(t, 5, code)
		assert.Equal(t, "got: hello\n", out)
		assert.Contains(t, errOut, "to-stderr\n")
	})
	t.Run("a failed chore exits 1 after listing what ran and what failed", func(t *testing.T) {
		p := ctRepo(t, nil)
		ctWrite(t, p, "PUBLIC.txt", "chore: echo ok >> chores.log\nchore: exit 3\n")
		_, errOut, code := ctRun(t, p, []string{pathEnv}, "", "publish", "--", "npm", "publish")
		assert.Equal(t, 1, code)
		assert.Contains(t, errOut, "echo ok >> chores.log")
		assert.Contains(t, errOut, "exit 3")
		assert.Equal(t, "ok\n", ctRead(t, filepath.Join(p, "chores.log")))
	})
	t.Run("checks and chores run in the directory of PUBLIC.txt", func(t *testing.T) {
		outer := t.TempDir()
		ctWrite(t, outer, "PUBLIC.txt", "check: test -f here\nchore: pwd > where.log\n")
		ctWrite(t, outer, "here", "")
		p := filepath.Join(outer, "project")
		guardtest.Git(t, outer, "init", "-q", p)
		_, errOut, code := ctRun(t, p, []string{pathEnv}, "", "publish", "--", "npm", "publish")
		require.Equal(t, 0, code, errOut)
		assert.Equal(t, outer+"\n", ctRead(t, filepath.Join(outer, "where.log")))
	})
	t.Run("a lock that blocks the operation refuses the publication", func(t *testing.T) {
		p := ctRepo(t, nil)
		ctWrite(t, p, "PUBLIC.txt", "note: ok\n")
		lock := ctWrite(t, p, "LOCK.txt", "owner: alice\noperations: registry-upload\n"+ctLive)
		_, errOut, code := ctRun(t, p, []string{pathEnv, "GUARD_OWNER=bob"}, "", "publish", "--", "npm", "publish")
		assert.Equal(t, 1, code)
		assert.Contains(t, errOut, lock)
	})
}

func TestContractPreflight(t *testing.T) {
	project := ctRepo(t, nil)
	ctWrite(t, project, "PRIVATE.txt", "secret\n")
	out, errOut, code := ctRun(t, project, nil, "", "preflight", "--json")
	assert.Equal(t, 1, code, errOut)
	obj := ctObject(t, out)
	assert.Equal(t, "publish-release", obj["op"], "publish-release is the default")

	require.NoError(t, os.Remove(filepath.Join(project, "PRIVATE.txt")))
	ctWrite(t, project, "PUBLIC.txt", "check: true\n")
	out, errOut, code = ctRun(t, t.TempDir(), nil, "", "preflight", "--op", "registry-upload", "--json", project)
	assert.Equal(t, 0, code, errOut)
	assert.Equal(t, "registry-upload", ctObject(t, out)["op"])

	ctWrite(t, project, "PUBLIC.txt", "check: false\n")
	_, _, code = ctRun(t, project, nil, "", "preflight")
	assert.Equal(t, 1, code, "a failing PUBLIC.txt check is not ready")
}

func TestContractMalformedGuardTomlNamesTheLine(t *testing.T) {
	repo := ctRepo(t, map[string]string{".guard.toml": "owner = \"a\"\n[scopes\n"})
	for _, args := range [][]string{{"check", "x"}, {"status"}, {"lock"}, {"hook", "pre-commit"}} {
		_, errOut, code := ctRun(t, repo, nil, "", args...)
		assert.Equal(t, 2, code, "%v: %s", args, errOut)
		assert.Contains(t, errOut, ".guard.toml:2", "%v", args)
	}
}

// ctFakeGitHub serves two pages of an organisation's repositories and records the
// Authorization headers it saw.
type ctFakeGitHub struct {
	srv   *httptest.Server
	mu    sync.Mutex
	auth  []string
	pages []string
}

func newCtFakeGitHub(t *testing.T, prefix string) *ctFakeGitHub {
	f := &ctFakeGitHub{}
	repo := func(host, name, vis string) map[string]any {
		return map[string]any{"full_name": "acme/" + name, "name": name, "private": vis != "public", "visibility": vis,
			"clone_url": "http://" + host + "/acme/" + name + ".git"}
	}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.auth = append(f.auth, r.Header.Get("Authorization"))
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		path := strings.TrimPrefix(r.URL.Path, prefix)
		switch path {
		case "/user":
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"message": "Bad credentials"}`))
		case "/users/acme":
			_ = json.NewEncoder(w).Encode(map[string]any{"login": "acme", "type": "Organization"})
		case "/orgs/acme/repos":
			page := r.URL.Query().Get("page")
			f.mu.Lock()
			f.pages = append(f.pages, page)
			f.mu.Unlock()
			if page == "" || page == "1" {
				w.Header().Set("Link", fmt.Sprintf(`<http://%s%s/orgs/acme/repos?page=2>; rel="next", <http://%s%s/orgs/acme/repos?page=2>; rel="last"`, r.Host, prefix, r.Host, prefix))
				_ = json.NewEncoder(w).Encode([]any{repo(r.Host, "open", "public"), repo(r.Host, "approved", "public")})
				return
			}
			_ = json.NewEncoder(w).Encode([]any{repo(r.Host, "secret", "private"), repo(r.Host, "leaked", "public")})
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"message": "Not Found"}`))
		}
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func TestContractAuditGitHub(t *testing.T) {
	const prefix = "/api/v3"
	fake := newCtFakeGitHub(t, prefix)
	host := strings.Split(strings.TrimPrefix(fake.srv.URL, "http://"), ":")[0]
	root := t.TempDir()
	clone := func(name, marker string) string {
		dir := ctMkdir(t, root, name)
		guardtest.Git(t, dir, "init", "-q")
		guardtest.Git(t, dir, "remote", "add", "origin", "https://"+host+"/acme/"+name+".git")
		if marker != "" {
			ctWrite(t, dir, marker, "")
		}
		return dir
	}
	leaked := clone("leaked", "PRIVATE.txt")
	approved := clone("approved", "PUBLIC.txt")
	clone("secret", "")

	out, errOut, code := ctRun(t, root, []string{"GITHUB_TOKEN=tok-2"}, "", "audit", "github", "--owner", "acme", "--api-url", fake.srv.URL+prefix+"/", "--json", root)
	assert.Equal(t, 1, code, "a public PRIVATE.txt repository is a violation: %s", errOut)
	var rep map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	assert.Equal(t, []string{"incomplete", "ok", "repositories"}, ctKeys(rep))
	assert.Equal(t, false, rep["incomplete"])
	repos := rep["repositories"].([]any)
	require.Len(t, repos, 4, "every page is listed")
	byName := map[string]map[string]any{}
	for _, r := range repos {
		m := r.(map[string]any)
		assert.Equal(t, []string{"full_name", "local_path", "markers", "verdict", "visibility"}, ctKeys(m))
		byName[m["full_name"].(string)] = m
	}
	assert.Equal(t, "violation", byName["acme/leaked"]["verdict"])
	assert.Equal(t, leaked, byName["acme/leaked"]["local_path"])
	assert.Equal(t, []any{"PRIVATE.txt"}, byName["acme/leaked"]["markers"])
	assert.Equal(t, "public", byName["acme/leaked"]["visibility"])
	assert.Equal(t, approved, byName["acme/approved"]["local_path"])
	assert.NotEqual(t, "violation", byName["acme/approved"]["verdict"])
	assert.Nil(t, byName["acme/open"]["local_path"])
	assert.Equal(t, "private", byName["acme/secret"]["visibility"])
	assert.NotEqual(t, "violation", byName["acme/secret"]["verdict"])
	assert.Contains(t, fake.pages, "2")
	fake.mu.Lock()
	assert.Contains(t, fake.auth, "Bearer tok-2", "GITHUB_TOKEN is the fallback token")
	fake.mu.Unlock()

	t.Run("GH_TOKEN wins over GITHUB_TOKEN and GITHUB_API_URL is the fallback base", func(t *testing.T) {
		fake.mu.Lock()
		fake.auth = nil
		fake.mu.Unlock()
		_, errOut, code := ctRun(t, root, []string{"GH_TOKEN=tok-1", "GITHUB_TOKEN=tok-2", "GITHUB_API_URL=" + fake.srv.URL + prefix}, "", "audit", "github", "--owner", "acme", root)
		assert.Equal(t, 1, code, errOut)
		fake.mu.Lock()
		defer fake.mu.Unlock()
		require.NotEmpty(t, fake.auth)
		for _, a := range fake.auth {
			assert.Equal(t, "Bearer tok-1", a)
		}
	})
	t.Run("owners and api_url come from .guard.toml when no flag says", func(t *testing.T) {
		cfg := ctRepo(t, map[string]string{".guard.toml": "[github]\nowners = [\"acme\"]\napi_url = \"" + fake.srv.URL + prefix + "\"\n"})
		out, errOut, code := ctRun(t, cfg, nil, "", "audit", "github", "--json", root)
		assert.Equal(t, 1, code, errOut)
		var rep map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
		assert.Len(t, rep["repositories"], 4)
	})
	t.Run("without the violating clone the audit passes", func(t *testing.T) {
		require.NoError(t, os.Remove(filepath.Join(leaked, "PRIVATE.txt")))
		defer ctWrite(t, leaked, "PRIVATE.txt", "")
		_, errOut, code := ctRun(t, root, nil, "", "audit", "github", "--owner", "acme", "--api-url", fake.srv.URL+prefix, root)
		assert.Equal(t, 0, code, errOut)
	})
}

func TestContractPublishClassifiesCommonCommands(t *testing.T) {
	project := ctRepo(t, nil)
	ctWrite(t, project, "PRIVATE.txt", "not yet\n")
	bin := t.TempDir()
	log := filepath.Join(bin, "ran.log")
	for _, name := range []string{"npm", "gh", "cargo", "twine", "docker", "pnpm"} {
		require.NoError(t, os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\necho \""+name+" $*\" >> "+log+"\n"), 0o755))
	}
	pathEnv := "PATH=" + bin + ":" + testenv.Path()
	cases := []struct {
		cmd  []string
		op   string // "" when the command publishes nothing and runs
		code int
	}{
		{[]string{"npm", "publish"}, "registry-upload", 1},
		{[]string{"pnpm", "publish"}, "registry-upload", 1},
		{[]string{"cargo", "publish"}, "registry-upload", 1},
		{[]string{"twine", "upload", "dist/x.whl"}, "registry-upload", 1},
		{[]string{"docker", "push", "acme/app"}, "registry-upload", 1},
		{[]string{"gh", "release", "create", "v1"}, "publish-release", 1},
		{[]string{"gh", "repo", "create", "acme/x", "--public"}, "visibility-public", 1},
		{[]string{"gh", "repo", "edit", "--visibility", "public"}, "visibility-public", 1},
		{[]string{"gh", "repo", "create", "acme/x", "--private"}, "", 0},
		{[]string{"gh", "pr", "create"}, "", 0},
		{[]string{"cargo", "build"}, "", 0},
		{[]string{"npm", "publish", "--dry-run"}, "", 0},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.cmd, " "), func(t *testing.T) {
			before := ctRan(t, log)
			_, errOut, code := ctRun(t, project, []string{pathEnv}, "", append([]string{"publish", "--"}, c.cmd...)...)
			assert.Equal(t, c.code, code, errOut)
			if c.op != "" {
				assert.Contains(t, errOut, c.op)
				assert.Contains(t, errOut, "not yet", "PRIVATE.txt's content is shown")
				assert.Equal(t, before, ctRan(t, log), "not run")
			} else {
				assert.Equal(t, before+strings.Join(c.cmd, " ")+"\n", ctRan(t, log))
			}
		})
	}
}
