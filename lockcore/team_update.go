package lockcore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/guardlocks/guard/internal/atomicfile"
)

// TeamAction is one kind of change to a team lock.
type TeamAction int

// The changes guard team makes.
const (
	// TeamCheckin adds (or replaces) the agent's presence line.
	TeamCheckin TeamAction = iota
	// TeamCheckout removes the agent's presence line and all its claims, promotes
	// waiters, and deletes the lock file when the presence log is then empty.
	TeamCheckout
	// TeamClaim claims one bundle of file or tool resources.
	TeamClaim
	// TeamRelease releases the named resources from all of the agent's bundles.
	TeamRelease
	// TeamPostMessage appends a message to the messages section.
	TeamPostMessage
)

// TeamOp is one change to a team lock, made by Agent.
type TeamOp struct {
	Action TeamAction
	Agent  string
	// Section is SectionFileClaims or SectionToolClaims for claims and releases.
	Section TeamSection
	// Resources are the file paths (relative to the lock's directory) or tool ids of
	// a claim or release.
	Resources []string
	// Queue makes a blocked claim wait in the queue instead of failing.
	Queue bool
	// LoopID (default loop-01), Role and Task describe a check-in.
	LoopID, Role, Task string
	// Text is a message's text.
	Text string
}

// TeamResult says what an update did.
type TeamResult struct {
	Path string
	// Changed is set when the file was rewritten (or deleted).
	Changed bool
	// Deleted is set when a checkout left the presence log empty and the file was
	// removed.
	Deleted bool
	// Waiting is set when a queued claim was recorded as WAITING.
	Waiting bool
	// Promoted lists the agents whose waiting bundles became active.
	Promoted []string
	// Message describes the outcome for people.
	Message string
}

// TeamConflictError is a claim that overlaps another agent's claim (or an older
// waiter) and was not queued, or the agent's own overlapping claim. Nothing was
// written.
type TeamConflictError struct {
	Path   string
	Holder Bundle
	Detail string
}

// Error names the team lock and the conflicting claim.
func (e *TeamConflictError) Error() string { return fmt.Sprintf("%s: conflict: %s", e.Path, e.Detail) }

// ErrTeamLockMissing is returned when the team lock to update does not exist.
var ErrTeamLockMissing = errors.New("team lock does not exist")

// ErrTeamGuardTimeout is returned when the guard file stayed locked by another
// process for the whole wait.
var ErrTeamGuardTimeout = errors.New("timed out waiting for the team lock's guard file")

// TeamUpdateOptions tune UpdateTeamLock; the zero value uses the defaults.
type TeamUpdateOptions struct {
	// GuardTimeout bounds the wait for the guard file (default 5 s), retried every
	// 25 ms.
	GuardTimeout time.Duration
}

// TeamTimeFormat is how presence and message times are written: local time in
// seconds with its offset.
const TeamTimeFormat = "2006-01-02T15:04:05-07:00"

