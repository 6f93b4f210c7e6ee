package hooks

import (
	"bufio"
	"fmt"
	"io"
	"strings"
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
	err := scanHookLines(r, "pre-push input", func(n int, line string, f []string) error {
		if len(f) != 4 || f[0] == "" || f[2] == "" || !isHex(f[1]) || !isHex(f[3]) {
			return fmt.Errorf("pre-push input line %d: want `<local ref> <local sha> <remote ref> <remote sha>`, got %q", n, line)
		}
		ups = append(ups, RefUpdate{LocalRef: f[0], LocalSHA: f[1], RemoteRef: f[2], RemoteSHA: f[3]})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ups, nil
}

// scanHookLines reads the lines git gives a hook on stdin (pre-push, pre-receive,
// post-receive) and hands each non-blank one, numbered from 1, with its
// space-separated fields to line; the first error stops the reading. what names the
// input in a read error.
func scanHookLines(r io.Reader, what string, line func(n int, line string, fields []string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		l := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(l) == "" {
			continue
		}
		if err := line(n, l, strings.Split(l, " ")); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}
