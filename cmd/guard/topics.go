package main

import (
	"fmt"
	"io"
	"strings"
)

// A helpTopic is a page of guard help TOPIC (and a section of guard(1)): what is not one
// command's, such as the environment every command reads and the exit codes all share.
type helpTopic struct {
	Name, Short string
	// Intro is one paragraph before the sections.
	Intro    string
	Sections []topicSection
}

// A topicSection is a titled list of terms (a variable, an exit code) and what each is.
type topicSection struct {
	Title   string
	Entries []topicEntry
}

type topicEntry struct{ Term, Text string }

// envTopic is guard help environment and guard(1)'s ENVIRONMENT. Every GUARD_ variable
// the code names is here (TestEnvironmentTopicNamesEveryGuardVariable greps for them).
func envTopic() helpTopic {
	return helpTopic{
		Name:  "environment",
		Short: "The GUARD_* variables and the others guard reads or sets",
		Intro: "guard reads these variables; a flag, where there is one, wins over the variable, and the variable over .guard.toml.",
		Sections: []topicSection{{
			Title: "Identity and overrides",
			Entries: []topicEntry{
				{"GUARD_OWNER", "Who you are: the owner of the locks you claim and the identity a lock does not stop (after --owner; before .guard.toml owner and <user>@<host>). Give each coding agent its own. The agent hook uses it before the agent's session id."},
				{"GUARD_HOST", "This machine's name for team locks, which do not stop agents on their own host (after --host; before .guard.toml host and the host name)."},
				{"GUARD_BYPASS", `"<reason>" lets a refusal of the pre-commit, pre-merge-commit and pre-push hooks, and a failing guard audit github, through, recorded in <git-common-dir>/guard/bypass.log (no record, no bypass). guard ci, guard publish, guard check and the agent hook never yield to it.`},
				{"GUARD_PUSHER", "On a git server reached over plain ssh: the conventional variable for [server] pusher_env, set by each key's forced command in authorized_keys to the pusher's name (see docs/server.md). GitLab's and Gitea's own variables need no setting."},
				{"GUARD_ETCD_PASSWORD", "The password of [backend] in .guard.toml (etcd), instead of writing it into the file."},
			},
		}, {
			Title: "Sandbox",
			Entries: []topicEntry{
				{"GUARD_SANDBOX_NAMESPACES", "0 keeps guard sandbox (and guard run --sandbox) from using user namespaces: Landlock alone, the fallback where namespaces are unavailable."},
			},
		}, {
			Title: "Set by guard for the commands it runs",
			Entries: []topicEntry{
				{"GUARD_LOCK_HELD", "1 in the environment of guard run's COMMAND, with LOCK_FENCE (the lock's fence) and LOCK_FENCE_FILE (its path)."},
				{"LOCK_FENCE, LOCK_FENCE_FILE", "The fence and path of the lock being held: guard run sets them for COMMAND; guard lock prints them on stderr for a holder to export. The git hooks and guard check read them: a holder whose lock was taken over (its fence no longer matches) is refused."},
				{"GUARD_SANDBOX", "In guard sandbox's COMMAND: the Landlock ABI it runs under (0 when it runs unsandboxed under --best-effort). The agent hook reads it to know that a session already runs sandboxed."},
				{"GUARD_SANDBOX_MODE", "In guard sandbox's COMMAND: how it is sandboxed: exact (namespaces and Landlock), landlock, or none."},
				{"GUARD_PREV_HOOK", "In a hook guard install kept (<hook>.pre-guard): its path, while guard's hook script runs it after guard's check."},
			},
		}, {
			Title: "Read from the world around guard",
			Entries: []topicEntry{
				{"GH_TOKEN, GITHUB_TOKEN", "The GitHub token of guard audit github and of the pre-push visibility check (GH_TOKEN first)."},
				{"GITHUB_BASE_REF, GITHUB_EVENT_BEFORE, GITHUB_EVENT_NAME, GITHUB_EVENT_PATH, GITHUB_REF, GITHUB_REF_TYPE, GITHUB_API_URL, GITHUB_STEP_SUMMARY", "GitHub Actions' own: the range guard ci checks, the API it asks, and where --format github writes its summary."},
				{"XDG_STATE_HOME", "Where guard keeps its state: the history journal and lockdown's manifest ($XDG_STATE_HOME/guard, default ~/.local/state/guard)."},
				{"CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME", "Where agent-install and agent-uninstall find a coding agent's user settings (--user)."},
				{"PRE_COMMIT_*, SKIP, HUSKY, LEFTHOOK, LEFTHOOK_*", "The hook managers' own: how guard hook pre-push learns the push under the pre-commit framework, and what guard doctor reports about a manager that would skip guard."},
				{"GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE, GIT_COMMON_DIR", "Git's own, as git sets them for a hook: the repository guard judges."},
				{"HOME, USER, TMPDIR, PATH", "As usual: the user (for <user>@<host>), home-relative paths, temporary files, and the programs guard runs (git, and COMMAND)."},
			},
		}},
	}
}

