package lockcore

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// claimLock parses a lock named name of owner, created at created, as a claim finds
// it at its name.
func claimLock(t *testing.T, name, owner string, created time.Time, extra string) *Lock {
	t.Helper()
	body := "owner: " + owner + "\ncreated: " + FormatCreated(created) + "\nhost: box1\nfence: 41\nexpires_after: 1h\n" + extra
	l, err := ParseLock(filepath.Join("/x", name), []byte(body), created, time.UTC)
	require.NoError(t, err)
	return l
}

// claimState is one thing a claim can find at the lock's name.
type claimState struct {
	name  string
	found func(t *testing.T) Found
}

func claimStates() []claimState {
	lock := func(name, owner string, created time.Time, extra string, edit func(*Found)) func(t *testing.T) Found {
		return func(t *testing.T) Found {
			f := Found{Entry: EntryLock, Path: "/x/" + name, Lock: claimLock(t, name, owner, created, extra)}
			if edit != nil {
				edit(&f)
			}
			return f
		}
	}
	live, old := t0.Add(-time.Minute), t0.Add(-2*time.Hour)
	freed := func(f *Found) { f.Freed = true }
	held := func(f *Found) { f.Lock.HeldIn = "etcd at http://e:2379" }
	return []claimState{
		{"nothing", func(*testing.T) Found { return Found{Path: "/x/LOCK.txt"} }},
		{"a symlink", func(*testing.T) Found {
			return Found{Entry: EntryNotRegular, Path: "/x/LOCK.txt", Type: fs.ModeSymlink}
		}},
		{"an unreadable file", func(*testing.T) Found {
			return Found{Entry: EntryUnreadable, Path: "/x/LOCK.txt", Err: &fs.PathError{Op: "open", Path: "/x/LOCK.txt", Err: fs.ErrPermission}}
		}},
		{"own live lock", lock("LOCK.txt", "alice", live, "", nil)},
		{"own expired lock", lock("LOCK.txt", "alice", old, "", nil)},
		{"own freed follower", lock("LOCK.txt", "alice", live, "backend: etcd\n", freed)},
		{"own lock held in the service", lock("LOCK.txt", "alice", old, "", held)},
		{"another's live lock", lock("LOCK.txt", "bob", live, "", nil)},
		{"another's expired lock", lock("LOCK.txt", "bob", old, "", nil)},
		{"another's freed follower", lock("LOCK.txt", "bob", live, "backend: etcd\n", freed)},
		{"another's lock held in the service", lock("LOCK.txt", "bob", old, "", held)},
		{"another's user lock, old", lock("LOCK.user.txt", "bob", old.Add(-100*24*time.Hour), "removable_by: user\n", nil)},
		{"own live team lock", lock("LOCK.team.box1.txt", "alice", live, "", nil)},
		{"another's live team lock", lock("LOCK.team.box1.txt", "bob", live, "", nil)},
		{"another's expired team lock", lock("LOCK.team.box1.txt", "bob", old, "", nil)},
		{"another's freed team follower", lock("LOCK.team.box1.txt", "bob", live, "backend: etcd\n", freed)},
		{"another's team lock held in the service", lock("LOCK.team.box1.txt", "bob", old, "", held)},
	}
}

// claimKinds are the request kinds: an exclusive or a team claim, with or without
// --force, with plain files or under a service.
type claimKind struct {
	name string
	ask  ClaimAsk
}

func claimKinds() []claimKind {
	var kinds []claimKind
	for _, where := range []string{"", "etcd at http://e:2379"} {
		for _, team := range []bool{false, true} {
			for _, force := range []bool{false, true} {
				n := "exclusive"
				if team {
					n = "team"
				}
				if force {
					n += " --force"
				}
				if where != "" {
					n += " under etcd"
				}
				kinds = append(kinds, claimKind{n, ClaimAsk{Owner: "alice", Team: team, Force: force, Now: t0, Where: where}})
			}
		}
	}
	return kinds
}

// want is one expected decision: an action (with its clean-up), or a refusal ("!"
// and what the refusal is).
type want struct {
	action Action
	clear  Clear
	refuse string // "conflict", "not regular", "unreadable"
}

var (
	wCreate   = want{action: Created}
	wRenew    = want{action: Renewed}
	wJoin     = want{action: Joined}
	wReplace  = want{action: Replaced, clear: ClearEntry}
	wRelease  = want{action: Replaced, clear: ClearHolder}
	wTakeOver = want{action: TookOver, clear: ClearEntry}
	wConflict = want{refuse: "conflict"}
)

