// Package audit compares where a project is published with what its markers allow:
// `guard audit github` (every repository of some owners against the PRIVATE.txt and
// PUBLIC.txt of its local clones) and the pre-push visibility check (the remote a push
// goes to against the markers of the tree pushed). guard.JudgeVisibility decides what
// a visibility means; the github package asks GitHub.
package audit

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/guardlocks/guard/github"
	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/gitrun"
	"github.com/guardlocks/guard/internal/progress"
)

// Audit verdicts: how a hosted repository's visibility compares with the markers of
// its local clone (guard.JudgeVisibility decides; see there), and not-cloned, the
// audit's own.
const (
	VerdictViolation         = string(guard.VerdictViolation)
	VerdictConflict          = string(guard.VerdictConflict)
	VerdictApprovedNotPublic = string(guard.VerdictApprovedNotPublic)
	VerdictPublicUnapproved  = string(guard.VerdictPublicUnapproved)
	VerdictOK                = string(guard.VerdictOK)
	// VerdictNotCloned: no local clone under the roots, so no markers to compare.
	VerdictNotCloned = "not-cloned"
)

// Options are the inputs of `guard audit github`.
type Options struct {
	Env *guard.Env
	// Owners whose repositories are listed; empty: [github] owners of .guard.toml.
	Owners []string
	// Roots to search for local clones; empty: the roots file, else the current
	// directory.
	Roots     []string
	RootsFile string
	// APIURL overrides GITHUB_API_URL and .guard.toml.
	APIURL string
	Strict bool
	JSON   bool
	// HTTPClient is the client go-github uses (nil: a default one).
	HTTPClient *http.Client
	// RateLimitWait bounds the total time spent waiting out rate limits
	// (cmd sets github.DefaultRateLimitWait; zero waits for nothing).
	RateLimitWait time.Duration
	// Sleep waits for a duration (nil: a real timer). Tests pass a recorder.
	Sleep func(context.Context, time.Duration) error
}

// Entry is one line of the audit: a repository, one of its local clones (or
// none), the markers found there and the verdict.
type Entry struct {
	FullName   string   `json:"full_name"`
	Visibility string   `json:"visibility"`
	LocalPath  *string  `json:"local_path"`
	Markers    []string `json:"markers"`
	Verdict    string   `json:"verdict"`
}

// Report is the JSON document `guard audit github --json` prints.
type Report struct {
	// OK is the verdict key every command's JSON shares: true when no repository
	// fails the audit and every owner was listed (a bypass still exits 0 with ok
	// false: the verdict stands, only the exit code yields).
	OK           bool    `json:"ok"`
	Repositories []Entry `json:"repositories"`
	// Incomplete is true when some owner could not be listed: the report is then not
	// a clean bill of health whatever it contains.
	Incomplete bool `json:"incomplete"`
}