// UpdateTeamLock applies op to the team lock at path while holding the OS lock of its
// sibling guard file `<path>.guard`, so that concurrent agents of one host lose no
// entry. The file is read, validated (or migrated, when it has no section markers),
// changed and written back atomically; when the change fails (a conflict, a format
// error, invalid input) or changes nothing, the file stays byte-identical. now stamps
// presence and message lines (in its zone).
func UpdateTeamLock(path string, now time.Time, op TeamOp, opts TeamUpdateOptions) (TeamResult, error) {
	res := TeamResult{Path: path}
	abs, err := filepath.Abs(path)
	if err != nil {
		return res, fmt.Errorf("%s: %w", path, err)
	}
	res.Path = abs
	if !IsTeamLockName(filepath.Base(abs)) {
		return res, inputErr("%s: not a team lock name (LOCK.team[.<scope>].<host>.txt)", abs)
	}
	if err := op.validate(filepath.Dir(abs)); err != nil {
		return res, err
	}
	if _, err := osLstatRegular(abs); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return res, fmt.Errorf("%s: %w (create it with guard lock --team HOST)", abs, ErrTeamLockMissing)
		}
		return res, err
	}
	release, err := acquireTeamGuard(abs, opts.GuardTimeout)
	if err != nil {
		return res, err
	}
	defer release()

	// Read again under the guard: a checkout may have deleted the file meanwhile.
	st, err := osLstatRegular(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return res, fmt.Errorf("%s: %w", abs, ErrTeamLockMissing)
		}
		return res, err
	}
	data, err := readPrefix(abs, MaxLockFileSize+1)
	if err != nil {
		return res, err
	}
	if len(data) > MaxLockFileSize {
		return res, &TeamFormatError{Path: abs, Detail: fmt.Sprintf("larger than %d bytes", MaxLockFileSize)}
	}
	t, err := ParseTeamLock(abs, data, true)
	if err != nil {
		return res, err
	}
	migrated := t.Migrated
	if migrated {
		if t, err = t.migrate(); err != nil {
			return res, err
		}
	}
	changed, err := t.apply(op, now, &res)
	if err != nil {
		return res, err
	}
	// Only a checkout that removed something deletes: an agent that was never checked
	// in must not remove a team lock it has no part in.
	if op.Action == TeamCheckout && changed && len(t.Presence) == 0 {
		if err := os.Remove(abs); err != nil {
			return res, err
		}
		_ = atomicfile.SyncDir(filepath.Dir(abs))
		res.Changed, res.Deleted = true, true
		res.Message += "; presence log empty, team lock removed"
		return res, nil
	}
	if !changed && !migrated {
		return res, nil
	}
	out := t.render()
	if out == string(data) {
		return res, nil
	}
	if err := atomicfile.Write(abs, []byte(out), st.Mode().Perm()); err != nil {
		return res, err
	}
	res.Changed = true
	return res, nil
}

// validate checks the caller's input before anything is opened.
func (op *TeamOp) validate(dir string) error {
	if err := ValidateAgent(op.Agent); err != nil {
		return err
	}
	var err error
	switch op.Action {
	case TeamCheckin:
		if op.LoopID == "" {
			op.LoopID = "loop-01"
		}
		if op.LoopID, err = validateText("loop id", op.LoopID, 128, "|[]"); err != nil {
			return err
		}
		if op.Role, err = validateText("role", op.Role, MaxTeamRole, "|"); err != nil {
			return err
		}
		if op.Task, err = validateText("task", op.Task, MaxTeamTask, "|"); err != nil {
			return err
		}
	case TeamCheckout:
	case TeamClaim, TeamRelease:
		if op.Section != SectionFileClaims && op.Section != SectionToolClaims {
			return inputErr("claims go to file_claims or tool_claims, not %s", op.Section)
		}
		if op.Action == TeamRelease && op.Queue {
			return inputErr("--queue applies to claims, not releases")
		}
		if op.Resources, err = normalizeResources(op.Section, dir, op.Resources); err != nil {
			return err
		}
	case TeamPostMessage:
		if op.Text, err = validateText("message", op.Text, MaxTeamMessage, ""); err != nil {
			return err
		}
	default:
		return inputErr("unknown team action %d", op.Action)
	}
	return nil
}

// apply changes the parsed lock in memory, recording the sections to re-render in
// t.pending/t.dirty.
func (t *TeamLock) apply(op TeamOp, now time.Time, res *TeamResult) (bool, error) {
	switch op.Action {
	case TeamCheckin:
		e := PresenceEntry{LoopID: op.LoopID, Agent: op.Agent, Role: op.Role, Task: op.Task, Start: now.Format(TeamTimeFormat)}
		t.dropPresence(op.Agent, formatPresence(e))
		t.Presence = append(t.Presence, e)
		res.Message = fmt.Sprintf("%s checked in", op.Agent)
		return true, nil
	case TeamCheckout:
		changed := t.dropPresence(op.Agent, "")
		for _, sec := range []TeamSection{SectionFileClaims, SectionToolClaims} {
			if t.releaseAll(sec, op.Agent, res) {
				changed = true
			}
		}
		res.Message = fmt.Sprintf("%s checked out", op.Agent)
		if !changed {
			res.Message = fmt.Sprintf("%s was not checked in and held no claims", op.Agent)
		}
		return changed, nil
	case TeamClaim:
		return t.claim(op, res)
	case TeamRelease:
		return t.release(op, res), nil
	case TeamPostMessage:
		line := fmt.Sprintf("[%s] [%s]: %s", now.Format(TeamTimeFormat), op.Agent, op.Text)
		t.Messages = append(t.Messages, TeamMessage{Time: now.Format(TeamTimeFormat), Agent: op.Agent, Text: op.Text, Raw: line})
		t.editBody(SectionMessages, nil, line)
		res.Message = "message added"
		return true, nil
	}
	return false, inputErr("unknown team action %d", op.Action)
}

