package lockcore

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// referenceFields parses a body the way lock-master's parse_lock_file does, written
// out independently of ParseFields: one key: value per line, '#' and blank lines
// skipped, split at the first ':', keys lower-cased, the last duplicate wins.
func referenceFields(body string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(body, "\n") {
		s := strings.TrimSpace(line)
		if s == "" || s[0] == '#' || !strings.Contains(s, ":") {
			continue
		}
		i := strings.Index(s, ":")
		out[strings.ToLower(strings.TrimSpace(s[:i]))] = strings.TrimSpace(s[i+1:])
	}
	return out
}

var referenceCreatedRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$`)

func TestGuardWrittenLocksReadByTheReferenceRules(t *testing.T) {
	specs := []Spec{
		{Kind: Exclusive, Owner: "a", Host: "h", Expires: "90m", Purpose: "p: with colon"},
		{Kind: Team, TeamHost: "LAPTOP", Scope: "s", Owner: "a", Host: "LAPTOP"},
		{Kind: User, Owner: "a", Host: "h"},
		{Kind: Condition, Owner: "a", Host: "h", ReleaseCondition: "done"},
	}
	order := []string{"owner", "created", "host", "fence", "removable_by", "expires_after", "release_condition", "operations", "not_before", "mode", "purpose", "scope"}
	for _, s := range specs {
		s.Dir = t.TempDir()
		res, err := Acquire(s, AcquireOptions{Now: t0})
		require.NoError(t, err)
		body := read(t, res.Path)
		f := referenceFields(body)
		assert.Equal(t, s.Owner, f["owner"])
		assert.Regexp(t, referenceCreatedRE, f["created"], "created has seconds and no offset")
		// The reference reads created by replacing T with a space.
		c, err := time.ParseInLocation("2006-01-02 15:04:05", strings.ReplaceAll(f["created"], "T", " "), time.UTC)
		require.NoError(t, err)
		assert.True(t, c.Equal(t0))
		assert.Equal(t, s.ScopeOrProject(), f["scope"])
		assert.Regexp(t, `^\d{1,19}$`, f["fence"])
		// Fields come in the reference's order.
		last := -1
		for _, line := range strings.Split(body, "\n") {
			k, _, ok := strings.Cut(line, ":")
			if !ok || strings.HasPrefix(line, "#") {
				continue
			}
			for i, o := range order {
				if o == k {
					assert.Greater(t, i, last, "%s out of order in %s", k, res.Path)
					last = i
				}
			}
		}
		// And guard's own reader agrees.
		l, err := ReadLock(res.Path, time.UTC)
		require.NoError(t, err)
		assert.Equal(t, s.Kind, l.Kind)
		assert.Equal(t, "header", l.CreatedSource)
	}
}

func TestReferenceTemplatesReadByGuard(t *testing.T) {
	tmpl, err := os.ReadFile("testdata/reference/LOCK_TEMPLATE.txt")
	require.NoError(t, err)
	dir := t.TempDir()
	body := strings.NewReplacer(
		"owner: [Name / Agent / Automation]", "owner: agent-7",
		"created: YYYY-MM-DDTHH:MM", "created: 2026-11-29T09:30",
		"host: [Maschinenname, z. B. LAPTOP | SERVER — oder leer lassen]", "host: SERVER",
		"expires_after: 24h", "expires_after: 2h",
		"purpose: [Warum ist der Bereich gesperrt? Was wird gerade gemacht?]", "purpose: refactor",
		"scope: [project | <scope>]", "scope: project",
	).Replace(string(tmpl))
	p := filepath.Join(dir, "LOCK.txt")
	require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	l, err := ReadLock(p, time.UTC)
	require.NoError(t, err)
	assert.Equal(t, "agent-7", l.Owner)
	assert.Equal(t, "SERVER", l.Host)
	assert.Equal(t, "header", l.CreatedSource)
	assert.Equal(t, time.Date(2026, 11, 29, 11, 30, 0, 0, time.UTC), l.Created.Add(2*time.Hour))
	_, hasFence := l.Fence()
	assert.False(t, hasFence, "a reference lock predates fencing")

	// guard renews it in place (the owner's own lock) without losing the comments, and
	// another owner is refused.
	s := Spec{Dir: dir, Kind: Exclusive, Owner: "other", Host: "h"}
	_, err = Acquire(s, AcquireOptions{Now: time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)})
	var ce *ConflictError
	require.ErrorAs(t, err, &ce)
	s.Owner = "agent-7"
	res, err := Acquire(s, AcquireOptions{Now: time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)})
	require.NoError(t, err)
	assert.Equal(t, Renewed, res.Action)
	after := read(t, p)
	assert.Contains(t, after, "created: 2026-11-29T10:00:00\n")
	assert.Equal(t, strings.Count(body, "\n"), strings.Count(after, "\n"))
	assert.Contains(t, after, "# LOCK-Datei")
}

func TestReferenceTeamTemplateReadByGuard(t *testing.T) {
	tmpl, err := os.ReadFile("testdata/reference/TEAM_LOCK_TEMPLATE.txt")
	require.NoError(t, err)
	body := strings.NewReplacer(
		"owner: [first agent or team lead]", "owner: lead",
		"created: YYYY-MM-DDTHH:MM", "created: 2026-11-29T09:30",
		"host: [hostname / system identifier, e.g. LAPTOP | WORKSTATION | SERVER-01]", "host: LAPTOP",
	).Replace(string(tmpl))
	dir := t.TempDir()
	p := filepath.Join(dir, "LOCK.team.LAPTOP.txt")
	require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	l, err := ReadLock(p, time.UTC)
	require.NoError(t, err)
	assert.Equal(t, Team, l.Kind)
	assert.Equal(t, "LAPTOP", l.Name.Host)
	assert.Equal(t, "lead", l.Owner)
	assert.Equal(t, "header", l.CreatedSource)
	// An agent of LAPTOP joins (that another host is refused is RESPECT's business:
	// guard's TestCheckClaim).
	res, err := Acquire(Spec{Dir: dir, Kind: Team, TeamHost: "LAPTOP", Owner: "agent2"}, AcquireOptions{Now: time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)})
	require.NoError(t, err)
	assert.Equal(t, Joined, res.Action)
}

func TestGuardWrittenTeamLockParsesAsATeamLock(t *testing.T) {
	dir := t.TempDir()
	res, err := Acquire(Spec{Dir: dir, Kind: Team, TeamHost: "LAPTOP", Scope: "s", Owner: "lead"}, AcquireOptions{Now: t0})
	require.NoError(t, err)
	tl, err := ReadTeamLock(res.Path)
	require.NoError(t, err)
	require.NotNil(t, tl)
	body := read(t, res.Path)
	assert.Contains(t, body, "host: LAPTOP\n")
	assert.Contains(t, body, "order=000001")
	// Renewing keeps the sections byte for byte.
	_, err = Renew(res.Path, "lead", "", t0.Add(time.Minute), time.UTC)
	require.NoError(t, err)
	after := read(t, res.Path)
	assert.Equal(t, body[strings.Index(body, "\n\n"):], after[strings.Index(after, "\n\n"):])
}