// Run runs `guard audit github`: exit 0 when every repository agrees with its
// markers, 1 on a violation or a conflict (or, with Strict, a public repository
// nobody approved), 2 when the audit could not be completed.
func Run(ctx context.Context, opts Options) error {
	env := opts.Env
	subject, err := guard.ResolveSubject(env, "", guard.Identity{})
	if err != nil {
		return guard.Fail(guard.BadInput, "audit github: %w", err)
	}
	cfg := subject.Config
	given := opts.Owners
	if len(given) == 0 {
		given = cfg.GitHub.Owners
	}
	var owners []string
	for _, o := range given {
		if o = strings.TrimSpace(o); o != "" && !slices.ContainsFunc(owners, func(x string) bool { return strings.EqualFold(x, o) }) {
			owners = append(owners, o)
		}
	}
	if len(owners) == 0 {
		return guard.Fail(guard.BadInput, "audit github: no owner to audit: pass --owner NAME or set [github] owners in %s", guard.ConfigFileName)
	}
	apiURL := github.APIURL(env, opts.APIURL, cfg)
	token := github.Token(env)
	roots, skip, err := auditRoots(env, opts, cfg)
	if err != nil {
		return guard.Fail(guard.BadInput, "audit github: %w", err)
	}
	sleep := opts.Sleep
	if sleep == nil {
		sleep = github.SleepContext
	}
	// Progress goes to stderr, so it is shown when stderr is a terminal, whatever
	// stdout is (a table piped on, JSON): the line is erased before anything else is
	// written there.
	line := progress.New(env.Stderr, env.StderrTTY, env.Clock.Now, 0)
	waiter := &github.RateWaiter{Budget: opts.RateLimitWait, Now: env.Clock.Now, Sleep: sleep,
		Notify: func(d, budget time.Duration) {
			line.Clear()
			fmt.Fprintf(env.Stderr, "guard: GitHub rate limit reached: waiting %s before retrying (at most %s in all)\n", d.Round(time.Second), budget.Round(time.Second))
		}}
	client, err := github.NewClient(apiURL, token, opts.HTTPClient, waiter)
	if err != nil {
		return guard.Fail(guard.BadInput, "audit github: %w", err)
	}
	lister := &github.Lister{Client: client, Token: token != ""}
	if line != nil {
		lister.Progress = func(owner string, page, pages, n int) {
			// One page is one request: the line only says something when there are more.
			if pages == 1 && page == 1 {
				return
			}
			of := ""
			if pages > 0 {
				of = "/" + strconv.Itoa(pages)
			}
			line.Force("listing repositories of %s: page %d%s (%d repositories)", owner, page, of, n)
		}
	}

	var repos []github.Repo
	var failures []error
	for _, owner := range owners {
		rs, err := lister.List(ctx, owner)
		if err != nil {
			failures = append(failures, err)
			continue
		}
		repos = append(repos, rs...)
	}
	line.Clear()

	// The walk for clones is shown after a short delay: a few roots end before it.
	walk := progress.New(env.Stderr, env.StderrTTY, env.Clock.Now, progress.Delay)
	var walked func(dirs, clones int)
	if walk != nil {
		walked = func(dirs, clones int) {
			walk.Show("looking for clones of %d repositories: %d folders walked, %d clones checked", len(repos), dirs, clones)
		}
	}
	clones := findClones(ctx, roots, skip, env.Env, func(msg string) {
		walk.Clear()
		fmt.Fprintf(env.Stderr, "guard: warning: %s\n", msg)
	}, walked)
	walk.Clear()
	report := Report{Repositories: judgeRepos(repos, clones, apiURL, github.LoadSSHHostAliases(env.Home())), Incomplete: len(failures) > 0}
	report.OK = !report.Incomplete
	for _, e := range report.Repositories {
		if guard.VisibilityVerdict(e.Verdict).FailsAudit(opts.Strict) {
			report.OK = false
		}
	}

	if opts.JSON {
		if err := guard.WriteJSON(env.Stdout, "audit github", report); err != nil {
			return err
		}
	} else {
		writeAuditTable(env.Stdout, report)
	}
	return auditOutcome(env, report, failures, len(owners), opts.Strict)
}