func sameAgent(a, b string) bool { return casefold(a) == casefold(b) }

func (t *TeamLock) setPending(s TeamSection, lines []string) {
	if t.pending[s] == nil {
		t.pending[s] = []string{}
	}
	t.pending[s] = append(t.pending[s][:0], lines...)
	t.dirty[s] = true
}

// dropPresence removes the agent's presence lines (keeping every other line as
// written) and, when add is not empty, appends add at the end of the section before
// its trailing blank lines. It reports whether a line was removed.
func (t *TeamLock) dropPresence(agent, add string) bool {
	drop := map[int]bool{}
	kept := t.Presence[:0]
	for _, p := range t.Presence {
		if sameAgent(p.Agent, agent) {
			drop[p.line] = true
			continue
		}
		kept = append(kept, p)
	}
	t.Presence = kept
	if len(drop) > 0 || add != "" {
		t.editBody(SectionPresence, drop, add)
	}
	return len(drop) > 0
}

// editBody rewrites a section's body line by line: lines whose index is in drop go,
// add (when not empty) goes at the end, before the trailing blank lines.
func (t *TeamLock) editBody(s TeamSection, drop map[int]bool, add string) {
	var body []string
	for i := t.body[s][0]; i < t.body[s][1]; i++ {
		if !drop[i] {
			body = append(body, t.lines[i])
		}
	}
	if add != "" {
		at := len(body)
		for at > 0 && strings.TrimSpace(body[at-1]) == "" {
			at--
		}
		body = slices.Insert(body, at, add)
	}
	t.pending[s], t.dirty[s], t.whole[s] = body, true, true
}

func (t *TeamLock) bundles(sec TeamSection) *[]Bundle {
	if sec == SectionToolClaims {
		return &t.ToolClaims
	}
	return &t.FileClaims
}

// markBundles re-renders a claims section, sorted by order.
func (t *TeamLock) markBundles(sec TeamSection) {
	bs := *t.bundles(sec)
	sort.SliceStable(bs, func(i, j int) bool { return bs[i].Order < bs[j].Order })
	lines := make([]string, len(bs))
	for i, b := range bs {
		lines[i] = formatBundle(b)
	}
	t.setPending(sec, lines)
}

