package main

// Real kernel tests of `guard sandbox` (CONTRACT.md section 11): the built binary
// restricts a real shell with Landlock, and the test looks at what happened to the
// files. Nothing is mocked; without Landlock the tests skip and say so.

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/sandbox"
)

// sbPath is the PATH the sandboxed shells get: the system's tools, never the user's.
const sbPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

func sbNeedLandlock(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" || sandbox.ABI() < 1 {
		t.Skipf("this kernel offers no Landlock (GOOS %s, ABI %d): guard sandbox cannot be tested for real here", runtime.GOOS, sandbox.ABI())
	}
}

// sbTree is a project in a temp dir with one area of each kind, a home and a temp
// dir beside it (outside the project: /tmp itself holds the project, so nothing can
// be created directly in it).
type sbTree struct {
	base, proj, home, tmp string
	// landlock forces the Landlock-only fallback (GUARD_SANDBOX_NAMESPACES=0).
	landlock bool
}

const sbLive = "created: 2099-01-01T00:00:00\n"

func sbNewTree(t *testing.T) sbTree {
	t.Helper()
	base := t.TempDir()
	tr := sbTree{base: base, proj: filepath.Join(base, "proj"), home: filepath.Join(base, "home"), tmp: filepath.Join(base, "tmp")}
	ctMkdir(t, base, "home/.cache")
	ctMkdir(t, base, "tmp")
	ctMkdir(t, base, "proj/.git")
	for rel, body := range map[string]string{
		"README.md":                       "readme\n",
		"PRIVATE.txt":                     "not before the audit\n",
		"locked/LOCK.txt":                 "owner: alice\n" + sbLive + "purpose: rewriting the parser\n",
		"locked/data.txt":                 "orig\n",
		"locked/sub/deep.txt":             "deep\n",
		"locked/empty/.keep":              "",
		"scoped/LOCK.api.txt":             "owner: alice\n" + sbLive,
		"scoped/api/h.go":                 "package api\n",
		"scoped/web/index.html":           "web\n",
		"otherhost/LOCK.team.box2.txt":    "owner: carol\n" + sbLive,
		"otherhost/x.txt":                 "x\n",
		"soft/LOCK.txt":                   "owner: alice\nmode: soft\n" + sbLive,
		"soft/s.txt":                      "s\n",
		"mine/LOCK.txt":                   "owner: bob\n" + sbLive,
		"mine/m.txt":                      "m\n",
		"team/LOCK.team.box1.txt":         "owner: lead\n" + sbLive,
		"team/t.txt":                      "t\n",
		"expired/LOCK.txt":                "owner: alice\ncreated: 2000-01-01T00:00:00\n",
		"free/x.txt":                      "x\n",
		"free/archive/locked/data.txt":    "from the archive\n",
		"free/archive/locked/planted.txt": "planted\n",
	} {
		ctWrite(t, base, "proj/"+rel, body)
	}
	return tr
}

// sbEnv is the environment of a sandboxed command: the caller is bob on box1.
func (tr sbTree) env(extra ...string) []string {
	if tr.landlock {
		extra = append([]string{sandbox.NamespacesVar + "=0"}, extra...)
	}
	return append([]string{"PATH=" + sbPath, "HOME=" + tr.home, "TMPDIR=" + tr.tmp, "GUARD_OWNER=bob", "GUARD_HOST=box1",
		"NO_COLOR=1", "TZ=UTC", "LC_ALL=C", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1"}, extra...)
}

// sh runs script with /bin/sh under guard sandbox in the project.
func (tr sbTree) sh(t *testing.T, script string, flags ...string) (stdout, stderr string, code int) {
	t.Helper()
	args := append(append([]string{"sandbox"}, flags...), "--", "/bin/sh", "-c", script)
	return sbRun(t, tr.proj, tr.env(), args...)
}

// sbRun runs guard in dir with env (ctRun's pinned variables, env's values winning).
func sbRun(t *testing.T, dir string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return ctRun(t, dir, env, "", args...)
}

// snapshot records every entry below the given paths of the project: type, mode and
// content, so that any change the sandbox let through shows.
func (tr sbTree) snapshot(t *testing.T, rels ...string) map[string]string {
	t.Helper()
	snap := map[string]string{}
	for _, rel := range rels {
		root := filepath.Join(tr.proj, rel)
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			r, _ := filepath.Rel(tr.proj, p)
			if err != nil {
				snap[r] = "error: " + err.Error()
				return nil
			}
			info, _ := d.Info()
			switch {
			case d.Type()&fs.ModeSymlink != 0:
				target, _ := os.Readlink(p)
				snap[r] = "link " + target
			case d.IsDir():
				snap[r] = "dir " + info.Mode().String()
			case d.Type().IsRegular():
				b, _ := os.ReadFile(p)
				snap[r] = info.Mode().String() + " " + string(b)
			default:
				snap[r] = "special " + info.Mode().String()
			}
			return nil
		})
	}
	return snap
}