// auditOutcome explains the findings on stderr and picks the exit code. A failing
// verdict yields to GUARD_BYPASS (guard.Bypass, gate audit) only once it is recorded in
// the bypass log of each clone concerned; an incomplete audit never does (there is
// no repository to record it in, and nothing was judged).
func auditOutcome(env *guard.Env, report Report, failures []error, owners int, strict bool) error {
	w := env.Stderr
	var failed []Entry
	for _, e := range report.Repositories {
		where := "(not cloned)"
		if e.LocalPath != nil {
			where = *e.LocalPath
		}
		if guard.VisibilityVerdict(e.Verdict).FailsAudit(strict) {
			failed = append(failed, e)
		}
		switch e.Verdict {
		case VerdictViolation:
			both := ""
			if len(e.Markers) == 2 {
				both = " (PUBLIC.txt is there too, but with both markers PRIVATE.txt wins)"
			}
			fmt.Fprintf(w, "guard: violation: %s is %s but %s is under PRIVATE.txt%s: make it private again (gh repo edit %s --visibility private --accept-visibility-change-consequences) or, if publication was intended, replace PRIVATE.txt with PUBLIC.txt\n",
				e.FullName, e.Visibility, where, both, e.FullName)
		case VerdictConflict:
			fmt.Fprintf(w, "guard: conflict: %s has both PRIVATE.txt and PUBLIC.txt; guard treats it as private (fail closed): remove the one that is wrong\n", where)
		case VerdictPublicUnapproved:
			fmt.Fprintf(w, "guard: warning: %s is public and %s has no PUBLIC.txt approving it\n", e.FullName, where)
		}
	}
	for _, f := range failures {
		fmt.Fprintf(w, "guard: audit incomplete: %v\n", f)
	}
	switch {
	case len(failures) > 0:
		return guard.Fail(guard.BadInput, "audit github: incomplete: %d of %d owner(s) could not be listed; the result above is partial", len(failures), owners)
	case len(failed) == 0:
		return nil
	}
	reason, ok := guard.Bypass(env, guard.GateAudit)
	if !ok {
		return guard.Explained(guard.Refused)
	}
	logs, err := recordAuditBypass(env, failed, reason)
	if err != nil {
		fmt.Fprintf(w, "guard: audit: GUARD_BYPASS is set but the bypass cannot be recorded: %v\nguard: audit: failing (fail closed): a bypass needs its audit trail\n", err)
		return guard.Explained(guard.Refused)
	}
	fmt.Fprintf(w, "guard: audit: GUARD_BYPASS set (%q): not failing for %d verdict(s); recorded in %s\n", reason, len(failed), strings.Join(logs, ", "))
	return nil
}

// recordAuditBypass appends one bypass-log entry per failing verdict to the log of
// the clone's repository, and returns the logs written.
func recordAuditBypass(env *guard.Env, failed []Entry, reason string) ([]string, error) {
	var logs []string
	for _, e := range failed {
		if e.LocalPath == nil {
			return nil, fmt.Errorf("%s has no local clone to keep the record in", e.FullName)
		}
		common := gitrun.CommonDir(*e.LocalPath)
		if common == "" {
			return nil, fmt.Errorf("%s: no git directory to keep the log in", *e.LocalPath)
		}
		subject, _ := guard.ResolveSubject(env, *e.LocalPath, guard.Identity{})
		p := gitrun.Repo{CommonDir: common}.BypassLogPath()
		err := guard.AppendBypass(p, guard.BypassEntry{
			Time: guard.BypassTime(env.Clock.Now()), Owner: subject.Identity.Owner, Host: subject.Identity.Host, User: env.User,
			Reason: reason, Hook: guard.GateAudit, Ops: []string{guard.OpVisibilityPublic}, Paths: []string{*e.LocalPath}, Refused: true,
			Blocking: []guard.BypassBlock{{Path: *e.LocalPath, Reason: fmt.Sprintf("%s is %s, markers %v: %s", e.FullName, e.Visibility, e.Markers, e.Verdict)}},
		})
		if err != nil {
			return nil, err
		}
		guard.RecordGate(env, guard.EventBypassed, guard.GateAudit, subject.Identity.Owner, *e.LocalPath,
			fmt.Sprintf("GUARD_BYPASS %q let the %s verdict of %s through", reason, e.Verdict, e.FullName))
		if !slices.Contains(logs, p) {
			logs = append(logs, p)
		}
	}
	return logs, nil
}

