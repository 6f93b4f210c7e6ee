package action_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/testenv"
)

// runnerNames are GitHub's runner.os and runner.arch for this machine, so that the
// archive the action picks holds a binary that runs here.
func runnerNames(t *testing.T) (string, string) {
	os := map[string]string{"linux": "Linux", "darwin": "macOS", "windows": "Windows"}[runtime.GOOS]
	arch := map[string]string{"amd64": "X64", "arm64": "ARM64"}[runtime.GOARCH]
	if os == "" || arch == "" {
		t.Skipf("guard releases no binary for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	return os, arch
}

var (
	releaseOnce   sync.Once
	releaseBinary []byte
	releaseErr    error
)

// releasedGuard is guard built from this tree as a release build stamps it (version
// 1.2.3), once per test binary.
func releasedGuard(t *testing.T) []byte {
	t.Helper()
	releaseOnce.Do(func() {
		dir, err := os.MkdirTemp("", "guard-action-release")
		if err != nil {
			releaseErr = err
			return
		}
		defer os.RemoveAll(dir)
		out := filepath.Join(dir, "guard")
		cmd := exec.Command("go", "build", "-ldflags", "-X main.version=1.2.3 -X main.commit=abc123 -X main.date=2026-12-01T00:00:00Z", "-o", out, "./cmd/guard")
		cmd.Dir = ".."
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if b, err := cmd.CombinedOutput(); err != nil {
			releaseErr = fmt.Errorf("go build: %v: %s", err, b)
			return
		}
		releaseBinary, releaseErr = os.ReadFile(out)
	})
	require.NoError(t, releaseErr)
	return releaseBinary
}

// archive is a release archive as goreleaser lays it out: the binary and the docs at
// its root; .zip for Windows, else .tar.gz.
func archive(t *testing.T, goos string, binary []byte) []byte {
	t.Helper()
	files := []struct {
		name string
		mode int64
		data []byte
	}{{"README.md", 0o644, []byte("# guard\n")}, {"LICENSE", 0o644, []byte("MIT\n")}, {"guard", 0o755, binary}}
	var buf bytes.Buffer
	if goos == "windows" {
		zw := zip.NewWriter(&buf)
		for _, f := range files {
			if f.name == "guard" {
				f.name = "guard.exe"
			}
			w, err := zw.Create(f.name)
			require.NoError(t, err)
			_, err = w.Write(f.data)
			require.NoError(t, err)
		}
		require.NoError(t, zw.Close())
		return buf.Bytes()
	}
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, f := range files {
		require.NoError(t, tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.data)), Typeflag: tar.TypeReg}))
		_, err := tw.Write(f.data)
		require.NoError(t, err)
	}
	require.NoError(t, tw.Close())
	require.NoError(t, gz.Close())
	return buf.Bytes()
}

// releaseServer serves a release site as GitHub does for the action: files under
// /download/TAG/, and /latest redirecting to /tag/TAG. It records the paths asked for.
type releaseServer struct {
	*httptest.Server
	mu     sync.Mutex
	files  map[string][]byte
	latest string
	asked  []string
}

