package guard

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCommittedMarker(t *testing.T) {
	cases := []struct {
		name    string
		rel     string
		place   MarkerPlace
		removed bool
		refused bool
		says    string
	}{
		{"a staged PRIVATE.txt is refused", "PRIVATE.txt", MarkerStaged, false, true, "unstage it with `git rm --cached -- PRIVATE.txt`"},
		{"a staged marker in any case, anywhere, is refused", "a/b/public.TXT", MarkerStaged, false, true, "public.TXT is a publication marker"},
		{"staging a marker's removal is the repair", "PRIVATE.txt", MarkerStaged, true, false, ""},
		{"a marker in a pushed tree is refused", "sub/PRIVATE.txt", MarkerInTree, false, true, "sub/PRIVATE.txt is committed"},
		{"a marker added in the range is refused", "PUBLIC.txt", MarkerInRange, false, true, "was committed in this range"},
		{"a file that only looks like one is not a marker", "PRIVATE.txt.bak", MarkerInTree, false, false, ""},
		{"a folder named like a marker does not make its files markers", "PRIVATE.txt/notes", MarkerStaged, false, false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			reason, refused := CommittedMarker(tc.rel, tc.place, tc.removed)
			assert.Equal(t, tc.refused, refused)
			if tc.refused {
				assert.Contains(t, reason, tc.says)
			} else {
				assert.Empty(t, reason)
			}
		})
	}
}

func TestIsMarkerNameBytesAgreesWithIsMarkerName(t *testing.T) {
	for _, p := range []string{"PRIVATE.txt", "a/b/private.TXT", `a\PUBLIC.txt`, "PUBLIC.txt/x", "PRIVATE.txt.bak", "", "/", "xPUBLIC.txt", "public.txt", "ſub/PUBLIC.txt", "PRİVATE.txt"} {
		assert.Equal(t, IsMarkerName(p), IsMarkerNameBytes([]byte(p)), p)
	}
}

func FuzzIsMarkerNameBytes(f *testing.F) {
	f.Add("a/PRIVATE.txt")
	f.Add(`x\public.TXT`)
	f.Fuzz(func(t *testing.T, p string) {
		if IsMarkerName(p) != IsMarkerNameBytes([]byte(p)) {
			t.Fatalf("%q: IsMarkerName %v, IsMarkerNameBytes %v", p, IsMarkerName(p), IsMarkerNameBytes([]byte(p)))
		}
	})
}