// sbModes runs body once in each sandbox this kernel offers: the exact one (user
// and mount namespaces) and Landlock alone (the fallback, forced).
func sbModes(t *testing.T, body func(t *testing.T, tr sbTree)) {
	t.Helper()
	t.Run("exact", func(t *testing.T) {
		sbNeedExact(t)
		body(t, sbNewTree(t))
	})
	t.Run("landlock", func(t *testing.T) {
		tr := sbNewTree(t)
		tr.landlock = true
		body(t, tr)
	})
}

// sbNeedExact skips where the exact sandbox cannot run.
func sbNeedExact(t *testing.T) {
	t.Helper()
	if err := sandbox.Exact(); err != nil {
		t.Skipf("no exact sandbox here: %v", err)
	}
}

// times records the modification times of the files below the given paths of the
// project (a lock without a created line is aged by it).
func (tr sbTree) times(t *testing.T, rels ...string) map[string]time.Time {
	t.Helper()
	out := map[string]time.Time{}
	for _, rel := range rels {
		_ = filepath.WalkDir(filepath.Join(tr.proj, rel), func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				if info, err := d.Info(); err == nil {
					r, _ := filepath.Rel(tr.proj, p)
					out[r] = info.ModTime()
				}
			}
			return nil
		})
	}
	return out
}

// sbDenied is the errno a write into a locked area fails with: EROFS in the exact
// sandbox (a read-only mount), EACCES under Landlock alone.
func sbDenied() string {
	if sandbox.Exact() == nil {
		return "EROFS"
	}
	return "EACCES"
}

// sbProtected are the parts of the tree bob may not change.
var sbProtected = []string{"locked", "scoped/api", "scoped/LOCK.api.txt", "otherhost", "PRIVATE.txt", "soft/LOCK.txt"}

func TestSandboxRefusesEveryWayOfWritingIntoALockedArea(t *testing.T) {
	sbNeedLandlock(t)
	sbModes(t, testSandboxRefusesEveryWayOfWritingIntoALockedArea)
}