// The expected decision of every state for the four claims: exclusive, exclusive
// --force, team, team --force. The service (ClaimAsk.Where) changes only the
// wording of a refusal, checked below.
var claimTable = map[string][4]want{
	"nothing":                            {wCreate, wCreate, wCreate, wCreate},
	"a symlink":                          {{refuse: "not regular"}, wReplace, {refuse: "not regular"}, wReplace},
	"an unreadable file":                 {{refuse: "unreadable"}, wReplace, {refuse: "unreadable"}, wReplace},
	"own live lock":                      {wRenew, wRenew, wRenew, wRenew},
	"own expired lock":                   {wTakeOver, wReplace, wTakeOver, wReplace},
	"own freed follower":                 {wTakeOver, wReplace, wTakeOver, wReplace},
	"own lock held in the service":       {wRenew, wRenew, wRenew, wRenew},
	"another's live lock":                {wConflict, wReplace, wConflict, wReplace},
	"another's expired lock":             {wTakeOver, wReplace, wTakeOver, wReplace},
	"another's freed follower":           {wTakeOver, wReplace, wTakeOver, wReplace},
	"another's lock held in the service": {wConflict, wRelease, wConflict, wRelease},
	// A user lock never expires, however old.
	"another's user lock, old": {wConflict, wReplace, wConflict, wReplace},
	"own live team lock":       {wRenew, wRenew, wRenew, wRenew},
	// This host's team lock is joined by a team claim; --force replaces it (the
	// reference's --force overwrites), with plain files and under a service alike.
	"another's live team lock":                {wConflict, wReplace, wJoin, wReplace},
	"another's expired team lock":             {wTakeOver, wReplace, wTakeOver, wReplace},
	"another's freed team follower":           {wTakeOver, wReplace, wTakeOver, wReplace},
	"another's team lock held in the service": {wConflict, wRelease, wJoin, wRelease},
}

func TestDecideClaimEveryStateForEveryKindOfClaim(t *testing.T) {
	states := claimStates()
	require.Len(t, claimTable, len(states), "every state has its row")
	for _, st := range states {
		row, ok := claimTable[st.name]
		require.True(t, ok, "no row for %q", st.name)
		for _, k := range claimKinds() {
			t.Run(st.name+"/"+k.name, func(t *testing.T) {
				found := st.found(t)
				i := 0
				if k.ask.Force {
					i++
				}
				if k.ask.Team {
					i += 2
				}
				w := row[i]
				d := DecideClaim(k.ask, found)
				if w.refuse == "" {
					require.NoError(t, d.Err)
					assert.Equal(t, w.action, d.Action)
					assert.Equal(t, w.clear, d.Clear)
					switch {
					case w.action == Created || w.action == Joined || found.Entry != EntryLock:
						assert.Nil(t, d.Previous, "nothing is renewed, taken over or replaced")
					default:
						assert.Same(t, found.Lock, d.Previous)
					}
					return
				}
				assert.Equal(t, Action(""), d.Action)
				assert.Equal(t, ClearNothing, d.Clear, "a refusal clears nothing")
				require.Error(t, d.Err)
				switch w.refuse {
				case "conflict":
					var ce *ConflictError
					require.ErrorAs(t, d.Err, &ce)
					assert.Same(t, found.Lock, ce.Lock)
					reason := "held by another owner (use --force to replace it)"
					switch {
					case found.Lock.HeldIn != "":
						reason = "held by another owner in " + found.Lock.HeldIn + " (use --force to replace it)"
					case k.ask.Where != "":
						reason = "held by another owner in its lock file (use --force to replace it)"
					}
					assert.Equal(t, reason, ce.Reason)
				case "not regular":
					assert.ErrorIs(t, d.Err, ErrNotRegular)
					assert.Contains(t, d.Err.Error(), "/x/LOCK.txt")
					assert.Contains(t, d.Err.Error(), "use --force")
				case "unreadable":
					assert.ErrorIs(t, d.Err, fs.ErrPermission)
				}
			})
		}
	}
}

func TestPreparedNormalisesValidatesAndGivesATeamLockItsTeamHost(t *testing.T) {
	s, err := Spec{Dir: "/x", Kind: Team, TeamHost: "box2", Owner: "a", Host: "box1", Expires: "90m"}.Prepared()
	require.NoError(t, err)
	assert.Equal(t, "box2", s.Host)
	assert.Equal(t, "LOCK.team.box2.txt", s.FileName())
	norm, _ := NormalizeDuration("90m")
	assert.Equal(t, norm, s.Expires)

	s, err = Spec{Dir: "/x", Kind: Exclusive, Owner: "a", Host: "box1"}.Prepared()
	require.NoError(t, err)
	assert.Equal(t, "box1", s.Host, "only a team lock takes its team host")

	_, err = Spec{Dir: "/x", Kind: Exclusive, Scope: "../evil", Owner: "a", Host: "h"}.Prepared()
	assert.ErrorIs(t, err, ErrInvalid)
}

