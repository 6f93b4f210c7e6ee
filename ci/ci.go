package ci

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/gitrun"
)

// CI output formats.
const (
	FormatText   = "text"
	FormatJSON   = "json"
	FormatGitHub = "github"
)

// Options are the inputs of `guard ci`.
type Options struct {
	Env *guard.Env
	// Base and Head name the range; empty Base is taken from the CI's environment
	// (GITHUB_BASE_REF, GITHUB_EVENT_BEFORE) or origin/HEAD, empty Head is HEAD.
	Base, Head string
	// Ops are checked on every changed path in addition to push.
	Ops []string
	// Format is text (default), json or github.
	Format string
}

// Range is the range a CI run checks: the commits reachable from Head and not
// from Base (Base "" means all of Head's history).
type Range struct {
	Base, Head string // commit ids
	// Source says where the base came from, for the report.
	Source string
	// Notes are things the user should know about how the range was chosen.
	Notes []string
}

// Marker is a publication marker found committed.
type Marker struct {
	Path string `json:"path"`
	// Where is "tree" (in head's tree) or "range" (added or changed by a commit of the
	// range, even if a later one removed it).
	Where string `json:"where"`
}

// Report is `guard ci --format json`.
type Report struct {
	Base       string   `json:"base"`
	Head       string   `json:"head"`
	BaseSource string   `json:"base_source"`
	Ops        []string `json:"ops"`
	// Paths are relative to the repository (Root); AbsolutePaths are the same paths
	// absolute, the form of every other path in guard's JSON.
	Paths         []string `json:"paths"`
	Root          string   `json:"root"`
	AbsolutePaths []string `json:"absolute_paths"`
	Allowed       bool     `json:"allowed"`
	// OK is the verdict key every command's JSON shares (here: Allowed).
	OK      bool                 `json:"ok"`
	Checks  []guard.DecisionJSON `json:"checks"`
	Markers []Marker             `json:"markers"`
	Notes   []string             `json:"notes"`
}

// zeroSHA matches git's all-zeros object name (any length: SHA-1 or SHA-256).
func zeroSHA(s string) bool { return s != "" && strings.Trim(s, "0") == "" }