func testSandboxRefusesEveryWayOfWritingIntoALockedArea(t *testing.T, tr sbTree) {
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		py = ""
	}
	cases := []struct{ name, script string }{
		{"redirection overwrites a file", "echo pwned > locked/data.txt"},
		{"redirection appends to a file", "echo pwned >> locked/data.txt"},
		{"redirection creates a file", "echo pwned > locked/new.txt"},
		{"redirection creates a file in a subfolder", "echo pwned > locked/sub/new.txt"},
		{"cp overwrites a file", "cp free/x.txt locked/data.txt"},
		{"cp creates a file", "cp free/x.txt locked/copy.txt"},
		{"truncate empties a file", "truncate -s 0 locked/data.txt"},
		{"rm removes a file", "rm -f locked/data.txt"},
		{"rm -rf removes the area", "rm -rf locked"},
		{"rmdir removes an empty folder", "rm locked/empty/.keep; rmdir locked/empty"},
		{"mkdir creates a folder", "mkdir locked/newdir"},
		{"mv moves a file out", "mv locked/data.txt free/stolen.txt"},
		{"mv moves a file in", "mv free/x.txt locked/x.txt"},
		{"mv renames inside the area", "mv locked/data.txt locked/renamed.txt"},
		{"mv renames the area itself", "mv locked locked2"},
		{"ln makes a hard link in", "ln free/x.txt locked/hard.txt"},
		{"ln makes a hard link out", "ln locked/data.txt free/hard.txt && echo pwned > free/hard.txt"},
		{"ln -s makes a symbolic link", "ln -s /etc/passwd locked/sym"},
		{"mkfifo makes a pipe", "mkfifo locked/fifo"},
		{"tar -C extracts into the area", "tar -C free/archive -cf free/a.tar locked && tar -C . -xf free/a.tar"},
		{"tar -C extracts into the area's folder itself", "tar -C free/archive/locked -cf free/b.tar . && tar -C locked -xf free/b.tar"},
		{"a grandchild writes", "sh -c 'sh -c \"echo pwned > locked/data.txt\"'"},
		{"a scoped lock's folder", "echo pwned > scoped/api/h.go"},
		{"a scoped lock's file", "rm -f scoped/LOCK.api.txt"},
		{"another host's team lock", "echo pwned > otherhost/x.txt"},
		{"the lock file itself", "echo 'owner: bob' > locked/LOCK.txt"},
		{"the marker is removed", "rm -f PRIVATE.txt"},
		{"the marker is overwritten", "echo > PRIVATE.txt"},
		{"the soft lock's own file is removed", "rm -f soft/LOCK.txt"},
	}
	if !tr.landlock {
		// What Landlock alone cannot refuse (the README's limits).
		cases = append(cases, []struct{ name, script string }{
			{"a lock file's time is changed", "touch -d 2000-01-01 locked/LOCK.txt"},
			{"a file's mode is changed", "chmod 600 locked/data.txt"},
			{"a file's time is changed", "touch -d 2000-01-01 locked/data.txt"},
		}...)
	}
	if py != "" {
		cases = append(cases,
			struct{ name, script string }{"python open for writing", py + ` -c "open('locked/data.txt','w').write('pwned')"`},
			struct{ name, script string }{"python truncate by path", py + ` -c "import os; os.truncate('locked/data.txt', 0)"`},
			struct{ name, script string }{"python rename", py + ` -c "import os; os.rename('locked/data.txt', 'free/r.txt')"`},
			struct{ name, script string }{"python unlink", py + ` -c "import os; os.unlink('locked/data.txt')"`},
			struct{ name, script string }{"python creates with O_CREAT", py + ` -c "import os; os.open('locked/c.txt', os.O_CREAT|os.O_WRONLY)"`},
		)
	} else {
		t.Log("no /usr/bin/python3: the python cases are not run")
	}
	before, mtimes := tr.snapshot(t, sbProtected...), tr.times(t, sbProtected...)
	require.NotEmpty(t, before["locked/data.txt"])
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := tr.sh(t, tc.script)
			assert.NotEqual(t, 0, code, "the sandbox let it through: %s", stderr)
			assert.Equal(t, before, tr.snapshot(t, sbProtected...), stderr)
			if !tr.landlock {
				assert.Equal(t, mtimes, tr.times(t, sbProtected...), stderr)
			}
			assert.Contains(t, stderr, "guard sandbox: /bin/sh exited with status ")
		})
	}
}

func TestSandboxRefusesABackgroundProcessThatOutlivesIt(t *testing.T) {
	sbNeedLandlock(t)
	sbModes(t, testSandboxRefusesABackgroundProcessThatOutlivesIt)
}

func testSandboxRefusesABackgroundProcessThatOutlivesIt(t *testing.T, tr sbTree) {
	before := tr.snapshot(t, sbProtected...)
	rc := filepath.Join(tr.proj, "free", "bg.rc")
	_, stderr, code := tr.sh(t, "(sleep 0.3; echo pwned > locked/data.txt; echo $? > free/bg.rc) </dev/null >/dev/null 2>&1 &")
	require.Equal(t, 0, code, stderr)
	deadline := time.Now().Add(20 * time.Second)
	for {
		if b, err := os.ReadFile(rc); err == nil && strings.HasSuffix(string(b), "\n") {
			assert.NotEqual(t, "0\n", string(b), "the background write succeeded")
			break
		}
		require.True(t, time.Now().Before(deadline), "the background process never reported")
		time.Sleep(50 * time.Millisecond)
	}
	assert.Equal(t, before, tr.snapshot(t, sbProtected...))
}

func TestSandboxLetsWritesOutsideLockedAreasThrough(t *testing.T) {
	sbNeedLandlock(t)
	sbModes(t, testSandboxLetsWritesOutsideLockedAreasThrough)
}