func TestReadFoundTellsTheEntriesApart(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "LOCK.txt")

	f, err := ReadFound(p, time.UTC)
	require.NoError(t, err)
	assert.Equal(t, EntryNone, f.Entry)

	body := "owner: bob\ncreated: 2026-11-29T09:59:00\nhost: box1\nfence: 3\nexpires_after: 1h\n"
	require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	f, err = ReadFound(p, time.UTC)
	require.NoError(t, err)
	assert.Equal(t, EntryLock, f.Entry)
	assert.Equal(t, "bob", f.Lock.Owner)
	assert.Equal(t, body, string(f.Data))
	assert.False(t, f.Freed, "only a service knows that a lock was freed")

	require.NoError(t, os.Remove(p))
	require.NoError(t, os.Symlink(filepath.Join(dir, "elsewhere"), p))
	f, err = ReadFound(p, time.UTC)
	require.NoError(t, err)
	assert.Equal(t, EntryNotRegular, f.Entry)
	assert.Equal(t, fs.ModeSymlink, f.Type)

	require.NoError(t, os.Remove(p))
	require.NoError(t, os.Mkdir(p, 0o755))
	f, err = ReadFound(p, time.UTC)
	require.NoError(t, err)
	assert.Equal(t, EntryNotRegular, f.Entry)
	assert.Equal(t, fs.ModeDir, f.Type)
	d := DecideClaim(ClaimAsk{Owner: "alice", Now: t0}, f)
	assert.ErrorIs(t, d.Err, ErrNotRegular)
	assert.Equal(t, "lock "+p+": not a regular file (d---------); remove it or use --force", d.Err.Error())

	// A file of binary data is a lock of nobody's, held fail closed.
	require.NoError(t, os.Remove(p))
	require.NoError(t, os.WriteFile(p, []byte{0, 1, 2, 0xff}, 0o644))
	f, err = ReadFound(p, time.UTC)
	require.NoError(t, err)
	require.Equal(t, EntryLock, f.Entry)
	assert.True(t, f.Lock.Invalid())
	var ce *ConflictError
	assert.ErrorAs(t, DecideClaim(ClaimAsk{Owner: "alice", Now: t0}, f).Err, &ce)
}

// FuzzDecideClaim decides claims on arbitrary lock bodies (as ReadFound parses them):
// a decision is an action or a refusal, never both; Force is refused only by what
// is no lock; only the owner's live lock is renewed, only a team claim joins, and
// only a lock another owner holds live refuses.
func FuzzDecideClaim(f *testing.F) {
	f.Add([]byte("owner: bob\ncreated: 2026-11-29T09:59:00\nexpires_after: 1h\n"), "alice", false, false, false)
	f.Add([]byte("owner: alice\ncreated: 2026-11-29T09:59:00\n"), "alice", true, false, false)
	f.Add([]byte("owner: bob\ncreated: 2000-01-01T00:00:00\nexpires_after: 1h\nbackend: etcd\n"), "bob", true, true, true)
	f.Add([]byte{0, 0xff, '\n'}, "", false, false, true)
	f.Fuzz(func(t *testing.T, body []byte, owner string, team, force, freed bool) {
		name := "LOCK.txt"
		if team {
			name = "LOCK.team.box1.txt"
		}
		l, err := ParseLock(filepath.Join("/x", name), body, t0, time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		found := Found{Entry: EntryLock, Lock: l, Path: l.Path, Data: body, Freed: freed}
		ask := ClaimAsk{Owner: owner, Team: team, Force: force, Now: t0}
		d := DecideClaim(ask, found)
		if (d.Action == "") == (d.Err == nil) {
			t.Fatalf("decision %+v is neither an action nor a refusal, or both", d)
		}
		live := !freed && l.Active(t0)
		switch {
		case d.Err != nil:
			var ce *ConflictError
			if force || !errors.As(d.Err, &ce) || l.Owner == owner && live || !live || team {
				t.Fatalf("refused %+v with %v", ask, d.Err)
			}
		case d.Action == Renewed && !(l.Owner == owner && live):
			t.Fatalf("renewed a lock that is not the caller's live one: %+v", l)
		case d.Action == Joined && (!team || force || !live):
			t.Fatalf("joined with %+v", ask)
		case d.Action == TookOver && live:
			t.Fatal("took over a live lock")
		case d.Clear == ClearHolder:
			t.Fatal("a lock read from a file has no holder in a service")
		}
	})
}
