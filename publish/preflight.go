package publish

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/guardlocks/guard/classify"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/guardlocks/guard/guard"
)

// PreflightOptions are the inputs of `guard preflight`.
type PreflightOptions struct {
	Env      *guard.Env
	Identity *guard.Identity // nil: resolved from the environment and .guard.toml
	// Op is the publication operation (default publish-release); Dir the project
	// (default the working directory).
	Op   string
	Dir  string
	JSON bool
}

// RepoState is what publishing tools check about the repository.
type RepoState struct {
	Root     string   `json:"root"`
	Branch   string   `json:"branch"` // "" when HEAD is detached
	Clean    bool     `json:"clean"`
	Changed  []string `json:"changed"`
	Upstream string   `json:"upstream"`
	// Unpushed is the number of commits on HEAD that the upstream lacks (-1 when
	// unknown).
	Unpushed int    `json:"unpushed"`
	Pushed   bool   `json:"pushed"`
	Error    string `json:"error,omitempty"`
}

// PackageJSON is what package.json says about publication.
type PackageJSON struct {
	Path string `json:"path"`
	// Private is package.json's "private" field (nil when absent).
	Private *bool  `json:"private"`
	Error   string `json:"error,omitempty"`
}

// PreflightReport is the readiness report.
type PreflightReport struct {
	Op    string `json:"op"`
	Dir   string `json:"dir"`
	Ready bool   `json:"ready"`
	// OK is the verdict key every command's JSON shares (here: Ready).
	OK          bool                  `json:"ok"`
	Publication guard.PublicationJSON `json:"publication"`
	Checks      []CheckResult         `json:"checks"`
	Repository  *RepoState            `json:"repository"`
	PackageJSON *PackageJSON          `json:"package_json"`
	// Problems refuse (with the publication's refusals); Warnings do not.
	Problems []string `json:"problems"`
	Warnings []string `json:"warnings"`
}

// RunPreflight is `guard preflight`: the markers, the locks and the PUBLIC.txt checks
// (run: they are meant to be cheap, and a report that only lists them would say
// "ready" for a publication the wrapper then refuses), the repository state, and
// package.json's "private" field against the markers. Exit 0 when ready, 1 when
// refused. Repository state (dirty tree, detached HEAD, unpushed commits) only warns:
// the publishing tools that care refuse on their own.
func RunPreflight(opts PreflightOptions) error {
	env := opts.Env
	op := opts.Op
	if op == "" {
		op = classify.OpPublishRelease
	}
	dir := env.Dir
	if opts.Dir != "" {
		dir = classify.Resolve(env.Dir, opts.Dir)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return guard.Fail(guard.BadInput, "preflight: %s is not a directory", dir)
	}
	if err := guard.CheckOpName(op); err != nil {
		return guard.Fail(guard.BadInput, "preflight: --op: %w", err)
	}
	subject, err := guard.ResolveSubject(env, dir, guard.Identity{})
	if err != nil {
		return guard.Fail(guard.BadInput, "preflight: %w", err)
	}
	cfg := subject.Config
	id := subject.Identity
	if opts.Identity != nil {
		id = *opts.Identity
	}
	d, err := guard.CheckPublication(guard.NewPolicy(env, id), dir, op, cfg)
	if err != nil {
		return guard.Fail(guard.BadInput, "preflight: %w", err)
	}
	r := &PreflightReport{Op: op, Dir: dir, Checks: []CheckResult{}, Problems: []string{}, Warnings: []string{}}
	if len(d.Refusals) == 0 {
		// Checks of a project the markers refuse would prove nothing.
		if checks, _ := runChecks(shell{environ: env.Environ, out: env.Stderr}, d.Markers.Public); checks != nil {
			r.Checks = checks
		}
	}
	for _, c := range r.Checks {
		if !c.OK {
			r.Problems = append(r.Problems, fmt.Sprintf("the check %q from %s failed (exit %d)", c.Command, c.Marker, c.ExitCode))
		}
	}
	r.Repository = repoState(dir, env.Environ)
	if r.Repository != nil {
		r.Warnings = append(r.Warnings, repoWarnings(r.Repository)...)
	}
	r.PackageJSON = readPackageJSON(dir)
	if r.PackageJSON != nil {
		p, w := packageContradictions(r.PackageJSON, d.Markers)
		r.Problems = append(r.Problems, p...)
		r.Warnings = append(r.Warnings, w...)
	}
	r.Ready = d.Allowed && len(r.Problems) == 0
	r.OK = r.Ready
	r.Publication = d.ToJSON()

	if opts.JSON {
		if err := guard.WriteJSON(env.Stdout, "preflight", r); err != nil {
			return err
		}
	} else {
		writePreflight(env, r, d)
		d.Explain(env.Stderr)
		for _, w := range r.Warnings {
			fmt.Fprintf(env.Stderr, "guard: warning: %s\n", w)
		}
		for _, p := range r.Problems {
			fmt.Fprintf(env.Stderr, "guard: refused %s of %s: %s\n", op, dir, p)
		}
	}
	if !r.Ready {
		return guard.Explained(guard.Refused)
	}
	return nil
}

