package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/gitrun"
	"github.com/guardlocks/guard/lockcore"
)

// ReleaseOptions are the inputs of `guard agent-release`.
type ReleaseOptions struct {
	Env *guard.Env
	// Dir is a directory in the repository whose leases go (default: the hook's cwd,
	// else the current directory).
	Dir string
	// Owner is whose leases: --owner, else GUARD_OWNER, else Session, else the
	// session id of the hook input on stdin (Hook).
	Owner   string
	Session string
	// Hook names the agent whose session-end hook input (JSON with session_id and
	// cwd) is on stdin.
	Hook string
	JSON bool
}

// ReleaseResult is what agent-release reports (--json).
type ReleaseResult struct {
	Owner      string             `json:"owner"`
	Released   []string           `json:"released"`
	TeamClaims []ReleasedTeamLock `json:"team_claims"`
	Errors     []string           `json:"errors"`
}

// ReleasedTeamLock is the file claims released in one team lock.
type ReleasedTeamLock struct {
	Lock      string   `json:"lock"`
	Resources []string `json:"resources"`
}

// RunRelease removes the identity's leases in the repository (its root and top-level
// folders, where claims put them) and releases its file claims in the team locks
// there and above. Exit 0 when everything found was released (also when there was
// nothing), 1 when something could not be released.
func RunRelease(ctx context.Context, opts ReleaseOptions) error {
	env := opts.Env
	owner, dir, session := opts.Owner, opts.Dir, opts.Session
	if opts.Hook != "" {
		sid, cwd, err := readSession(env.Stdin)
		if err != nil {
			return guard.Fail(guard.BadInput, "agent-release: %w", err)
		}
		if session == "" {
			session = sid
		}
		if dir == "" {
			dir = cwd
		}
	}
	if owner == "" {
		// The identity the agent hook judged the session as (guard.AgentIdentity).
		owner = guard.AgentOwner(env, session)
	}
	if owner == "" {
		return guard.Fail(guard.BadInput, "agent-release: whose leases? set GUARD_OWNER, or pass --owner or --session (or --hook AGENT with the hook input on stdin)")
	}
	if dir == "" {
		dir = env.Dir
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(env.Dir, dir)
	}
	dir = filepath.Clean(dir)
	root := gitrun.RepoTop(dir)
	if root == "" {
		root = dir
	}
	now := env.Clock.Now()
	res := ReleaseResult{Owner: owner, Released: []string{}, TeamClaims: []ReleasedTeamLock{}, Errors: []string{}}
	for _, l := range leaseCandidates(root, now) {
		if !isLeaseOf(l, owner) || !leaseOfSession(l, session) {
			continue
		}
		releaseOwn(ctx, env, &res, l.Path, owner, now)
	}
	// The claims the session made through guard mcp (its journal; another session of
	// the same owner keeps its own): those still its own.
	for _, p := range guard.AgentClaims(env, owner, session) {
		l, err := lockcore.ReadLock(p, now.Location())
		if err != nil || l.Owner != owner || slices.Contains(res.Released, p) {
			continue // released, taken over or expired and pruned since: not ours now
		}
		releaseOwn(ctx, env, &res, p, owner, now)
	}
	if len(res.Errors) == 0 {
		guard.ForgetAgentClaims(env, owner, session)
	}
	for _, path := range teamLockCandidates(root, dir) {
		released, err := releaseTeamClaims(path, owner, now)
		if err != nil {
			res.Errors = append(res.Errors, err.Error())
		}
		if len(released) > 0 {
			res.TeamClaims = append(res.TeamClaims, ReleasedTeamLock{Lock: path, Resources: released})
		}
	}
	if opts.JSON {
		if err := json.NewEncoder(env.Stdout).Encode(res); err != nil {
			return err
		}
	} else {
		for _, p := range res.Released {
			fmt.Fprintf(env.Stdout, "released %s\n", p)
		}
		for _, t := range res.TeamClaims {
			fmt.Fprintf(env.Stdout, "released %s in %s\n", strings.Join(t.Resources, ", "), t.Lock)
		}
		if len(res.Released) == 0 && len(res.TeamClaims) == 0 && len(res.Errors) == 0 {
			fmt.Fprintf(env.Stderr, "guard: %s holds no leases or team claims under %s\n", owner, root)
		}
	}
	if len(res.Errors) > 0 {
		for _, e := range res.Errors {
			fmt.Fprintf(env.Stderr, "guard: %s\n", e)
		}
		return guard.Explained(guard.Refused)
	}
	return nil
}