func (t *TeamLock) claim(op TeamOp, res *TeamResult) (bool, error) {
	bs := t.bundles(op.Section)
	for _, b := range *bs {
		if !sameAgent(b.Agent, op.Agent) {
			continue
		}
		if sameResources(b.Resources, op.Resources) {
			res.Message = fmt.Sprintf("bundle already registered (order=%06d, %s)", b.Order, b.State)
			res.Waiting = !b.Active()
			return t.migrateLegacy(op.Section), nil
		}
		if resourcesOverlap(op.Section, b.Resources, op.Resources) {
			return false, &TeamConflictError{Path: t.Path, Holder: b, Detail: fmt.Sprintf(
				"%s already holds an overlapping claim (order=%06d: %s); release it first",
				b.Agent, b.Order, strings.Join(b.Resources, ", "))}
		}
	}
	var blockers []Bundle
	maxOrder := 0
	for _, b := range *bs {
		maxOrder = max(maxOrder, b.Order)
		if sameAgent(b.Agent, op.Agent) || !resourcesOverlap(op.Section, b.Resources, op.Resources) {
			continue
		}
		blockers = append(blockers, b)
	}
	active := StateEditing
	if op.Section == SectionToolClaims {
		active = StateUsing
	}
	nb := Bundle{Agent: op.Agent, State: active, Order: maxOrder + 1, Resources: op.Resources}
	if len(blockers) > 0 {
		sort.Slice(blockers, func(i, j int) bool { return blockers[i].Order < blockers[j].Order })
		first := blockers[0]
		if !op.Queue {
			return false, &TeamConflictError{Path: t.Path, Holder: first, Detail: fmt.Sprintf(
				"older bundle of %s has priority (order=%06d %s: %s); wait, use --queue, or choose another slice",
				first.Agent, first.Order, first.State, strings.Join(first.Resources, ", "))}
		}
		nb.State = StateWaiting
		res.Waiting = true
		res.Message = fmt.Sprintf("queued as order=%06d behind %s", nb.Order, first.Agent)
	} else {
		res.Message = fmt.Sprintf("claimed as order=%06d", nb.Order)
	}
	*bs = append(*bs, nb)
	t.markBundles(op.Section)
	return true, nil
}

// migrateLegacy re-renders a claims section that still has legacy lines, so that a
// write brings them into the explicit form.
func (t *TeamLock) migrateLegacy(sec TeamSection) bool {
	for _, b := range *t.bundles(sec) {
		if b.legacy {
			t.markBundles(sec)
			return true
		}
	}
	return false
}

func sameResources(a, b []string) bool {
	return slices.EqualFunc(a, b, func(x, y string) bool { return casefold(x) == casefold(y) })
}

func (t *TeamLock) release(op TeamOp, res *TeamResult) bool {
	bs := t.bundles(op.Section)
	removed := false
	var kept []Bundle
	for _, b := range *bs {
		if sameAgent(b.Agent, op.Agent) {
			n := len(b.Resources)
			b.Resources = slices.DeleteFunc(slices.Clone(b.Resources), func(r string) bool {
				return slices.ContainsFunc(op.Resources, func(x string) bool { return casefold(x) == casefold(r) })
			})
			if len(b.Resources) != n {
				removed = true
			}
			if len(b.Resources) == 0 {
				continue
			}
		}
		kept = append(kept, b)
	}
	if !removed {
		res.Message = "no matching claims of " + op.Agent
		return false
	}
	*bs = kept
	res.Message = "released"
	t.promote(op.Section, res)
	t.markBundles(op.Section)
	return true
}

func (t *TeamLock) releaseAll(sec TeamSection, agent string, res *TeamResult) bool {
	bs := t.bundles(sec)
	n := len(*bs)
	*bs = slices.DeleteFunc(*bs, func(b Bundle) bool { return sameAgent(b.Agent, agent) })
	if len(*bs) == n {
		return false
	}
	t.promote(sec, res)
	t.markBundles(sec)
	return true
}

// promote activates waiters in order: a waiter becomes active only when it overlaps
// no active bundle (those just promoted included) and no older waiter still waiting.
func (t *TeamLock) promote(sec TeamSection, res *TeamResult) {
	bs := *t.bundles(sec)
	sort.SliceStable(bs, func(i, j int) bool { return bs[i].Order < bs[j].Order })
	active := StateEditing
	if sec == SectionToolClaims {
		active = StateUsing
	}
	for i := range bs {
		if bs[i].Active() {
			continue
		}
		blocked := false
		for j := range bs {
			if j == i {
				continue
			}
			if (bs[j].Active() || (bs[j].Order < bs[i].Order)) && resourcesOverlap(sec, bs[i].Resources, bs[j].Resources) {
				blocked = true
				break
			}
		}
		if !blocked {
			bs[i].State = active
			res.Promoted = append(res.Promoted, bs[i].Agent)
		}
	}
	if len(res.Promoted) > 0 {
		res.Message += "; FIFO promotion: " + strings.Join(res.Promoted, ", ")
	}
}