func newReleaseServer(t *testing.T, latest string) *releaseServer {
	s := &releaseServer{files: map[string][]byte{}, latest: latest}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.asked = append(s.asked, r.URL.Path)
		switch {
		case r.URL.Path == "/releases/latest":
			http.Redirect(w, r, "/releases/tag/"+s.latest, http.StatusFound)
		case strings.HasPrefix(r.URL.Path, "/releases/tag/"):
			fmt.Fprintln(w, "release page")
		default:
			data, ok := s.files[r.URL.Path]
			if !ok {
				http.NotFound(w, r)
				return
			}
			_, _ = w.Write(data)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// publish puts a release's archive for this machine and its checksums.txt on the
// server; tamper, when set, changes the archive after its checksum was taken.
func (s *releaseServer) publish(t *testing.T, tag string, tamper func([]byte) []byte) string {
	t.Helper()
	goos, goarch := runtime.GOOS, runtime.GOARCH
	ext := "tar.gz"
	if goos == "windows" {
		ext = "zip"
	}
	name := fmt.Sprintf("guard_%s_%s_%s.%s", strings.TrimPrefix(tag, "v"), goos, goarch, ext)
	data := archive(t, goos, releasedGuard(t))
	sum := sha256.Sum256(data)
	other := sha256.Sum256([]byte("another archive"))
	checksums := fmt.Sprintf("%s  guard_%s_plan9_amd64.tar.gz\n%s  %s\n", hex.EncodeToString(other[:]), strings.TrimPrefix(tag, "v"), hex.EncodeToString(sum[:]), name)
	if tamper != nil {
		data = tamper(data)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files["/releases/download/"+tag+"/"+name] = data
	s.files["/releases/download/"+tag+"/checksums.txt"] = []byte(checksums)
	return name
}

type actionRun struct {
	code                   int
	stdout, stderr, binDir string
	ghPath                 string
}

// runDownload runs the action's script, as a runner of this machine's OS and
// architecture would, in a clone of a one-commit repository, with the inputs given.
func runDownload(t *testing.T, env ...string) actionRun {
	t.Helper()
	src, err := filepath.Abs("..")
	require.NoError(t, err)
	top := t.TempDir()
	r := repo{t: t, home: filepath.Join(top, "home")}
	require.NoError(t, os.MkdirAll(r.home, 0o755))
	origin, ci := filepath.Join(top, "origin.git"), filepath.Join(top, "ci")
	r.git(top, "init", "-q", "--bare", origin)
	r.git(top, "clone", "-q", "file://"+origin, ci)
	r.git(ci, "checkout", "-q", "-b", "main")
	r.commit(ci, "base", map[string]string{"src/app.go": "package app\n"})
	r.git(ci, "push", "-q", "origin", "main")

	runnerOS, runnerArch := runnerNames(t)
	runner := t.TempDir()
	ghPathFile := filepath.Join(runner, "path")
	cmd := exec.Command("bash", filepath.Join(src, "action", "run.sh"))
	cmd.Dir = ci
	// No Go caches are passed: without from-source the script builds nothing.
	cmd.Env = append([]string{"PATH=" + testenv.Path(), "HOME=" + r.home, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"RUNNER_OS=" + runnerOS, "RUNNER_ARCH=" + runnerArch, "RUNNER_TEMP=" + runner, "GITHUB_PATH=" + ghPathFile,
		"GITHUB_OUTPUT=" + filepath.Join(runner, "output"), "GITHUB_STEP_SUMMARY=" + filepath.Join(runner, "summary"),
		"GITHUB_BASE_REF=main", "GUARD_ACTION_PATH=" + src, "GUARD_INPUT_FORMAT=github", "GUARD_OWNER=alice", "GUARD_HOST=runner"},
		env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	res := actionRun{binDir: filepath.Join(runner, "guard-action-bin")}
	if err := cmd.Run(); err != nil {
		ee, ok := err.(*exec.ExitError)
		require.True(t, ok, "run.sh: %v", err)
		res.code = ee.ExitCode()
	}
	res.stdout, res.stderr = out.String(), errb.String()
	p, _ := os.ReadFile(ghPathFile)
	res.ghPath = string(p)
	return res
}

func exeName() string {
	if runtime.GOOS == "windows" {
		return "guard.exe"
	}
	return "guard"
}

func TestActionInstallsAVerifiedRelease(t *testing.T) {
	t.Run("the archive for the runner is downloaded, verified against checksums.txt and run", func(t *testing.T) {
		s := newReleaseServer(t, "v1.2.3")
		name := s.publish(t, "v1.2.3", nil)
		r := runDownload(t, "GUARD_INPUT_VERSION=v1.2.3", "GUARD_INPUT_RELEASE_URL="+s.URL+"/releases")
		out := r.stdout + r.stderr
		require.Equal(t, 0, r.code, out)
		assert.Contains(t, r.stdout, "install guard v1.2.3 ("+name+") from "+s.URL+"/releases")
		assert.Contains(t, r.stdout, name+": SHA-256 ")
		assert.Contains(t, r.stdout, " matches checksums.txt")
		assert.Contains(t, r.stdout, "guard 1.2.3 (commit abc123, built 2026-12-01T00:00:00Z)")
		got, err := os.ReadFile(filepath.Join(r.binDir, exeName()))
		require.NoError(t, err)
		assert.True(t, bytes.Equal(releasedGuard(t), got), "the installed guard is the archive's")
		assert.Equal(t, r.binDir+"\n", r.ghPath)
		assert.NotContains(t, out, "::error")
	})

	t.Run("a version without its v, and the ref the action is pinned at, pick that release", func(t *testing.T) {
		s := newReleaseServer(t, "v9.9.9")
		s.publish(t, "v1.2.3", nil)
		r := runDownload(t, "GUARD_INPUT_VERSION=1.2.3", "GUARD_INPUT_RELEASE_URL="+s.URL+"/releases")
		require.Equal(t, 0, r.code, r.stdout+r.stderr)
		r = runDownload(t, "GUARD_ACTION_REF=v1.2.3", "GUARD_INPUT_RELEASE_URL="+s.URL+"/releases")
		require.Equal(t, 0, r.code, r.stdout+r.stderr)
		assert.Contains(t, r.stdout, "install guard v1.2.3 (")
		assert.NotContains(t, s.asked, "/releases/latest")
	})

	t.Run("pinned at a branch, the latest release is installed", func(t *testing.T) {
		s := newReleaseServer(t, "v1.2.3")
		s.publish(t, "v1.2.3", nil)
		r := runDownload(t, "GUARD_ACTION_REF=main", "GUARD_INPUT_RELEASE_URL="+s.URL+"/releases")
		require.Equal(t, 0, r.code, r.stdout+r.stderr)
		assert.Contains(t, r.stdout, "install guard v1.2.3 (")
		assert.Contains(t, s.asked, "/releases/latest")
	})

	t.Run("a tampered archive is refused and nothing of it is installed", func(t *testing.T) {
		s := newReleaseServer(t, "v1.2.3")
		name := s.publish(t, "v1.2.3", func(b []byte) []byte {
			c := bytes.Clone(b)
			c[len(c)/2] ^= 0xff
			return c
		})
		r := runDownload(t, "GUARD_INPUT_VERSION=v1.2.3", "GUARD_INPUT_RELEASE_URL="+s.URL+"/releases")
		assert.Equal(t, 2, r.code, r.stdout+r.stderr)
		assert.Contains(t, r.stderr, "guard action: refusing "+name+": its SHA-256 is ")
		assert.Contains(t, r.stderr, ", but checksums.txt of v1.2.3 says ")
		assert.Contains(t, r.stderr, "The download is corrupt or was tampered with, and nothing of it was installed.")
		assert.Contains(t, r.stderr, "set from-source: true")
		assert.Contains(t, r.stdout, "::error title=guard action::refusing "+name)
		assert.NoFileExists(t, filepath.Join(r.binDir, exeName()))
		assert.Equal(t, "", r.ghPath, "no guard is put on PATH")
	})

	t.Run("an archive checksums.txt does not list is refused", func(t *testing.T) {
		s := newReleaseServer(t, "v1.2.3")
		name := s.publish(t, "v1.2.3", nil)
		s.mu.Lock()
		s.files["/releases/download/v1.2.3/checksums.txt"] = []byte("0000  guard_1.2.3_plan9_amd64.tar.gz\n")
		s.mu.Unlock()
		r := runDownload(t, "GUARD_INPUT_VERSION=v1.2.3", "GUARD_INPUT_RELEASE_URL="+s.URL+"/releases")
		assert.Equal(t, 2, r.code, r.stdout+r.stderr)
		assert.Contains(t, r.stderr, "guard action: checksums.txt of v1.2.3 lists no "+name+": refusing to run an unverified download")
		assert.NoFileExists(t, filepath.Join(r.binDir, exeName()))
	})

	t.Run("a release without checksums.txt is refused", func(t *testing.T) {
		s := newReleaseServer(t, "v1.2.3")
		s.publish(t, "v1.2.3", nil)
		s.mu.Lock()
		delete(s.files, "/releases/download/v1.2.3/checksums.txt")
		s.mu.Unlock()
		r := runDownload(t, "GUARD_INPUT_VERSION=v1.2.3", "GUARD_INPUT_RELEASE_URL="+s.URL+"/releases")
		assert.Equal(t, 2, r.code, r.stdout+r.stderr)
		assert.Contains(t, r.stderr, "/releases/download/v1.2.3/checksums.txt: refusing to run an unverified download")
		assert.NoFileExists(t, filepath.Join(r.binDir, exeName()))
	})

	t.Run("a version that is not released is an error naming the URL", func(t *testing.T) {
		s := newReleaseServer(t, "v1.2.3")
		s.publish(t, "v1.2.3", nil)
		r := runDownload(t, "GUARD_INPUT_VERSION=v0.0.1", "GUARD_INPUT_RELEASE_URL="+s.URL+"/releases")
		assert.Equal(t, 2, r.code, r.stdout+r.stderr)
		assert.Contains(t, r.stderr, "guard action: could not download "+s.URL+"/releases/download/v0.0.1/guard_0.0.1_")
		assert.Contains(t, r.stderr, "(is v0.0.1 a release of guard?)")
	})

	t.Run("a runner architecture without a release binary says to build from source", func(t *testing.T) {
		s := newReleaseServer(t, "v1.2.3")
		r := runDownload(t, "RUNNER_ARCH=ARM", "GUARD_INPUT_RELEASE_URL="+s.URL+"/releases")
		assert.Equal(t, 2, r.code, r.stdout+r.stderr)
		assert.Contains(t, r.stderr, "guard action: guard ships no release binary for the runner architecture 'ARM' (X64 and ARM64 only): set from-source: true to build it")
		assert.Empty(t, s.asked, "nothing is downloaded")
	})

	t.Run("from-source takes only true or false", func(t *testing.T) {
		r := runDownload(t, "GUARD_INPUT_FROM_SOURCE=yes")
		assert.Equal(t, 2, r.code, r.stdout+r.stderr)
		assert.Contains(t, r.stderr, "guard action: from-source must be true or false, not 'yes'")
	})
}
