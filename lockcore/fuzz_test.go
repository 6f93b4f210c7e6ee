package lockcore_test

import (
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/guardlocks/guard/lockcore"
)

// nameRE is the contract's lock name rule, restated independently of Classify.
var nameRE = regexp.MustCompile(`(?i)^LOCK(\.[A-Za-z0-9_-]+)*\.txt$`)

// FuzzClassify checks the classifier against the contract's rules on any name:
// it never panics, accepts exactly the names the rule accepts, and its parts add up.
func FuzzClassify(f *testing.F) {
	for _, s := range []string{
		"LOCK.txt", "lock.TXT", "LOCK.team.a.b.H.txt", "LOCK.team.txt", "LOCK.community.H.txt",
		"LOCK.user.x.txt", "LOCK.condition.txt", "LOCK.until.and.condition.z.txt", "LOCK.x.not-user.txt",
		"TEST.txt", "TESTS.txt", "LOCK.permissions.txt", "LOCK..txt", "LOCK.txt.bak", "LOCK-CACHE.md",
		"LOCK.\xff.txt", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		n, ok := lockcore.Classify(name)
		legacy := name == "TEST.txt" || name == "TESTS.txt"
		want := legacy || (nameRE.MatchString(name) && !strings.EqualFold(name, "LOCK.permissions.txt"))
		if ok != want {
			t.Fatalf("Classify(%q) ok=%v, want %v", name, ok, want)
		}
		if !ok {
			return
		}
		if n.File != name {
			t.Fatalf("File %q != %q", n.File, name)
		}
		if n.Scope == "" {
			t.Fatalf("Classify(%q): empty scope", name)
		}
		if n.Kind != lockcore.Team && n.Host != "" {
			t.Fatalf("Classify(%q): host %q on a %s lock", name, n.Host, n.Kind)
		}
		if n.Scope != lockcore.ProjectScope && !strings.Contains(strings.ToLower(name), strings.ToLower(n.Scope)) {
			t.Fatalf("Classify(%q): scope %q is not part of the name", name, n.Scope)
		}
		if legacy && (n.Kind != lockcore.Legacy || n.Ambiguous) {
			t.Fatalf("Classify(%q) = %+v", name, n)
		}
	})
}

// FuzzParseLock feeds any bytes to the lock-file parser: it never panics, every value
// is valid UTF-8 and trimmed, and expiry questions have consistent answers.
func FuzzParseLock(f *testing.F) {
	for _, s := range []string{
		"owner: a\ncreated: 2026-06-15T10:00\nexpires_after: 2h\n",
		"\xef\xbb\xbfowner: bom\r\nmode: soft\r\n",
		"LOCK.user.me\nGrund: x\n",
		"not_before: 2026-10-08T12:00-07:00\nrelease_condition: r\nrelease_mode: any\n",
		"expires_after: 999999999999999999999d\n",
		"fence: 99999999999999999999\noperations: a,,b\n",
		"\x00\xff\xfe:\r\r\n#:\n:\n",
		"created: 0000-01-01\nexpires_after: 999999999d\n",
	} {
		f.Add("LOCK.txt", []byte(s))
	}
	f.Add("LOCK.until.x.txt", []byte("not_before: 9999-12-31T23:59:59"))
	f.Add("LOCK.team.h.txt", []byte("removable_by: user"))
	mtime := time.Date(2026, 6, 15, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, name string, body []byte) {
		if !lockcore.IsLockName(name) {
			name = "LOCK.txt"
		}
		l, err := lockcore.ParseLock("/f/"+name, body, mtime, cest)
		if err != nil {
			t.Fatalf("ParseLock(%q): %v", name, err)
		}
		for k, v := range l.Fields.Values {
			if !utf8.ValidString(k) || !utf8.ValidString(v) {
				t.Fatalf("invalid UTF-8 in %q: %q", k, v)
			}
			if strings.TrimSpace(v) != v && !strings.ContainsAny(v, "\x1c\x1d\x1e\x1f") {
				t.Fatalf("value %q is not trimmed", v)
			}
			if k != strings.ToLower(k) {
				t.Fatalf("key %q is not lower-case", k)
			}
		}
		if l.Mode != "hard" && l.Mode != "soft" {
			t.Fatalf("mode %q", l.Mode)
		}
		for _, at := range []time.Time{now, now.Add(1000 * time.Hour), now.Add(-1000 * time.Hour)} {
			if l.Expired(at) == l.Active(at) {
				t.Fatal("Expired and Active agree")
			}
			if l.Prunable(at) && (l.Protected() || l.Kind == lockcore.Legacy || !l.Expired(at)) {
				t.Fatalf("prunable protected or live lock: %+v", l.Name)
			}
		}
		if l.Protected() {
			if l.Kind != lockcore.Until && l.Expired(now.Add(1e6*time.Hour)) {
				t.Fatal("a protected lock expired")
			}
		}
		if l.Invalid() {
			// Not a lock body: held fail closed, with no fields to go by.
			if len(l.Fields.Values) != 0 || l.Expired(now.Add(1e6*time.Hour)) || l.Prunable(now.Add(1e6*time.Hour)) {
				t.Fatalf("an invalid lock has fields or expires: %+v", l.Fields)
			}
		}
		_ = l.ToJSON(now)
		_ = l.Remaining(now)
		_ = lockcore.RenderCache("t", []*lockcore.Lock{l}, now)
	})
}