// Run runs the CI job gate: every path changed in the range is checked as a push
// would be (operation push, plus opts.Ops), and publication markers must not be
// committed anywhere. Exit 0 allowed, 1 refused, 2 when the range cannot be
// established (a shallow clone, a missing base) or another error.
func Run(ctx context.Context, opts Options) error {
	env := opts.Env
	format := opts.Format
	if format == "" {
		format = FormatText
	}
	if format != FormatText && format != FormatJSON && format != FormatGitHub {
		return guard.Fail(guard.BadInput, "ci: unknown --format %q (text, json or github)", format)
	}
	ops := []string{guard.OpPush}
	for _, op := range opts.Ops {
		for _, o := range strings.Split(op, ",") {
			if o = strings.TrimSpace(o); o != "" && !slices.Contains(ops, o) {
				if err := guard.CheckOpName(o); err != nil {
					return guard.Fail(guard.BadInput, "ci: --op: %w", err)
				}
				ops = append(ops, o)
			}
		}
	}
	g := gitrun.New(env.Dir, env.Env)
	repo, err := gitrun.OpenRepo(ctx, g)
	if err != nil {
		return guard.Fail(guard.BadInput, "ci: %w", err)
	}
	if repo.Top == "" {
		return guard.Fail(guard.BadInput, "ci: %s has no working tree: guard ci checks a checked-out repository", env.Dir)
	}
	g.Dir = repo.Top
	rng, err := ResolveRange(ctx, g, env, opts.Base, opts.Head)
	if err != nil {
		if format == FormatGitHub {
			// Shown on the run's page, not only in the log.
			fmt.Fprintf(env.Stdout, "::error::%s\n", escapeData("guard "+err.Error()))
		}
		return err
	}
	changed, err := gitrun.ChangedPaths(ctx, g, rng.Base, rng.Head)
	if err != nil {
		return guard.Fail(guard.BadInput, "ci: listing the paths changed in %s: %w", rangeText(rng), err)
	}
	markers, err := committedMarkers(ctx, g, rng)
	if err != nil {
		return guard.Fail(guard.BadInput, "ci: %w", err)
	}
	gone, err := goneLocks(ctx, g, rng, changed)
	if err != nil {
		return guard.Fail(guard.BadInput, "ci: %w", err)
	}

	subject, err := guard.ResolveSubject(env, repo.Top, guard.Identity{})
	if err != nil {
		return guard.Fail(guard.BadInput, "ci: %w", err)
	}
	policy := subject.Policy(env)
	abs := make([]string, 0, len(changed))
	for _, p := range changed {
		abs = append(abs, filepath.Join(repo.Top, filepath.FromSlash(p)))
	}
	// A tag build is a release: pushing a tag is a release-tag operation at the
	// repository root, whether or not it brings new commits (as in pre-push).
	tag := isTagBuild(env)
	if tag && !slices.Contains(ops, guard.OpReleaseTag) {
		ops = append(ops, guard.OpReleaseTag)
	}
	report := Report{
		Base: rng.Base, Head: rng.Head, BaseSource: rng.Source, Ops: ops,
		Paths: append([]string{}, changed...), Allowed: true,
		Checks: []guard.DecisionJSON{}, Markers: markers, Notes: append([]string{}, rng.Notes...),
	}
	// One commit check per operation (the report lists each), and one for the
	// committed markers (reported apart, as markers).
	var decisions []*guard.Decision
	if len(abs) > 0 || tag {
		for _, op := range ops {
			cc := policy.CommitCheck(guard.Commit{Gate: guard.GateCI, Ops: []string{op}, Root: repo.Top, Whole: tag})
			if err := cc.Check(abs); err != nil {
				return guard.Fail(guard.BadInput, "ci: %w", err)
			}
			if err := cc.Before(rng.Base, gone, abs); err != nil {
				return guard.Fail(guard.BadInput, "ci: %w", err)
			}
			dec := cc.Decision()
			decisions = append(decisions, dec)
			report.Checks = append(report.Checks, dec.ToJSON())
		}
	}
	mc := policy.CommitCheck(guard.Commit{Gate: guard.GateCI, Root: repo.Top})
	for _, m := range markers {
		mc.Name(m.Path, filepath.Join(repo.Top, filepath.FromSlash(m.Path)), guard.MarkerPlace(m.Where), guard.Changed)
	}
	markerDec := mc.Decision()
	verdict := guard.JudgeCommit(env, guard.GateCI, append(slices.Clone(decisions), markerDec), nil, nil)
	report.Allowed = verdict.Pass()
	report.OK = report.Allowed
	report.Root = repo.Top
	report.AbsolutePaths = []string{}
	for _, p := range report.Paths {
		report.AbsolutePaths = append(report.AbsolutePaths, filepath.Join(repo.Top, filepath.FromSlash(p)))
	}

	switch format {
	case FormatJSON:
		if err := guard.WriteJSON(env.Stdout, "ci", report); err != nil {
			return err
		}
	case FormatGitHub:
		writeAnnotations(env, repo.Top, report, decisions)
	default:
		writeCIText(env, report, rng)
	}
	for _, n := range rng.Notes {
		fmt.Fprintf(env.Stderr, "guard: ci: %s\n", n)
	}
	for _, d := range decisions {
		d.Explain(env.Stderr)
	}
	for _, b := range markerDec.Blocking {
		fmt.Fprintf(env.Stderr, "guard: ci: %s\n", b.Reason)
	}
	if format == FormatGitHub {
		if path := env.Env("GITHUB_STEP_SUMMARY"); path != "" {
			if err := appendSummary(path, report, repo.Top, decisions); err != nil {
				fmt.Fprintf(env.Stderr, "guard: warning: cannot write the job summary: %v\n", err)
			}
		}
	}
	if !report.Allowed {
		for _, d := range decisions {
			guard.RecordDecision(env, "ci", subject.Identity.Owner, d)
		}
		for _, b := range markerDec.Blocking {
			guard.RecordGate(env, guard.EventRefused, "ci", subject.Identity.Owner, repo.Top, b.Reason)
		}
		return verdict.Failure()
	}
	return nil
}

// goneLocks are the lock files that the range's base holds and its head no longer
// does, among the changed paths: they bind the range as the server's gate makes them
// bind its push (guard.CommitCheck.Before). A range without a base has none.
func goneLocks(ctx context.Context, g gitrun.Git, r Range, changed []string) ([]gitrun.TreeFile, error) {
	if r.Base == "" {
		return nil, nil
	}
	var names []string
	for _, p := range changed {
		if guard.MayBindOnceGone(p) {
			names = append(names, p)
		}
	}
	return gitrun.GoneFiles(ctx, g, []string{r.Base}, r.Head, names, guard.TreeLockBound)
}

// isTagBuild reports whether the CI job runs for a pushed tag (GitHub Actions:
// GITHUB_REF_TYPE=tag or GITHUB_REF=refs/tags/...).
func isTagBuild(env *guard.Env) bool {
	return env.Env("GITHUB_REF_TYPE") == "tag" || strings.HasPrefix(env.Env("GITHUB_REF"), "refs/tags/")
}

