package execpath

import (
	"slices"
	"testing"
)

// With replaces every entry of a key it sets, keeps the rest in order, and never
// hands back nil (which exec would read as "guard's own environment").
func TestWith(t *testing.T) {
	for _, tc := range []struct {
		name    string
		environ []string
		set     []string
		want    []string
	}{
		{"adds to an environment without the key", []string{"PATH=/bin", "HOME=/h"}, []string{"GUARD_SANDBOX=4"}, []string{"PATH=/bin", "HOME=/h", "GUARD_SANDBOX=4"}},
		{"replaces every entry of the key, duplicates included", []string{"A=1", "PATH=/bin", "A=2"}, []string{"A=3"}, []string{"PATH=/bin", "A=3"}},
		{"leaves a key that only starts like another alone", []string{"LOCK_FENCE_FILE=/l", "LOCK_FENCE=1"}, []string{"LOCK_FENCE=2"}, []string{"LOCK_FENCE_FILE=/l", "LOCK_FENCE=2"}},
		{"an empty environment gets only the set", nil, []string{"GUARD_LOCK_HELD=1"}, []string{"GUARD_LOCK_HELD=1"}},
		{"nothing set and nothing given is empty, not nil", nil, nil, []string{}},
	} {
		got := With(tc.environ, tc.set...)
		if got == nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: With(%q, %q) = %#v; want %q", tc.name, tc.environ, tc.set, got, tc.want)
		}
	}
}