// leaseOfSession reports whether lease l is session's to release. A release that names
// no session releases every lease of the owner; one that names a session leaves those
// another session of the same owner took (agents sharing one GUARD_OWNER end their
// sessions apart), and takes those that name none.
func leaseOfSession(l *lockcore.Lock, session string) bool {
	if session == "" {
		return true
	}
	s, ok := leaseSession(l.Purpose)
	return !ok || s == "-" || s == session
}

// leaseSession is the session a lease's purpose names, as claimPath writes it
// ("LeasePurpose: AGENT session SID writes here; ...").
func leaseSession(purpose string) (string, bool) {
	rest, ok := strings.CutPrefix(purpose, LeasePurpose+": ")
	if !ok {
		return "", false
	}
	if _, rest, ok = strings.Cut(rest, " session "); !ok {
		return "", false
	}
	sid, _, ok := strings.Cut(rest, " writes here")
	return sid, ok
}

// releaseOwn releases owner's lock at path into res: a lock a backend holds goes
// there first (its file with it).
func releaseOwn(ctx context.Context, env *guard.Env, res *ReleaseResult, path, owner string, now time.Time) {
	if found, err := guard.ReleaseHeld(ctx, env, path, owner); found || err != nil {
		if err != nil {
			res.Errors = append(res.Errors, err.Error())
		} else {
			res.Released = append(res.Released, path)
		}
		return
	}
	if _, err := lockcore.Release(path, lockcore.ReleaseOptions{Owner: owner, Now: now}); err != nil {
		res.Errors = append(res.Errors, err.Error())
		return
	}
	res.Released = append(res.Released, path)
}

// readSession reads session_id and cwd from a hook input (any event).
func readSession(r io.Reader) (sid, cwd string, err error) {
	var in struct {
		SessionID string `json:"session_id"`
		Cwd       string `json:"cwd"`
	}
	data, err := io.ReadAll(io.LimitReader(r, maxInput))
	if err != nil {
		return "", "", err
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return "", "", fmt.Errorf("the hook input on stdin is not JSON with session_id and cwd: %v", err)
	}
	if in.Cwd != "" && !filepath.IsAbs(in.Cwd) {
		return "", "", fmt.Errorf("cwd %q is not an absolute path", in.Cwd)
	}
	return in.SessionID, in.Cwd, nil
}

// leaseCandidates are the locks in root and in its top-level folders.
func leaseCandidates(root string, now time.Time) []*lockcore.Lock {
	dirs := []string{root}
	if entries, err := os.ReadDir(root); err == nil {
		for _, e := range entries {
			if e.IsDir() && e.Name() != ".git" {
				dirs = append(dirs, filepath.Join(root, e.Name()))
			}
		}
	}
	var out []*lockcore.Lock
	for _, d := range dirs {
		locks, _ := lockcore.ReadDir(d, now.Location())
		out = append(out, locks...)
	}
	return out
}

// teamLockCandidates are the team lock files in dir and above it, and in root's
// top-level folders.
func teamLockCandidates(root, dir string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(d string) {
		entries, err := os.ReadDir(d)
		if err != nil {
			return
		}
		for _, e := range entries {
			p := filepath.Join(d, e.Name())
			if !e.IsDir() && lockcore.IsTeamLockName(e.Name()) && !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	for d := dir; ; {
		add(d)
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	if entries, err := os.ReadDir(root); err == nil {
		for _, e := range entries {
			if e.IsDir() && e.Name() != ".git" {
				add(filepath.Join(root, e.Name()))
			}
		}
	}
	sort.Strings(out)
	return out
}

// releaseTeamClaims releases every file claim of agent in the team lock at path.
func releaseTeamClaims(path, agent string, now time.Time) ([]string, error) {
	tl, err := lockcore.ReadTeamLock(path)
	if err != nil {
		return nil, nil // not a team lock guard can edit; nothing of ours to release
	}
	var resources []string
	for _, b := range tl.FileClaims {
		if strings.EqualFold(b.Agent, agent) {
			resources = append(resources, b.Resources...)
		}
	}
	if len(resources) == 0 {
		return nil, nil
	}
	op := lockcore.TeamOp{Action: lockcore.TeamRelease, Agent: agent, Section: lockcore.SectionFileClaims, Resources: resources}
	if _, err := lockcore.UpdateTeamLock(path, now, op, lockcore.TeamUpdateOptions{}); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return resources, nil
}