func rangeText(r Range) string {
	if r.Base == "" {
		return "all of " + gitrun.Short(r.Head)
	}
	return gitrun.Short(r.Base) + ".." + gitrun.Short(r.Head)
}

// markerMessage is guard.CommittedMarker's refusal for a marker found in the range.
func markerMessage(m Marker) string {
	reason, _ := guard.CommittedMarker(m.Path, guard.MarkerPlace(m.Where), false)
	return reason
}

// shallowError explains that a shallow clone lacks the history the gate needs.
func shallowError(what string) error {
	return guard.Fail(guard.BadInput,
		"ci: %s is not in this clone's history because the clone is shallow (fetched with a limited depth): "+
			"fetch the full history: in GitHub Actions set `fetch-depth: 0` on actions/checkout "+
			"(with: fetch-depth: 0); elsewhere run `git fetch --unshallow origin`", what)
}

// ResolveRange establishes the range: Head defaults to HEAD; Base is the flag, else
// the merge base with origin/$GITHUB_BASE_REF (pull requests), else
// GITHUB_EVENT_BEFORE (pushes; all zeros for a new branch, compared with the default
// branch), else the merge base with origin/HEAD. A shallow clone that lacks the base
// is an error that says how to fetch the history.
func ResolveRange(ctx context.Context, g gitrun.Git, env *guard.Env, base, head string) (Range, error) {
	if head == "" {
		head = "HEAD"
	}
	headSHA, err := commitOf(ctx, g, head)
	if err != nil {
		return Range{}, guard.Fail(guard.BadInput, "ci: head %s is not a commit in this repository", head)
	}
	shallow := isShallow(ctx, g)
	r := Range{Head: headSHA}

	// fromRef makes ref the base through its merge base with head.
	fromRef := func(ref, source string) (Range, error) {
		sha, err := commitOf(ctx, g, ref)
		ref = strings.TrimPrefix(strings.TrimPrefix(ref, "refs/remotes/"), "refs/heads/")
		if err != nil {
			if shallow {
				return Range{}, shallowError("the base " + ref)
			}
			return Range{}, guard.Fail(guard.BadInput, "ci: the base %s does not exist in this clone: fetch it (`git fetch origin`) or pass --base REF", ref)
		}
		mb, err := g.Line(ctx, "merge-base", sha, headSHA)
		if err != nil || mb == "" {
			if shallow {
				return Range{}, shallowError("the merge base of " + ref + " and " + head)
			}
			// Unrelated histories: everything head has that ref lacks is new.
			r.Base, r.Source = sha, source
			r.Notes = append(r.Notes, fmt.Sprintf("%s and %s share no history; checking every commit of %s that %s lacks", ref, head, head, ref))
			return r, nil
		}
		r.Base, r.Source = mb, source
		return r, nil
	}

	if base != "" {
		return fromRef(base, "--base "+base)
	}
	if b := strings.TrimSpace(env.Env("GITHUB_BASE_REF")); b != "" {
		if _, err := commitOf(ctx, g, "refs/remotes/origin/"+b); err != nil {
			// No remote-tracking branch (a clone without origin, a local run): a local
			// branch of that name is the next best base.
			if _, lerr := commitOf(ctx, g, "refs/heads/"+b); lerr == nil {
				rr, err := fromRef("refs/heads/"+b, "merge base with "+b+" (GITHUB_BASE_REF; no origin/"+b+")")
				if err == nil {
					rr.Notes = append(rr.Notes, "origin/"+b+" does not exist in this clone: using the local branch "+b)
				}
				return rr, err
			}
		}
		return fromRef("refs/remotes/origin/"+b, "merge base with origin/"+b+" (GITHUB_BASE_REF)")
	}
	if before := eventBefore(env); before != "" {
		if zeroSHA(before) {
			rr, err := defaultBranchRange(ctx, g, env, fromRef, shallow)
			if err == nil {
				rr.Source = "new branch: " + rr.Source
			}
			return rr, err
		}
		if sha, err := commitOf(ctx, g, before); err == nil {
			r.Base, r.Source = sha, "GITHUB_EVENT_BEFORE "+gitrun.Short(before)
			if _, err := g.Run(ctx, "merge-base", "--is-ancestor", sha, headSHA); err != nil {
				r.Notes = append(r.Notes, fmt.Sprintf("the previous tip %s is not an ancestor of %s (a force push): checking the commits of %s that it lacks", gitrun.Short(before), gitrun.Short(headSHA), gitrun.Short(headSHA)))
			}
			return r, nil
		}
		if shallow {
			return Range{}, shallowError("the previous tip " + gitrun.Short(before) + " (GITHUB_EVENT_BEFORE)")
		}
		// A force push leaves the old tip unreachable, so a fresh clone lacks it.
		rr, err := defaultBranchRange(ctx, g, env, fromRef, shallow)
		if err != nil {
			return Range{}, err
		}
		rr.Notes = append(rr.Notes, fmt.Sprintf("the previous tip %s (GITHUB_EVENT_BEFORE) is not in this clone (a force push?): checking against %s instead", gitrun.Short(before), rr.Source))
		return rr, nil
	}
	return defaultBranchRange(ctx, g, env, fromRef, shallow)
}