func testSandboxLetsWritesOutsideLockedAreasThrough(t *testing.T, tr sbTree) {
	script := strings.Join([]string{
		"set -e",
		"cat locked/data.txt locked/LOCK.txt >/dev/null", // reading stays allowed
		"ls locked/sub >/dev/null",
		"echo new > free/new.txt && mkdir free/d && mv free/new.txt free/d/ && rm free/x.txt",
		"ln -s d free/link && ln free/d/new.txt free/hard.txt",
		"echo more >> soft/s.txt",                                            // soft lock: warns only
		"echo m > mine/new.txt && rm mine/LOCK.txt",                          // the caller's own lock
		"echo t > team/new.txt && echo claim >> team/LOCK.team.box1.txt",     // a team lock of this host
		"echo e > expired/new.txt && rm expired/LOCK.txt",                    // an expired lock stops nobody
		"echo w > scoped/web/new.html && mkdir scoped/web/sub",               // beside a scoped lock's folder
		"echo more >> README.md",                                             // an existing file of a boundary folder
		"tmp=$(mktemp) && echo x > \"$tmp\" && rm \"$tmp\"",                  // $TMPDIR
		"mkdir -p \"$HOME/.cache/tool\" && echo c > \"$HOME/.cache/tool/c\"", // caches in $HOME
		"echo null > /dev/null",
		"mkfifo free/fifo && rm free/fifo",
		"echo done",
	}, "\n")
	stdout, stderr, code := tr.sh(t, script)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "done\n", stdout)
	assert.Equal(t, "new\n", ctRead(t, filepath.Join(tr.proj, "free", "d", "new.txt")))
	assert.Equal(t, "s\nmore\n", ctRead(t, filepath.Join(tr.proj, "soft", "s.txt")))
	assert.Equal(t, "readme\nmore\n", ctRead(t, filepath.Join(tr.proj, "README.md")))
	assert.NoFileExists(t, filepath.Join(tr.proj, "mine", "LOCK.txt"))
	assert.Contains(t, stderr, "soft lock")
	assert.NotContains(t, stderr, "exited with status")
}

func TestSandboxKeepsSocketsWorking(t *testing.T) {
	sbNeedLandlock(t)
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		t.Skip("no /usr/bin/python3 to open a unix socket with")
	}
	sbModes(t, func(t *testing.T, tr sbTree) { testSandboxKeepsSocketsWorking(t, tr, py) })
}

func testSandboxKeepsSocketsWorking(t *testing.T, tr sbTree, py string) {
	script := py + ` -c "
import os, socket
p = os.path.join(os.environ['TMPDIR'], 's.sock')
srv = socket.socket(socket.AF_UNIX); srv.bind(p); srv.listen(1)
cli = socket.socket(socket.AF_UNIX); cli.connect(p)
conn, _ = srv.accept(); cli.sendall(b'ping'); print(conn.recv(4).decode())
"`
	stdout, stderr, code := tr.sh(t, script)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "ping\n", stdout)
}

func TestSandboxRefusesCreatingDirectlyInAFolderThatHoldsALockedArea(t *testing.T) {
	sbNeedLandlock(t)
	tr := sbNewTree(t)
	tr.landlock = true
	// The README's first limit of Landlock alone: the project folder holds locked/,
	// so a new entry cannot be created in it, and an existing one cannot be replaced
	// by a rename. (The exact sandbox has no such limit: TestExactSandbox...)
	_, stderr, code := tr.sh(t, "echo x > new-at-root.txt")
	assert.Equal(t, 1, strings.Count(stderr, "guard sandbox: note: no exact sandbox here ("+sandbox.NamespacesVar+"=0 turns it off); Landlock alone enforces it: "+
		"nothing can be created, removed or renamed directly in a folder that holds a read-only area, and chmod, chown, utime and extended attributes of what is in an area are not refused\n"), stderr)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "new-at-root.txt: Permission denied")
	assert.Contains(t, stderr, "  nothing could be created, removed or renamed directly in (existing files there stayed writable): ")
	assert.Contains(t, stderr, ", "+tr.proj+", "+filepath.Join(tr.proj, "scoped")+", "+filepath.Join(tr.proj, "soft")+"\n")
	assert.NoFileExists(t, filepath.Join(tr.proj, "new-at-root.txt"))
	_, stderr, code = tr.sh(t, "mv free/x.txt README.md")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "Permission denied")
	assert.Equal(t, "readme\n", ctRead(t, filepath.Join(tr.proj, "README.md")))
}

