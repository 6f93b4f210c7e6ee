package lockcore

import (
	"testing"
	"time"
)

// FuzzRenewBody: renewing any body sets created (and expires_after) as the readers see
// them, and leaves every other field's value as it was.
func FuzzRenewBody(f *testing.F) {
	f.Add([]byte("owner: a\ncreated: 2026-01-01T00:00\nfence: 5\n"))
	f.Add([]byte("owner: a\r\ncreated: x\r\ncreated: y\r\ncustom: keep\r\n"))
	f.Add([]byte("# comment\nno colon\n\nexpires_after: 2h"))
	f.Add([]byte("\xef\xbb\xbfowner: a"))
	f.Add([]byte(""))
	// Line breaks the readers know besides CR and LF: the created after \v is a line of
	// its own for them, so a renewal must rewrite it, not add one above it.
	f.Add([]byte("owner: a\nhost: h\vcreated: 2020-01-01T00:00\n"))
	f.Add([]byte("owner: a\u2028expires_after: 1s\fcreated: 2020-01-01\x1c"))
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := renewBody(data, now, "3h", Exclusive)
		if err != nil {
			t.Fatal(err)
		}
		before, after := ParseFields(data), ParseFields(out)
		if got := after.Values["created"]; got != FormatCreated(now) {
			t.Fatalf("created = %q in %q", got, out)
		}
		if got := after.Values["expires_after"]; got != "3h" {
			t.Fatalf("expires_after = %q in %q", got, out)
		}
		for k, v := range before.Values {
			if k == "created" || k == "expires_after" {
				continue
			}
			if after.Values[k] != v {
				t.Fatalf("%s changed from %q to %q:\n%q\n%q", k, v, after.Values[k], data, out)
			}
		}
	})
}
