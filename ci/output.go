package ci

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/gitrun"
)

// relTo returns p relative to top with forward slashes (as annotations and the job
// summary want), or p itself when it lies outside top.
func relTo(top, p string) string {
	if r, err := filepath.Rel(top, p); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(r)
	}
	return filepath.ToSlash(p)
}

// blockMessage is one refused path in a sentence.
func blockMessage(top, op string, b guard.Block) string {
	if b.Lock == nil {
		return fmt.Sprintf("%s refused: %s", op, b.Reason)
	}
	owner := b.Lock.Owner
	if owner == "" {
		owner = "an unknown owner"
	}
	return fmt.Sprintf("%s refused by %s (held by %s): %s", op, relTo(top, b.Lock.Path), owner, b.Reason)
}

// writeCIText is the text format: the range and the verdict on stdout (the
// explanations go to stderr).
func writeCIText(env *guard.Env, rep Report, r Range) {
	w := env.Stdout
	fmt.Fprintf(w, "guard ci: %s (%s): %d changed path(s) checked for %s\n", rangeText(r), rep.BaseSource, len(rep.Paths), strings.Join(rep.Ops, ", "))
	blocked := 0
	for _, c := range rep.Checks {
		blocked += len(c.Blocking)
	}
	switch {
	case rep.Allowed:
		fmt.Fprintln(w, "ok")
	default:
		fmt.Fprintf(w, "refused: %d blocked path(s), %d committed marker(s)\n", blocked, len(rep.Markers))
	}
}

// escapeData and escapeProperty encode workflow-command text as the Actions runner
// decodes it.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// writeAnnotations is the github format: one `::error file=PATH::MESSAGE` per blocked
// path and committed marker, one ::warning per policy warning, then a one-line
// verdict.
func writeAnnotations(env *guard.Env, top string, rep Report, decisions []*guard.Decision) {
	w := env.Stdout
	warned := map[string]bool{}
	for i, d := range decisions {
		op := rep.Ops[i]
		for _, b := range d.Blocking {
			fmt.Fprintf(w, "::error file=%s::%s\n", escapeProperty(relTo(top, b.Path)), escapeData("guard: "+blockMessage(top, op, b)))
		}
		for _, s := range d.Warnings {
			if !warned[s] {
				warned[s] = true
				fmt.Fprintf(w, "::warning::%s\n", escapeData("guard: "+s))
			}
		}
	}
	for _, m := range rep.Markers {
		fmt.Fprintf(w, "::error file=%s::%s\n", escapeProperty(m.Path), escapeData("guard: "+markerMessage(m)))
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(w, "::notice::%s\n", escapeData("guard: "+n))
	}
	if rep.Allowed {
		fmt.Fprintf(w, "guard ci: ok: %d changed path(s) checked for %s\n", len(rep.Paths), strings.Join(rep.Ops, ", "))
	} else {
		fmt.Fprintf(w, "guard ci: refused\n")
	}
}

// appendSummary appends the Markdown job summary to the file GitHub Actions names in
// GITHUB_STEP_SUMMARY.
func appendSummary(path string, rep Report, top string, decisions []*guard.Decision) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	werr := writeSummary(f, rep, top, decisions)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

func writeSummary(w io.Writer, rep Report, top string, decisions []*guard.Decision) error {
	var b strings.Builder
	verdict := "passed"
	if !rep.Allowed {
		verdict = "refused"
	}
	rng := fmt.Sprintf("Range `%s..%s` (%s)", gitrun.Short(rep.Base), gitrun.Short(rep.Head), mdEscape(rep.BaseSource))
	if rep.Base == "" {
		rng = fmt.Sprintf("All of `%s`", gitrun.Short(rep.Head))
	}
	fmt.Fprintf(&b, "## guard ci: %s\n\n%s: %d changed path(s) checked for %s.\n\n", verdict, rng, len(rep.Paths), strings.Join(rep.Ops, ", "))
	rows := 0
	for i, d := range decisions {
		for _, blk := range d.Blocking {
			if rows == 0 {
				b.WriteString("| path | operation | lock | owner | reason |\n|---|---|---|---|---|\n")
			}
			rows++
			lock, owner := "", ""
			if blk.Lock != nil {
				lock, owner = relTo(top, blk.Lock.Path), blk.Lock.Owner
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", relTo(top, blk.Path), rep.Ops[i], mdCode(lock), mdEscape(owner), mdEscape(blk.Reason))
		}
	}
	if rows > 0 {
		b.WriteString("\n")
	}
	for _, m := range rep.Markers {
		fmt.Fprintf(&b, "- :x: %s\n", mdEscape(markerMessage(m)))
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(&b, "- note: %s\n", mdEscape(n))
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ").Replace(s)
}

func mdCode(s string) string {
	if s == "" {
		return ""
	}
	return "`" + strings.ReplaceAll(s, "`", "'") + "`"
}