func TestSandboxPassesExitCodesThrough(t *testing.T) {
	sbNeedLandlock(t)
	sbModes(t, testSandboxPassesExitCodesThrough)
}

func testSandboxPassesExitCodesThrough(t *testing.T, tr sbTree) {
	for _, tc := range []struct {
		script string
		code   int
	}{{"exit 0", 0}, {"exit 1", 1}, {"exit 42", 42}, {"kill -TERM $$", 128 + 15}, {"kill -KILL $$", 128 + 9}} {
		_, stderr, code := tr.sh(t, tc.script)
		assert.Equal(t, tc.code, code, "%s: %s", tc.script, stderr)
	}
	_, stderr, code := sbRun(t, tr.proj, tr.env(), "sandbox", "--", filepath.Join(tr.base, "no-such-program"))
	assert.Equal(t, 127, code)
	assert.Contains(t, stderr, "no-such-program")
	_, stderr, code = sbRun(t, tr.proj, tr.env(), "sandbox", "--", "/bin/sh", "-c", "exit 3")
	assert.Equal(t, 3, code)
	// The explanation names the area, its lock, whose and why.
	assert.Contains(t, stderr, "guard sandbox: /bin/sh exited with status 3. While it ran, these areas were read-only")
	assert.Contains(t, stderr, "\n  "+filepath.Join(tr.proj, "locked")+": exclusive lock "+filepath.Join(tr.proj, "locked", "LOCK.txt")+
		" held by alice, until 2099-01-02 00:00: rewriting the parser\n")
	assert.Contains(t, stderr, "\n  "+filepath.Join(tr.proj, "PRIVATE.txt")+": ")
	assert.Contains(t, stderr, "\n  "+filepath.Join(tr.proj, "otherhost")+": team lock "+filepath.Join(tr.proj, "otherhost", "LOCK.team.box2.txt")+" held by carol on host box2")
}

func TestSandboxAllowExemptsAPathDeliberately(t *testing.T) {
	sbNeedLandlock(t)
	sbModes(t, testSandboxAllowExemptsAPathDeliberately)
}

func testSandboxAllowExemptsAPathDeliberately(t *testing.T, tr sbTree) {
	_, stderr, code := tr.sh(t, "echo ok > locked/sub/deep.txt && echo new > locked/sub/new.txt", "--allow", "locked/sub")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "ok\n", ctRead(t, filepath.Join(tr.proj, "locked", "sub", "deep.txt")))
	_, _, code = tr.sh(t, "echo pwned > locked/data.txt", "--allow", "locked/sub")
	assert.Equal(t, 2, code)
	assert.Equal(t, "orig\n", ctRead(t, filepath.Join(tr.proj, "locked", "data.txt")))
	_, stderr, code = tr.sh(t, "true", "--allow", "locked/missing")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "locked/missing: it lies in a read-only area and must exist to be exempted")
}

func TestSandboxOwnerFlagMakesTheCallerTheHolder(t *testing.T) {
	sbNeedLandlock(t)
	sbModes(t, testSandboxOwnerFlagMakesTheCallerTheHolder)
}

func testSandboxOwnerFlagMakesTheCallerTheHolder(t *testing.T, tr sbTree) {
	_, stderr, code := tr.sh(t, "echo alice > locked/data.txt", "--owner", "alice")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "alice\n", ctRead(t, filepath.Join(tr.proj, "locked", "data.txt")))
	// --host box2 makes carol's team lock of box2 this host's.
	_, stderr, code = tr.sh(t, "echo box2 > otherhost/x.txt", "--host", "box2")
	require.Equal(t, 0, code, stderr)
}

