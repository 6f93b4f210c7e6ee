package hooks

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/guardlocks/guard/internal/gitrun"
)

// RefUpdate is one line git gives a pre-push hook on stdin:
// `<local ref> SP <local sha> SP <remote ref> SP <remote sha>`.
type RefUpdate struct {
	LocalRef, LocalSHA, RemoteRef, RemoteSHA string
}

// Deletion reports whether the push deletes the remote ref (the local sha is zeros).
func (u RefUpdate) Deletion() bool { return isZero(u.LocalSHA) }

// NewRef reports whether the remote does not have the ref yet (the remote sha is zeros).
func (u RefUpdate) NewRef() bool { return isZero(u.RemoteSHA) }

// Tag reports whether a tag is pushed: pushing a tag is a release.
func (u RefUpdate) Tag() bool {
	return strings.HasPrefix(u.RemoteRef, "refs/tags/") || strings.HasPrefix(u.LocalRef, "refs/tags/")
}

// String names the update for messages and the bypass log: "<local ref> -> <remote
// ref>", or "delete <remote ref>".
func (u RefUpdate) String() string {
	if u.Deletion() {
		return "delete " + u.RemoteRef
	}
	return u.LocalRef + " -> " + u.RemoteRef
}

func isZero(sha string) bool { return strings.Trim(sha, "0") == "" }

func isHex(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// ParseRefLines reads git's pre-push stdin. Blank lines are skipped; anything else
// that is not four fields with full object names is an error (a hook must not guess
// what it is asked to let through).
func ParseRefLines(r io.Reader) ([]RefUpdate, error) {
	var ups []RefUpdate
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.Split(line, " ")
		if len(f) != 4 || f[0] == "" || f[2] == "" || !isHex(f[1]) || !isHex(f[3]) {
			return nil, fmt.Errorf("pre-push input line %d: want `<local ref> <local sha> <remote ref> <remote sha>`, got %q", n, line)
		}
		ups = append(ups, RefUpdate{LocalRef: f[0], LocalSHA: f[1], RemoteRef: f[2], RemoteSHA: f[3]})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("pre-push input: %w", err)
	}
	return ups, nil
}

// presentCommits reports which of the given object names this repository has and can
// peel to a commit (an annotated tag of a commit counts: pushing it publishes that
// commit's history), with one `git cat-file --batch-check`. git answers one line per
// input line, in order, naming the peeled object; the answers are keyed by the names
// asked about.
func presentCommits(ctx context.Context, g gitrun.Git, shas []string) (map[string]bool, error) {
	have := map[string]bool{}
	if len(shas) == 0 {
		return have, nil
	}
	var in bytes.Buffer
	for _, s := range shas {
		fmt.Fprintf(&in, "%s^{commit}\n", s)
	}
	out, err := g.RunInput(ctx, in.Bytes(), "cat-file", "--batch-check")
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(shas) {
		return nil, fmt.Errorf("git cat-file --batch-check: %d answers for %d objects", len(lines), len(shas))
	}
	for i, line := range lines {
		if f := strings.Fields(line); len(f) == 3 && f[1] == "commit" {
			have[shas[i]] = true
		}
	}
	return have, nil
}

// PushRange returns the `git log` revisions whose commits the update would publish:
// an update is remote..local when this repository has the remote's commit; a new ref
// (or a remote commit unknown here) is whatever none of the remote's tracking refs
// already has. A deletion publishes no commit (nil).
func PushRange(u RefUpdate, remote string, haveRemote bool) []string {
	switch {
	case u.Deletion():
		return nil
	case !u.NewRef() && haveRemote:
		return []string{u.LocalSHA, "--not", u.RemoteSHA}
	default:
		return []string{u.LocalSHA, "--not", "--remotes=" + remote}
	}
}
