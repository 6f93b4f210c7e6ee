package install

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

func writeDoctor(w io.Writer, rep DoctorReport) {
	for i, r := range rep.Repositories {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "repository %s\n", r.Path)
		fmt.Fprintf(w, "  hooks folder: %s\n", r.HooksDir)
		for _, h := range r.Hooks {
			line := fmt.Sprintf("  %s: %s", h.Name, h.State)
			switch {
			case h.State == "installed" && h.Fallback != "":
				line += fmt.Sprintf(" (recorded guard %s is gone; using %s from PATH)", h.Guard, h.Fallback)
			case h.State == "installed" && h.GuardOK:
				line += fmt.Sprintf(" (guard %s)", h.Guard)
			case h.State == "installed":
				line += fmt.Sprintf(" (guard %s is gone, none on PATH: the hook refuses everything)", h.Guard)
			case h.State == "managed":
				line = fmt.Sprintf("  %s: managed by %s, which runs guard from %s", h.Name, h.Manager, strings.Join(h.Via, " and "))
				switch {
				case h.Fallback != "":
					line += fmt.Sprintf(" (recorded guard %s is gone; using %s from PATH)", h.Guard, h.Fallback)
				case h.GuardOK:
					line += fmt.Sprintf(" (guard %s)", h.Guard)
				default:
					line += fmt.Sprintf(" (%s is not there: the hook refuses everything)", h.Guard)
				}
			case h.State == "foreign" && h.Manager != "":
				line += fmt.Sprintf(" (%s's hook, which does not run guard)", h.Manager)
			}
			if h.Kept != "" && h.State == "installed" {
				line += fmt.Sprintf("; runs kept hook %s", filepath.Base(h.Kept))
			}
			fmt.Fprintln(w, line)
		}
		switch {
		case r.Config.Error != "":
			fmt.Fprintf(w, "  config: error: %s\n", r.Config.Error)
		case r.Config.Path != "":
			fmt.Fprintf(w, "  config: %s\n", r.Config.Path)
		default:
			fmt.Fprintln(w, "  config: none")
		}
		if len(r.StaleLocks) == 0 {
			fmt.Fprintln(w, "  stale locks: none")
		} else {
			fmt.Fprintf(w, "  stale locks: %d\n", len(r.StaleLocks))
			for _, l := range r.StaleLocks {
				fmt.Fprintf(w, "    %s (owner %s)\n", l.Path, orNone(l.Owner))
			}
		}
		if r.Backend != nil {
			fmt.Fprintf(w, "  backend: %s\n", r.Backend.Summary)
		}
		fmt.Fprintf(w, "  bypasses: %d (%s)\n", len(r.Bypasses), r.BypassLog)
		for _, raw := range r.Bypasses {
			var b bypassSummary
			_ = json.Unmarshal(raw, &b)
			what := fmt.Sprintf("%d blocked", len(b.Blocking))
			if b.Error != "" {
				what = "error: " + b.Error
			}
			refs := ""
			if len(b.Refs) > 0 {
				refs = " " + strings.Join(b.Refs, ", ")
			}
			fmt.Fprintf(w, "    %s %s %s%s: %q (%s)\n", b.Time, orNone(b.Owner), b.Hook, refs, b.Reason, what)
		}
		for _, p := range r.Problems {
			fmt.Fprintf(w, "  problem: %s\n", p)
		}
	}
	if len(rep.Repositories) > 0 {
		fmt.Fprintln(w)
	}
	writeScratch(w, rep.Scratch)
	for _, p := range rep.Problems {
		fmt.Fprintf(w, "problem: %s\n", p)
	}
	if len(rep.Repositories) > 1 {
		fmt.Fprintln(w, doctorSummary(rep.Repositories))
	}
	if rep.Healthy && len(rep.Repositories) > 0 {
		fmt.Fprintln(w, "healthy")
	}
}

// doctorSummary is the count a run over several repositories ends with: "40
// repositories: 35 ok, 3 with problems, 2 with warnings". A warning is what does not
// make a repository unhealthy but wants a look: bypasses in its log, a hook that runs
// the guard on PATH because the one it recorded is gone.
func doctorSummary(repos []RepoReport) string {
	ok, problems, warnings := 0, 0, 0
	for _, r := range repos {
		switch {
		case len(r.Problems) > 0:
			problems++
		case hasWarning(r):
			warnings++
		default:
			ok++
		}
	}
	return fmt.Sprintf("%d repositories: %d ok, %d with problems, %d with warnings", len(repos), ok, problems, warnings)
}

// hasWarning reports whether a healthy repository still wants a look.
func hasWarning(r RepoReport) bool {
	if len(r.Bypasses) > 0 {
		return true
	}
	for _, h := range r.Hooks {
		if h.Fallback != "" {
			return true
		}
	}
	return false
}

func orNone(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