// defaultBranchRange uses the merge base with the remote's default branch:
// origin/HEAD, else the event's repository.default_branch, else origin/main or
// origin/master.
func defaultBranchRange(ctx context.Context, g gitrun.Git, env *guard.Env, fromRef func(string, string) (Range, error), shallow bool) (Range, error) {
	candidates := []string{"refs/remotes/origin/HEAD"}
	if b := eventDefaultBranch(env); b != "" {
		candidates = append(candidates, "refs/remotes/origin/"+b)
	}
	candidates = append(candidates, "refs/remotes/origin/main", "refs/remotes/origin/master")
	for _, c := range candidates {
		if _, err := commitOf(ctx, g, c); err == nil {
			return fromRef(c, "merge base with "+strings.TrimPrefix(c, "refs/remotes/"))
		}
	}
	if shallow {
		return Range{}, shallowError("the default branch (origin/HEAD)")
	}
	return Range{}, guard.Fail(guard.BadInput, "ci: no base for the range: this clone has no origin/HEAD (nor origin/main or origin/master); pass --base REF or run `git remote set-head origin --auto`")
}

// commitOf resolves rev to a commit id.
func commitOf(ctx context.Context, g gitrun.Git, rev string) (string, error) {
	return g.Line(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
}

func isShallow(ctx context.Context, g gitrun.Git) bool {
	out, err := g.Line(ctx, "rev-parse", "--is-shallow-repository")
	return err == nil && out == "true"
}

// githubEvent is the part of GitHub Actions' event payload (GITHUB_EVENT_PATH) the
// gate reads.
type githubEvent struct {
	Before     string `json:"before"`
	Repository struct {
		DefaultBranch string `json:"default_branch"`
	} `json:"repository"`
}

func readEvent(env *guard.Env) githubEvent {
	var ev githubEvent
	if p := env.Env("GITHUB_EVENT_PATH"); p != "" {
		if data, err := os.ReadFile(p); err == nil {
			_ = json.Unmarshal(data, &ev) // a payload guard cannot read just adds nothing
		}
	}
	return ev
}

// eventBefore is the previous tip of a pushed branch: GITHUB_EVENT_BEFORE, else the
// push event payload's "before".
func eventBefore(env *guard.Env) string {
	if b := strings.TrimSpace(env.Env("GITHUB_EVENT_BEFORE")); b != "" {
		return b
	}
	if env.Env("GITHUB_EVENT_NAME") == "push" {
		return strings.TrimSpace(readEvent(env).Before)
	}
	return ""
}

func eventDefaultBranch(env *guard.Env) string {
	return strings.TrimSpace(readEvent(env).Repository.DefaultBranch)
}

// committedMarkers finds PRIVATE.txt and PUBLIC.txt in head's tree and among the
// paths the range's commits added or changed.
func committedMarkers(ctx context.Context, g gitrun.Git, r Range) ([]Marker, error) {
	wait, err := gitrun.StartTreeNames(ctx, g, r.Head, guard.IsMarkerNameBytes)
	if err != nil {
		return nil, err
	}
	tree, err := wait()
	if err != nil {
		return nil, err
	}
	revs := []string{r.Head}
	if r.Base != "" {
		revs = append(revs, "--not", r.Base)
	}
	inTree := map[string]bool{}
	for _, rel := range tree {
		inTree[rel] = true
	}
	inRange, err := gitrun.RangeNames(ctx, g, revs, guard.IsMarkerName, inTree)
	if err != nil {
		return nil, err
	}
	out := []Marker{}
	for _, rel := range tree {
		out = append(out, Marker{Path: rel, Where: string(guard.MarkerInTree)})
	}
	for _, rel := range inRange {
		out = append(out, Marker{Path: rel, Where: string(guard.MarkerInRange)})
	}
	return out, nil
}
