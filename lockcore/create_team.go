package lockcore

// createTeamSections returns the four sections that follow the header of a team lock
// written by guard lock --team (REFERENCE-LATER.md section 8, "File layout"): each a
// divider, a "# SECTION n -- TITLE" heading, format comments, a divider and its marker
// line (# PRESENCE:, # FILE-CLAIMS:, # TOOL-CLAIMS:, # MESSAGES:), with no entries.
func createTeamSections() string {
	return teamSectionsText
}

const teamSectionsText = `
# ============================================================================
# SECTION 1 -- PRESENCE LOG
# Who is currently active? Each agent adds one line on check-in and removes it on
# check-out. The last agent to leave deletes this file.
# Format: [loop-id] | [agent-name] | role | main-task | start-time
# ============================================================================
# PRESENCE:

# ============================================================================
# SECTION 2 -- FILE / FOLDER CLAIMS + QUEUE
# Who is editing what, and who waits for it (first come, first served).
# Format: [agent-name] EDITING  order=000001 | <path-or-glob> | <path-or-glob>
#         [agent-name] WAITING order=000002 | <path-or-glob>
# ============================================================================
# FILE-CLAIMS:

# ============================================================================
# SECTION 3 -- TOOL / SOFTWARE / MCP CLAIMS + QUEUE
# Exclusive resources (running servers, DB connections, specific MCP tools).
# Format: [agent-name] USING   order=000001 | <tool-or-resource>
#         [agent-name] WAITING order=000002 | <tool-or-resource>
# ============================================================================
# TOOL-CLAIMS:

# ============================================================================
# SECTION 4 -- MESSAGES / TIPS / LESSONS LEARNED
# Short handovers, warnings and notes for teammates on this system.
# Format: [YYYY-MM-DDTHH:MM:SS+hh:mm] [agent-name]: <message>
# ============================================================================
# MESSAGES:
`