func TestSandboxedGoTestOfARealProjectPasses(t *testing.T) {
	sbNeedLandlock(t)
	if testing.Short() {
		t.Skip("builds and tests a copy of guard's policy package (-short)")
	}
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		t.Skipf("no go tool at %s", goBin)
	}
	tr := sbNewTree(t)
	// A copy of guard's module with its policy and lock packages, and another owner's
	// lock on a folder the test does not touch.
	src, err := filepath.Abs("../..")
	require.NoError(t, err)
	mod := filepath.Join(tr.proj, "mod")
	for _, rel := range []string{"go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join(src, rel))
		require.NoError(t, err)
		ctWrite(t, mod, rel, string(b))
	}
	// The policy package and every package of the module it and its tests import.
	list := exec.Command(goBin, "list", "-deps", "-test", "-f", "{{.ImportPath}}", "./guard/")
	list.Dir = src
	out, err := list.Output()
	require.NoError(t, err)
	const module = "github.com/guardlocks/guard"
	copied := map[string]bool{}
	for _, imp := range strings.Fields(string(out)) {
		imp, _, _ = strings.Cut(imp, " ") // "p [p.test]" variants name the same folder
		rel, ok := strings.CutPrefix(imp, module+"/")
		if !ok || copied[rel] || strings.HasSuffix(rel, ".test") {
			continue
		}
		copied[rel] = true
		require.NoError(t, os.CopyFS(filepath.Join(mod, rel), os.DirFS(filepath.Join(src, rel))))
	}
	require.True(t, copied["guard"] && copied["lockcore"], "go list named %v", copied)
	ctWrite(t, mod, "docs/LOCK.txt", "owner: alice\n"+sbLive)
	goEnv := func(name string) string {
		out, err := exec.Command(goBin, "env", name).Output()
		require.NoError(t, err)
		return strings.TrimSpace(string(out))
	}
	env := tr.env("PATH="+filepath.Dir(goBin)+":"+sbPath, "GOCACHE="+goEnv("GOCACHE"), "GOMODCACHE="+goEnv("GOMODCACHE"),
		"GOPROXY=off", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "CGO_ENABLED=0")
	stdout, stderr, code := sbRun(t, mod, env, "sandbox", "--", goBin, "test", "-count=1", "./guard/")
	require.Equal(t, 0, code, "%s\n%s", stdout, stderr)
	assert.Contains(t, stdout, "ok  \tgithub.com/guardlocks/guard/guard")
	// The same run still could not have written the locked folder.
	_, _, code = sbRun(t, mod, env, "sandbox", "--", "/bin/sh", "-c", "echo pwned > docs/new.txt")
	assert.Equal(t, 2, code)
	assert.NoFileExists(t, filepath.Join(mod, "docs", "new.txt"))
}

func TestRunSandboxConfinesTheHolderToItsOwnAndFreeAreas(t *testing.T) {
	sbNeedLandlock(t)
	sbModes(t, testRunSandboxConfinesTheHolderToItsOwnAndFreeAreas)
}

func testRunSandboxConfinesTheHolderToItsOwnAndFreeAreas(t *testing.T, tr sbTree) {
	env := tr.env("GUARD_OWNER=carol")
	script := "echo held > free/held.txt && echo lease > free/LOCK.txt.probe && rm free/LOCK.txt.probe && " +
		"echo pwned > locked/data.txt; echo \"rc=$?\"; exit 7"
	stdout, stderr, code := sbRun(t, tr.proj, env, "run", "--sandbox", "free", "--", "/bin/sh", "-c", script)
	assert.Equal(t, 7, code, stderr)
	assert.Equal(t, "rc=2\n", stdout)
	if tr.landlock {
		assert.Contains(t, stderr, "locked/data.txt: Permission denied")
	} else {
		assert.Contains(t, stderr, "locked/data.txt: Read-only file system")
	}
	assert.Equal(t, "held\n", ctRead(t, filepath.Join(tr.proj, "free", "held.txt")))
	assert.Equal(t, "orig\n", ctRead(t, filepath.Join(tr.proj, "locked", "data.txt")))
	assert.NoFileExists(t, filepath.Join(tr.proj, "free", "LOCK.txt"), "guard run released its lock")
	// The holder is the lock's owner whatever the identity variables say: alice
	// holding her own area may write it, and still not carol's team lock of box2.
	_, stderr, code = sbRun(t, tr.proj, tr.env("GUARD_OWNER=alice"), "run", "--sandbox", "--owner", "alice", "free", "--",
		"/bin/sh", "-c", "echo alice > locked/data.txt && ! echo x > otherhost/x.txt")
	assert.Equal(t, 0, code, stderr)
	assert.Equal(t, "alice\n", ctRead(t, filepath.Join(tr.proj, "locked", "data.txt")))
	assert.Equal(t, "x\n", ctRead(t, filepath.Join(tr.proj, "otherhost", "x.txt")))
}