// exitTopic is guard help exit-codes and guard(1)'s EXIT STATUS: CONTRACT.md section 3.
func exitTopic() helpTopic {
	return helpTopic{
		Name:  "exit-codes",
		Short: "What guard's exit statuses mean",
		Intro: "Every command exits with one of these (docs/CONTRACT.md, section 3). Hooks treat anything but 0 as a refusal: an internal error fails closed.",
		Sections: []topicSection{{
			Entries: []topicEntry{
				{"0", "Done, or allowed (guard status: free; guard permissions: allow)."},
				{"1", "Refused: a lock, a marker or a check said no. The message says which file, which owner, why, and how to proceed."},
				{"2", "A usage error (an unknown command, flag or value, a wrong number of arguments: the message suggests the nearest), bad input, bad configuration, or an internal error."},
				{"3", "guard lock lost a contest and removed its own lock."},
				{"4", "guard permissions: the answer is ask (allow is 0, deny is 1)."},
				{"5", "guard run: the lock was lost while COMMAND ran, and COMMAND was stopped."},
			},
		}, {
			Title: "Commands that run a command",
			Entries: []topicEntry{
				{"run, sandbox", "Once COMMAND runs, guard exits with its exit code: 128+N when signal N ended it, 127 when it was not found, 126 when it could not be run (as a shell says). guard sandbox exits 2 when the kernel cannot sandbox COMMAND (without --best-effort)."},
				{"publish", "Once the publishing command runs, guard exits with its exit code (128+N when signal N ended it)."},
			},
		}},
	}
}

// formattingTopic is guard help formatting. Which commands take --json is read from
// the tree, so the page never lists a flag a command lacks (or misses one added later,
// such as --jq).
func formattingTopic(jsonCommands, jqCommands []string) helpTopic {
	out := []topicEntry{
		{"stdout, stderr", "Results (paths created or removed, listings, verdicts) go to stdout; diagnostics, warnings and the explanation of a refusal go to stderr, so a script can read stdout and a person still sees why."},
		{"--json", "One JSON document on stdout and nothing else there (the text on stderr stays). The keys docs/CONTRACT.md promises stay: new ones are added, none renamed or removed. Commands that take it: " + strings.Join(jsonCommands, ", ") + "."},
		{"--format", "guard ci --format text|json|github: lines for a person, one JSON document, or GitHub Actions annotations and a step summary ($GITHUB_STEP_SUMMARY)."},
		{"JSON lines", "guard watch --json prints one JSON object per event and line, as they happen."},
		{"LOCK_FENCE", "guard lock prints LOCK_FENCE=<n> and LOCK_FENCE_FILE=<path> on stderr, for a holder to export."},
	}
	if len(jqCommands) > 0 {
		out = append(out, topicEntry{"--jq", "Filter the JSON output with a jq expression: " + strings.Join(jqCommands, ", ") + "."})
	}
	out = append(out, topicEntry{"colour", "guard writes no colour; docs/CONTRACT.md promises none when stdout is not a terminal or NO_COLOR is set."})
	return helpTopic{
		Name:     "formatting",
		Short:    "--json, --format and how output is shaped",
		Intro:    "How guard's output is shaped, for people and for scripts.",
		Sections: []topicSection{{Entries: out}},
	}
}

// writeTopic prints a topic for a terminal: the intro, then each section's terms with
// their text indented below them, wrapped at 80 columns.
func writeTopic(w io.Writer, t helpTopic) error {
	var b strings.Builder
	b.WriteString(wrap(t.Intro, 80, ""))
	for _, s := range t.Sections {
		b.WriteString("\n")
		if s.Title != "" {
			b.WriteString(s.Title + ":\n")
		}
		for _, e := range s.Entries {
			// A short term (an exit code) heads its text's first line; a long one (a
			// list of variables) stands on a line of its own above it.
			const col = 8
			if len(e.Term)+3 <= col {
				text := wrap(e.Text, 80, strings.Repeat(" ", col))
				b.WriteString("  " + e.Term + text[len(e.Term)+2:])
				continue
			}
			b.WriteString(wrap(e.Term, 80, "  "))
			b.WriteString(wrap(e.Text, 80, "      "))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// wrap fills text into lines of at most width columns, each begun with indent.
func wrap(text string, width int, indent string) string {
	var b strings.Builder
	line := indent
	for _, word := range strings.Fields(text) {
		if len(line) > len(indent) && len(line)+1+len(word) > width {
			b.WriteString(line + "\n")
			line = indent
		}
		if len(line) > len(indent) {
			line += " "
		}
		line += word
	}
	b.WriteString(line + "\n")
	return b.String()
}

// writeTopicRoff prints a topic as a man page section (.SH NAME), its terms as tagged
// paragraphs.
func writeTopicRoff(w io.Writer, section string, t helpTopic) {
	fmt.Fprintf(w, ".SH %s\n.PP\n%s\n", section, roffText(t.Intro))
	for _, s := range t.Sections {
		if s.Title != "" {
			fmt.Fprintf(w, ".SS %s\n", roffText(s.Title))
		}
		for _, e := range s.Entries {
			fmt.Fprintf(w, ".TP\n\\fB%s\\fP\n%s\n", roffText(e.Term), roffText(e.Text))
		}
	}
}

// roffText escapes what roff would read as requests or escapes: backslashes, and a
// leading dot or quote.
func roffText(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}
