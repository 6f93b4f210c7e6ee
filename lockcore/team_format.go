package lockcore

import (
	"fmt"
	"strings"
)

const teamDivider = "# ============================================================================"

// TeamSectionsTemplate returns the four empty section blocks that a new team lock
// carries after its header, starting with the blank line that separates them from
// the header and ending with the messages marker and a newline. Each block is a
// divider, a `# SECTION n -- TITLE` heading, format comments, a divider and the
// marker line after which the section's entries follow.
func TeamSectionsTemplate() string {
	return `
` + teamDivider + `
# SECTION 1 -- PRESENCE LOG
# Every agent checks in here before touching files and checks out when done.
# Format: [loop-id] | [agent-name] | role | main task | start time
` + teamDivider + `
# PRESENCE:

` + teamDivider + `
# SECTION 2 -- FILE / FOLDER CLAIMS + QUEUE
# One line is one atomic bundle. "order" is a file-local FIFO ordinal.
# Paths are relative to this file's folder and contain no wildcards.
# Format: [agent-name] EDITING order=000001 | path | second/path
#         [agent-name] WAITING order=000002 | path | second/path
` + teamDivider + `
# FILE-CLAIMS:

` + teamDivider + `
# SECTION 3 -- TOOL / SOFTWARE / MCP CLAIMS + QUEUE
# One line is one atomic bundle. Shared read-only tools need no claim.
# Format: [agent-name] USING   order=000001 | tool-id | second-tool-id
#         [agent-name] WAITING order=000002 | tool-id | second-tool-id
` + teamDivider + `
# TOOL-CLAIMS:

` + teamDivider + `
# SECTION 4 -- MESSAGES / TIPS / LESSONS LEARNED
# Short handovers, warnings and notes for the other agents of this host.
# Format: [YYYY-MM-DDTHH:MM:SS+HH:MM] [agent-name]: message
` + teamDivider + `
# MESSAGES:
`
}

// render returns the file's text with the changed sections (dirty) replaced by
// pending: the new entries, put where the old ones stood, or (whole) the new body.
func (t *TeamLock) render() string {
	return t.renderLines(t.pending, t.dirty)
}

// migrate returns the sectioned form of a file without markers: its content, a blank
// line and the four empty sections.
func (t *TeamLock) migrate() (*TeamLock, error) {
	text := strings.TrimRight(strings.Join(t.lines, "\n"), "\n") + "\n" + TeamSectionsTemplate()
	return ParseTeamLock(t.Path, []byte(text), true)
}

func (t *TeamLock) renderLines(replace [4][]string, changed [4]bool) string {
	var out []string
	pos := 0
	for s := 0; s < 4; s++ {
		start, end := t.body[s][0], t.body[s][1]
		out = append(out, t.lines[pos:start]...)
		switch {
		case !changed[s]:
			out = append(out, t.lines[start:end]...)
		case t.whole[s]:
			out = append(out, replace[s]...)
		default:
			out = append(out, spliceSection(t.lines[start:end], replace[s])...)
		}
		pos = end
	}
	out = append(out, t.lines[pos:]...)
	return strings.TrimRight(strings.Join(out, "\n"), "\n") + "\n"
}

// spliceSection puts entries where the first old entry stood, keeping comments and
// blank lines; with no old entry they go at the end, before trailing blank lines.
func spliceSection(old []string, entries []string) []string {
	first := -1
	var kept []string
	for _, line := range old {
		s := strings.TrimSpace(line)
		if s != "" && !strings.HasPrefix(s, "#") {
			if first < 0 {
				first = len(kept)
			}
			continue
		}
		kept = append(kept, line)
	}
	if first < 0 {
		first = len(kept)
		for first > 0 && strings.TrimSpace(kept[first-1]) == "" {
			first--
		}
	}
	out := make([]string, 0, len(kept)+len(entries))
	out = append(out, kept[:first]...)
	out = append(out, entries...)
	return append(out, kept[first:]...)
}

// stateColumn is how the reference spaces each state before order= (two spaces after
// EDITING, three after USING, one after WAITING).
var stateColumn = map[string]string{StateEditing: "EDITING  ", StateUsing: "USING   ", StateWaiting: "WAITING "}

// formatBundle renders a claim line: `[a] EDITING  order=000001 | r | r`.
func formatBundle(b Bundle) string {
	return fmt.Sprintf("[%s] %sorder=%06d | %s", b.Agent, stateColumn[b.State], b.Order, strings.Join(b.Resources, " | "))
}

func formatPresence(e PresenceEntry) string {
	return fmt.Sprintf("[%s] | [%s] | %s | %s | %s", e.LoopID, e.Agent, e.Role, e.Task, e.Start)
}
