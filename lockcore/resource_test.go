package lockcore

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestResourceSlug(t *testing.T) {
	hash := func(uri string) string {
		s := sha256.Sum256([]byte(uri))
		return hex.EncodeToString(s[:4])
	}
	long := "https://example.com/" + strings.Repeat("abcdefghij", 10)
	for _, c := range []struct{ name, uri, text string }{
		{"a URL keeps its words, lower-cased, joined by single dashes", "postgres://DB.example.com:5432/App", "postgres-db-example-com-5432-app"},
		{"dashes and digits stay", "deploy-target-42", "deploy-target-42"},
		{"runs of other characters are one dash and none at the ends", "  //db__one// ", "db-one"},
		{"letters outside ASCII are not letters of a slug", "café://naïve", "caf-na-ve"},
		{"a URI of nothing foldable is the hash alone", "::/?#", ""},
		{"the text is cut to 60 characters", long, "https-example-com-" + strings.Repeat("abcdefghij", 5)[:42]},
		{"a cut that ends on a dash drops it", strings.Repeat("a", 59) + "/b", strings.Repeat("a", 59)},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := hash(c.uri)
			if c.text != "" {
				want = c.text + "-" + want
			}
			if got := ResourceSlug(c.uri); got != want {
				t.Fatalf("ResourceSlug(%q) = %q, want %q", c.uri, got, want)
			}
		})
	}
}

func TestURIsThatFoldAlikeGetTwoLocks(t *testing.T) {
	a, b := ResourceFileName("db://A"), ResourceFileName("db://a")
	if a == b {
		t.Fatalf("both are %s", a)
	}
	for _, n := range []string{a, b} {
		l, ok := Classify(n)
		if !ok || l.Kind != Exclusive || l.Ambiguous {
			t.Fatalf("%s classifies as %+v, %v; want an exclusive lock", n, l, ok)
		}
	}
}

var slugRE = regexp.MustCompile(`^([a-z0-9]+(-[a-z0-9]+)*-)?[0-9a-f]{8}$`)

// FuzzResourceSlug checks the slug's promises for any URI: only [a-z0-9-], at most
// 60 characters before the hash, the hash of the URI at the end, and a lock file
// name that every reader takes for an exclusive lock of that scope.
func FuzzResourceSlug(f *testing.F) {
	for _, s := range []string{"postgres://db/app", "", "-", "LOCK.user.txt", "user", "a.b.c", strings.Repeat("x/", 50), "é", "not-user"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		slug := ResourceSlug(uri)
		if !slugRE.MatchString(slug) {
			t.Fatalf("slug %q of %q is not [a-z0-9-] words and a hash", slug, uri)
		}
		sum := sha256.Sum256([]byte(uri))
		if !strings.HasSuffix(slug, hex.EncodeToString(sum[:4])) {
			t.Fatalf("slug %q does not end in the URI's hash", slug)
		}
		if text := strings.TrimSuffix(slug, hex.EncodeToString(sum[:4])); utf8.RuneCountInString(text) > 61 {
			t.Fatalf("slug %q keeps more than 60 characters of the URI", slug)
		}
		// Every ASCII letter and digit of the URI's first 60 slug characters is
		// there, in order: folding drops nothing else.
		var want strings.Builder
		for _, r := range uri {
			switch {
			case r >= 'A' && r <= 'Z':
				want.WriteRune(r + 'a' - 'A')
			case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
				want.WriteRune(r)
			}
		}
		got := strings.ReplaceAll(strings.TrimSuffix(slug, hex.EncodeToString(sum[:4])), "-", "")
		if !strings.HasPrefix(want.String(), got) {
			t.Fatalf("slug %q of %q lost or changed characters", slug, uri)
		}
		name := ResourceFileName(uri)
		n, ok := Classify(name)
		if !ok || n.Kind != Exclusive || n.Ambiguous || n.Scope != slug {
			t.Fatalf("%s classifies as %+v (%v), want an exclusive lock of scope %s", name, n, ok, slug)
		}
		spec := Spec{Dir: "/r", Kind: Exclusive, Scope: slug, Owner: "o", Resource: "x"}
		if err := spec.Validate(); err != nil {
			t.Fatalf("a resource lock of %q is refused: %v", uri, err)
		}
	})
}