// judgeRepos pairs repositories with their local clones and gives each pair a verdict.
// A repository with several clones gets one entry per clone. sshAliases maps ssh
// host aliases to real hosts (~/.ssh/config).
func judgeRepos(repos []github.Repo, clones []Clone, apiURL string, sshAliases map[string]string) []Entry {
	byKey := map[github.RepoKey][]string{}
	byName := map[string][]string{} // owner/name on any host
	for _, c := range clones {
		for _, k := range c.Keys {
			if real, ok := github.ResolveAlias(k, sshAliases); ok {
				byKey[real] = append(byKey[real], c.Path)
			}
			byKey[k] = append(byKey[k], c.Path)
			byName[k.Owner()+"/"+k.Name()] = append(byName[k.Owner()+"/"+k.Name()], c.Path)
		}
	}
	webHost := github.WebHost(apiURL)
	out := []Entry{}
	seen := map[string]bool{}
	for _, r := range repos {
		if seen[strings.ToLower(r.FullName)] {
			continue // the same repository listed under two owners' names
		}
		seen[strings.ToLower(r.FullName)] = true
		keys := r.Keys
		if webHost != "" {
			keys = append(keys, github.RepoKey(webHost+"/"+strings.ToLower(r.FullName)))
		}
		paths := map[string]bool{}
		for _, k := range keys {
			for _, p := range byKey[k] {
				paths[p] = true
			}
		}
		if len(r.Keys) == 0 {
			// The server gave no clone or web URL (GitHub always does; a minimal
			// server may not), so the host cannot be compared: owner/name decides.
			for _, p := range byName[strings.ToLower(r.FullName)] {
				paths[p] = true
			}
		}
		if len(paths) == 0 {
			out = append(out, Entry{FullName: r.FullName, Visibility: r.Visibility, Markers: []string{}, Verdict: VerdictNotCloned})
			continue
		}
		for p := range paths {
			markers := MarkersAt(p)
			out = append(out, Entry{FullName: r.FullName, Visibility: r.Visibility, LocalPath: &p, Markers: markers, Verdict: Verdict(r.Visibility, markers)})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if a, b := strings.ToLower(out[i].FullName), strings.ToLower(out[j].FullName); a != b {
			return a < b
		}
		return derefOr(out[i].LocalPath) < derefOr(out[j].LocalPath)
	})
	return out
}

func derefOr(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// Verdict compares a visibility with the markers present: guard.JudgeVisibility.
func Verdict(visibility string, markers []string) string {
	return string(guard.JudgeVisibility(visibility, slices.Contains(markers, guard.PrivateMarkerName), slices.Contains(markers, guard.PublicMarkerName)))
}

// MarkersAt returns the markers that govern the working tree at dir, in the order
// PRIVATE.txt, PUBLIC.txt: guard's marker lookup, so a marker in dir or any directory
// above it counts (CONTRACT.md section 5).
func MarkersAt(dir string) []string {
	ms := guard.FindMarkers(dir)
	out := []string{}
	if len(ms.Private) > 0 {
		out = append(out, guard.PrivateMarkerName)
	}
	if len(ms.Public) > 0 {
		out = append(out, guard.PublicMarkerName)
	}
	return out
}

// auditRoots resolves where to look for clones the way scan does (guard.ResolveRoots),
// with cfg the .guard.toml already read.
func auditRoots(env *guard.Env, opts Options, cfg *guard.Config) ([]CloneRoot, []string, error) {
	rc, roots, err := guard.ResolveRoots(env, guard.RootsInput{Roots: opts.Roots, RootsFile: opts.RootsFile}, cfg)
	if err != nil {
		return nil, nil, err
	}
	var out []CloneRoot
	for _, r := range roots {
		out = append(out, CloneRoot{Path: r.Path, MaxDepth: r.MaxDepth})
	}
	return out, rc.SkipDirs, nil
}

// writeAuditTable prints the report as an aligned table.
func writeAuditTable(w io.Writer, report Report) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "REPOSITORY\tVISIBILITY\tVERDICT\tMARKERS\tLOCAL PATH")
	for _, e := range report.Repositories {
		markers := strings.Join(e.Markers, ",")
		if markers == "" {
			markers = "-"
		}
		path := "-"
		if e.LocalPath != nil {
			path = *e.LocalPath
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.FullName, e.Visibility, e.Verdict, markers, path)
	}
	tw.Flush()
	if report.Incomplete {
		fmt.Fprintln(w, "INCOMPLETE: some owners could not be listed (see stderr)")
	}
}