func writePreflight(env *guard.Env, r *PreflightReport, d *guard.PublicationDecision) {
	w := env.Stdout
	fmt.Fprintf(w, "preflight %s of %s\n", r.Op, r.Dir)
	ms := d.Markers
	switch ms.State() {
	case "none":
		fmt.Fprintln(w, "  markers:      none (nothing approves publication)")
	default:
		fmt.Fprintf(w, "  markers:      %s\n", ms.State())
		for _, m := range ms.Private {
			fmt.Fprintf(w, "                PRIVATE.txt %s\n", m.Path)
		}
		for _, m := range ms.Public {
			fmt.Fprintf(w, "                PUBLIC.txt  %s\n", m.Path)
		}
	}
	if d.Locks.Allowed {
		fmt.Fprintln(w, "  locks:        none blocking")
	} else {
		fmt.Fprintf(w, "  locks:        %d blocking (see below)\n", len(d.Locks.Blocking))
	}
	if len(r.Checks) == 0 {
		fmt.Fprintln(w, "  checks:       none run")
	}
	for _, c := range r.Checks {
		status := "ok"
		if !c.OK {
			status = fmt.Sprintf("FAILED (exit %d)", c.ExitCode)
		}
		fmt.Fprintf(w, "  check:        %s  %s\n", status, c.Command)
	}
	if rs := r.Repository; rs != nil {
		branch := rs.Branch
		if branch == "" {
			branch = "detached HEAD"
		}
		fmt.Fprintf(w, "  repository:   %s (%s)\n", rs.Root, branch)
		if rs.Clean {
			fmt.Fprintln(w, "  working tree: clean")
		} else {
			fmt.Fprintf(w, "  working tree: %d change(s)\n", len(rs.Changed))
		}
		switch {
		case rs.Upstream == "":
			fmt.Fprintln(w, "  HEAD:         no upstream branch")
		case rs.Pushed:
			fmt.Fprintf(w, "  HEAD:         pushed to %s\n", rs.Upstream)
		default:
			fmt.Fprintf(w, "  HEAD:         %d commit(s) not pushed to %s\n", rs.Unpushed, rs.Upstream)
		}
	} else {
		fmt.Fprintln(w, "  repository:   none")
	}
	if pj := r.PackageJSON; pj != nil {
		switch {
		case pj.Error != "":
			fmt.Fprintf(w, "  package.json: unreadable (%s)\n", pj.Error)
		case pj.Private == nil:
			fmt.Fprintln(w, "  package.json: no \"private\" field")
		default:
			fmt.Fprintf(w, "  package.json: \"private\": %v\n", *pj.Private)
		}
	}
	if r.Ready {
		fmt.Fprintln(w, "verdict: ready")
	} else {
		fmt.Fprintln(w, "verdict: refused")
	}
}

