package hooks

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/gitrun"
)

const (
	shaA = "1111111111111111111111111111111111111111"
	shaB = "2222222222222222222222222222222222222222"
	shaC = "3333333333333333333333333333333333333333"
	zero = "0000000000000000000000000000000000000000"
)

func TestParseRefLines(t *testing.T) {
	cases := []struct {
		name    string
		in      string
		want    []RefUpdate
		wantErr string
	}{
		{"an update is one line of four fields", "refs/heads/main " + shaA + " refs/heads/main " + shaB + "\n",
			[]RefUpdate{{"refs/heads/main", shaA, "refs/heads/main", shaB}}, ""},
		{"several refs are all read, blank lines skipped", "refs/heads/a " + shaA + " refs/heads/a " + zero + "\n\n(delete) " + zero + " refs/heads/b " + shaB + "\r\n",
			[]RefUpdate{{"refs/heads/a", shaA, "refs/heads/a", zero}, {"(delete)", zero, "refs/heads/b", shaB}}, ""},
		{"sha-256 object names are accepted", "HEAD " + strings.Repeat("a", 64) + " refs/heads/x " + strings.Repeat("0", 64),
			[]RefUpdate{{"HEAD", strings.Repeat("a", 64), "refs/heads/x", strings.Repeat("0", 64)}}, ""},
		{"no input is no refs", "", nil, ""},
		{"three fields are an error", "refs/heads/main " + shaA + " refs/heads/main\n", nil, "line 1"},
		{"an abbreviated sha is an error", "refs/heads/main 1234 refs/heads/main " + shaB + "\n", nil, "line 1"},
		{"upper-case hex is an error", "refs/heads/main " + strings.ToUpper("abcdef") + shaA[6:] + " refs/heads/main " + shaB, nil, "line 1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseRefLines(strings.NewReader(tc.in))
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestPushRange(t *testing.T) {
	cases := []struct {
		name       string
		u          RefUpdate
		haveRemote bool
		base       []string
		want       []string
	}{
		{"an update whose remote commit is here is remote..local", RefUpdate{"refs/heads/m", shaA, "refs/heads/m", shaB}, true, []string{shaC}, []string{shaA, "--not", shaB}},
		{"an update whose remote commit is unknown here is checked as a new ref", RefUpdate{"refs/heads/m", shaA, "refs/heads/m", shaB}, false, []string{shaC}, []string{shaA, "--not", shaC}},
		{"a new ref is what the trusted tips do not have", RefUpdate{"refs/heads/n", shaA, "refs/heads/n", zero}, false, []string{shaB, shaC}, []string{shaA, "--not", shaB, shaC}},
		{"a new ref with no trusted tip publishes its whole history", RefUpdate{"refs/heads/n", shaA, "refs/heads/n", zero}, false, nil, []string{shaA}},
		{"a deletion publishes no commit", RefUpdate{"(delete)", zero, "refs/heads/n", shaB}, true, nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, PushRange(tc.u, tc.haveRemote, tc.base))
		})
	}
	assert.True(t, RefUpdate{RemoteRef: "refs/tags/v1"}.Tag())
	assert.False(t, RefUpdate{LocalRef: "refs/heads/tags/x", RemoteRef: "refs/heads/tags/x"}.Tag())
}

func TestParseNameStatusZ(t *testing.T) {
	got, err := parseNameStatusZ([]byte("M\x00a b\x00D\x00old\x00A\x00new\x00R100\x00from\x00to\x00T\x00link\x00"))
	require.NoError(t, err)
	assert.Equal(t, []Change{{'M', "a b"}, {'D', "old"}, {'A', "new"}, {'D', "from"}, {'A', "to"}, {'T', "link"}}, got)

	_, err = parseNameStatusZ([]byte("M\x00"))
	require.ErrorContains(t, err, "without a path")
	_, err = parseNameStatusZ([]byte("\x00\x00"))
	require.Error(t, err)
}

func FuzzParseRefLines(f *testing.F) {
	f.Add("refs/heads/main " + shaA + " refs/heads/main " + shaB + "\n")
	f.Add("(delete) " + zero + " refs/heads/b " + shaB + "\n\n")
	f.Add("a b c d e\n")
	f.Fuzz(func(t *testing.T, in string) {
		ups, err := ParseRefLines(strings.NewReader(in))
		if err != nil {
			return
		}
		for _, u := range ups {
			require.True(t, isHex(u.LocalSHA) && isHex(u.RemoteSHA))
			require.NotEmpty(t, u.LocalRef)
			require.NotEmpty(t, u.RemoteRef)
			require.NotContains(t, u.LocalRef+u.RemoteRef, " ")
		}
	})
}

func FuzzParseNameStatusZ(f *testing.F) {
	f.Add([]byte("M\x00a\x00D\x00b\x00"))
	f.Add([]byte("R090\x00x\x00y\x00"))
	f.Add([]byte("M"))
	f.Fuzz(func(t *testing.T, data []byte) {
		changes, err := parseNameStatusZ(data)
		if err != nil {
			return
		}
		for _, c := range changes {
			require.NotEmpty(t, c.Path)
			require.NotContains(t, c.Path, "\x00")
		}
	})
}

func TestSessionAbsIsFilepathJoin(t *testing.T) {
	for _, root := range []string{"/repo", "/"} {
		s := &session{repo: gitrun.Repo{Top: root}}
		rel := []string{"a.go", "d/e/f.txt", "./x", "a//b", "a/../b", "a/.", "..", "trailing/", "/lead", "ü/ß.txt", "a\\b"}
		got := s.abs(rel)
		for i, p := range rel {
			assert.Equal(t, filepath.Join(root, filepath.FromSlash(p)), got[i], "%q under %q", p, root)
		}
	}
}

func TestJoinGitPathsIsFilepathJoin(t *testing.T) {
	rel := []string{"a.go", "d/e/f.txt", "./x", "a//b", "a/../b", "ü/ß.txt", "trailing/", "z", "a/.", "..", "/lead", ".x/..y/z.", "a/b/c/d"}
	var batch []Change
	for _, p := range rel {
		batch = append(batch, Change{Status: 'A', Path: p})
	}
	for _, root := range []string{"/repo", "/"} {
		got, dirs := joinGitPaths(root, batch, []string{"kept"})
		require.Len(t, dirs, len(rel)+1)
		assert.Equal(t, "kept", dirs[0])
		for i, p := range rel {
			assert.Equal(t, filepath.Join(root, filepath.FromSlash(p)), got[i], "%q under %q", p, root)
			assert.Equal(t, filepath.Dir(got[i]), dirs[i+1], "folder of %q under %q", p, root)
		}
	}
}
