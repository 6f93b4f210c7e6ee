package hooks

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/guardlocks/guard/guard"
)

// ReceiveUpdate is one line git gives pre-receive and post-receive on stdin (and the
// arguments of update): `<old> SP <new> SP <ref>`.
type ReceiveUpdate struct {
	Old, New, Ref string
}

// Deletion reports whether the push deletes the ref.
func (u ReceiveUpdate) Deletion() bool { return isZero(u.New) }

// Creation reports whether the server does not have the ref yet.
func (u ReceiveUpdate) Creation() bool { return isZero(u.Old) }

// Tag reports whether the ref is a tag: pushing one is a release.
func (u ReceiveUpdate) Tag() bool { return strings.HasPrefix(u.Ref, "refs/tags/") }

// String names the update for messages and the logs.
func (u ReceiveUpdate) String() string {
	switch {
	case u.Deletion():
		return "delete " + u.Ref
	case u.Creation():
		return "create " + u.Ref
	}
	return u.Ref
}

// ParseReceiveLines reads git's pre-receive (or post-receive) stdin. Blank lines are
// skipped; anything else that is not `<old> <new> <ref>` with full object names of
// one length and a ref name without spaces or control characters is an error: the
// gate must not guess what it is asked to let in.
func ParseReceiveLines(r io.Reader) ([]ReceiveUpdate, error) {
	var ups []ReceiveUpdate
	err := scanHookLines(r, "receive input", func(n int, line string, f []string) error {
		if len(f) != 3 {
			return fmt.Errorf("receive input line %d: want `<old> <new> <ref>`, got %q", n, line)
		}
		u, err := NewReceiveUpdate(f[2], f[0], f[1])
		if err != nil {
			return fmt.Errorf("receive input line %d: %w", n, err)
		}
		ups = append(ups, u)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ups, nil
}

// NewReceiveUpdate checks one update as git describes it (the update hook's REF OLD
// NEW arguments, or a line of stdin).
func NewReceiveUpdate(ref, old, new string) (ReceiveUpdate, error) {
	if !isHex(old) || !isHex(new) || len(old) != len(new) {
		return ReceiveUpdate{}, fmt.Errorf("want two full object names, got %q and %q", old, new)
	}
	if ref == "" || strings.ContainsFunc(ref, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return ReceiveUpdate{}, fmt.Errorf("%q is not a ref name", ref)
	}
	if isZero(old) && isZero(new) {
		return ReceiveUpdate{}, fmt.Errorf("%s: both object names are zeros", ref)
	}
	return ReceiveUpdate{Old: old, New: new, Ref: ref}, nil
}

// PushOptions are the push options git hands the receiving hooks
// (GIT_PUSH_OPTION_COUNT, GIT_PUSH_OPTION_0, ...; the repository needs
// receive.advertisePushOptions).
func PushOptions(env *guard.Env) []string {
	n, err := strconv.Atoi(env.Env("GIT_PUSH_OPTION_COUNT"))
	if err != nil || n <= 0 {
		return nil
	}
	out := make([]string, 0, n)
	for i := range n {
		out = append(out, env.Env("GIT_PUSH_OPTION_"+strconv.Itoa(i)))
	}
	return out
}