// repoState asks git about the repository holding dir; nil outside a repository.
func repoState(dir string, environ []string) *RepoState {
	ctx := context.Background()
	g := gitIn(dir, environ)
	root, err := g.Line(ctx, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil
	}
	rs := &RepoState{Root: root, Unpushed: -1, Changed: []string{}}
	rs.Branch, _ = g.Line(ctx, "symbolic-ref", "--short", "-q", "HEAD")
	status, err := g.Run(ctx, "status", "--porcelain=v1", "--untracked-files=normal")
	if err != nil {
		rs.Error = err.Error()
	}
	for _, line := range strings.Split(string(status), "\n") {
		if len(line) < 4 {
			continue
		}
		name := line[3:]
		// The markers are never committed; they do not make a tree dirty.
		if b := filepath.Base(name); b == guard.PrivateMarkerName || b == guard.PublicMarkerName {
			continue
		}
		rs.Changed = append(rs.Changed, name)
	}
	rs.Clean = err == nil && len(rs.Changed) == 0
	if up, err := g.Line(ctx, "rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}"); err == nil {
		rs.Upstream = up
		if n, err := g.Line(ctx, "rev-list", "--count", "@{upstream}..HEAD"); err == nil {
			rs.Unpushed, _ = strconv.Atoi(n)
			rs.Pushed = rs.Unpushed == 0
		}
	}
	return rs
}

func repoWarnings(rs *RepoState) []string {
	var out []string
	if !rs.Clean {
		shown := rs.Changed
		if len(shown) > 5 {
			shown = append(shown[:5:5], "...")
		}
		out = append(out, fmt.Sprintf("the working tree of %s is not clean (%s): what is published may not match any commit", rs.Root, strings.Join(shown, ", ")))
	}
	if rs.Branch == "" {
		out = append(out, "HEAD is detached: no branch records what is published")
	}
	switch {
	case rs.Upstream == "":
		out = append(out, "the current branch has no upstream: HEAD may not be pushed")
	case !rs.Pushed:
		out = append(out, fmt.Sprintf("%d commit(s) of HEAD are not pushed to %s", rs.Unpushed, rs.Upstream))
	}
	return out
}

// readPackageJSON reads dir/package.json; nil when there is none.
func readPackageJSON(dir string) *PackageJSON {
	path := filepath.Join(dir, "package.json")
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	pj := &PackageJSON{Path: path}
	if err != nil {
		pj.Error = err.Error()
		return pj
	}
	var doc struct {
		Private json.RawMessage `json:"private"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		pj.Error = fmt.Sprintf("%s: %v", path, err)
		return pj
	}
	if len(doc.Private) > 0 {
		// npm treats any truthy value as private.
		v := string(doc.Private) != "false" && string(doc.Private) != "null" && string(doc.Private) != `""` && string(doc.Private) != "0"
		pj.Private = &v
	}
	return pj
}

// packageContradictions compares package.json's "private" with the markers.
func packageContradictions(pj *PackageJSON, ms *guard.Markers) (problems, warnings []string) {
	if pj.Error != "" {
		return nil, []string{"package.json could not be read: " + pj.Error}
	}
	private := pj.Private != nil && *pj.Private
	switch ms.State() {
	case "public":
		if private {
			problems = append(problems, fmt.Sprintf("%s says \"private\": true, which contradicts %s: decide which is right (npm refuses to publish a private package)", pj.Path, ms.Public[0].Path))
		}
	case "private", "both":
		if !private {
			warnings = append(warnings, fmt.Sprintf("%s lacks \"private\": true although %s forbids publication: add it so that npm refuses too, even without guard", pj.Path, ms.Private[0].Path))
		}
	}
	return problems, warnings
}
