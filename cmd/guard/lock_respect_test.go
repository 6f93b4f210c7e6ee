package main

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// RESPECT refuses exactly where guard check refuses: a scoped lock that covers all of
// its directory for check (no .guard.toml mapping, no folder: the fail-closed
// fallback) overlaps every scope for guard lock too.
func TestLockRespectAgreesWithCheckOnScopeFallbacks(t *testing.T) {
	tests := []struct {
		name    string
		folders []string
		config  string
		held    string // alice's scope
		claim   string // bob's scope
		probe   string // a path in the new lock's area, relative to the directory
		code    int
	}{
		{"a held scope without mapping or folder refuses any other scope", nil, "", "nope", "docs", "docs/x", 1},
		{"it refuses even a scope whose folder exists", []string{"docs"}, "", "nope", "docs", "docs/x", 1},
		{"a new scope without mapping or folder is refused by a held folder scope", []string{"docs"}, "", "docs", "nope", "docs/x", 1},
		{"two scopes with their own folders do not overlap", []string{"docs", "web"}, "", "web", "docs", "docs/x", 0},
		{"two mapped scopes do not overlap", nil, "[scopes]\nweb = [\"frontend/**\"]\ndocs = [\"manual/**\"]\n", "web", "docs", "manual/x", 0},
		{"a mapping that names every path covers the whole directory", []string{"docs"}, "[scopes]\nall = [\"**\"]\n", "all", "docs", "docs/x", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tc.folders {
				require.NoError(t, os.Mkdir(filepath.Join(dir, f), 0o755))
			}
			if tc.config != "" {
				require.NoError(t, os.WriteFile(filepath.Join(dir, ".guard.toml"), []byte(tc.config), 0o644))
			}
			_, errOut, code := runGuard(t, dir, lockEnv("alice"), "lock", "--scope", tc.held)
			require.Equal(t, 0, code, errOut)
			held := filepath.Join(dir, "LOCK."+tc.held+".txt")
			// What check says about bob editing in the area of the new lock, lock says
			// about bob claiming it.
			_, checkErr, checkCode := runGuard(t, dir, lockEnv("bob"), "check", filepath.Join(dir, tc.probe))
			assert.Equal(t, tc.code, checkCode, checkErr)
			_, errOut, code = runGuard(t, dir, lockEnv("bob"), "lock", "--scope", tc.claim)
			assert.Equal(t, tc.code, code, errOut)
			if tc.code == 1 {
				assert.Contains(t, errOut, held)
				assert.NoFileExists(t, filepath.Join(dir, "LOCK."+tc.claim+".txt"))
			}
		})
	}
}

func TestLockAgainAppliesTheNewOptions(t *testing.T) {
	dir := t.TempDir()
	_, errOut, code := runGuard(t, dir, lockEnv("alice"), "lock", "--purpose", "first")
	require.Equal(t, 0, code, errOut)
	p := filepath.Join(dir, "LOCK.txt")
	before := readFile(t, p)
	fence := fieldOf(before, "fence")
	_, errOut, code = runGuard(t, dir, lockEnv("alice"), "lock", "--purpose", "second", "--mode", "soft",
		"--operations", "commit,push", "--expires", "2h", "--release-condition", "ci green")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, errOut, "renewed own lock "+p+" and updated expires_after, release_condition, operations, mode, purpose")
	after := readFile(t, p)
	assert.Equal(t, fence, fieldOf(after, "fence"))
	assert.Equal(t, "second", fieldOf(after, "purpose"))
	assert.Equal(t, "soft", fieldOf(after, "mode"))
	assert.Equal(t, "commit, push", fieldOf(after, "operations"))
	assert.Equal(t, "2h", fieldOf(after, "expires_after"))
	assert.Equal(t, "ci green", fieldOf(after, "release_condition"))

	// Left out, an option keeps its value: a plain re-run does not make the lock hard.
	_, errOut, code = runGuard(t, dir, lockEnv("alice"), "lock")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "soft", fieldOf(readFile(t, p), "mode"))
}

func TestLockExpiresIsWrittenNormalisedOrRefused(t *testing.T) {
	dir := t.TempDir()
	_, errOut, code := runGuard(t, dir, lockEnv("alice"), "lock", "--expires", " 5 H ")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "5h", fieldOf(readFile(t, filepath.Join(dir, "LOCK.txt")), "expires_after"))
	assert.Contains(t, readFile(t, filepath.Join(dir, "LOCK.txt")), "\nexpires_after: 5h\n")

	_, errOut, code = runGuard(t, dir, lockEnv("alice"), "lock", "--scope", "web", "--expires", "5 hours")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `"5 hours"`)
	assert.Contains(t, errOut, "24h")
	assert.NoFileExists(t, filepath.Join(dir, "LOCK.web.txt"))

	_, errOut, code = runGuard(t, dir, lockEnv("alice"), "renew", "--expires", " 3 D ")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, readFile(t, filepath.Join(dir, "LOCK.txt")), "\nexpires_after: 3d\n")
}

func TestLockCommandsFlagHelp(t *testing.T) {
	out, _, code := runGuard(t, t.TempDir(), nil, "lock", "--help")
	require.Equal(t, 0, code)
	q := lineWith(out, "--quarantine")
	assert.Equal(t, 1, strings.Count(q, "(default"), q)
	assert.Contains(t, q, "(default 300)")
	assert.Contains(t, lineWith(out, "--condition"), "--release-condition")
	for _, cmd := range []string{"unlock", "renew"} {
		out, _, code := runGuard(t, t.TempDir(), nil, cmd, "--help")
		require.Equal(t, 0, code)
		c := lineWith(out, "--condition")
		assert.NotEmpty(t, c, cmd)
		assert.NotContains(t, c, "release-condition", cmd)
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(b)
}

// fieldOf returns the value of the first "key: value" line of body.
func fieldOf(body, key string) string {
	for _, line := range strings.Split(body, "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func lineWith(text, sub string) string {
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, sub+" ") {
			return line
		}
	}
	return ""
}

// Two owners claiming LOCK.txt and LOCK.web.txt of one directory at once, as real
// guard processes: exactly one wins each round, and only its file exists.
func TestLockRaceOfOverlappingNamesHasOneWinner(t *testing.T) {
	base := t.TempDir()
	for r := 0; r < 20; r++ {
		dir := filepath.Join(base, strconv.Itoa(r))
		require.NoError(t, os.Mkdir(dir, 0o755))
		codes := make([]int, 2)
		var wg sync.WaitGroup
		for i, args := range [][]string{{"lock", "--no-contest"}, {"lock", "--no-contest", "--scope", "web"}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, _, codes[i] = runGuard(t, dir, lockEnv([]string{"alice", "bob"}[i]), args...)
			}()
		}
		wg.Wait()
		sort.Ints(codes)
		require.Equal(t, []int{0, 1}, codes, "round %d", r)
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		require.Len(t, entries, 1, "round %d: %v", r, entries)
	}
}
