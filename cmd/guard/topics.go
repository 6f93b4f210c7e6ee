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

// envTopic is guard help environment and guard(1)'s ENVIRONMENT, in the words of
// docs/environment.md. Every GUARD_ variable the code names is here
// (TestEnvironmentTopicNamesEveryGuardVariable greps for them).
func envTopic() helpTopic {
	return helpTopic{
		Name:  "environment",
		Short: "The GUARD_* variables and the others guard reads or sets",
		Intro: "guard reads the variables below; a flag, where there is one, wins over the variable, and the variable over .guard.toml. docs/environment.md has the same list with links.",
		Sections: []topicSection{{
			Title: "Identity and overrides",
			Entries: []topicEntry{
				{"GUARD_OWNER", "Who you are: the owner of the locks you claim and the identity a lock does not stop (after --owner; before .guard.toml owner and <user>@<host>). The agent hook uses it before the agent's session id, so give each coding agent its own."},
				{"GUARD_HOST", "This machine's name for team locks, which do not stop agents on their own host (after --host; before .guard.toml host and the machine's name)."},
				{"GUARD_BYPASS", `"<reason>" lets a refusal (or an internal error) of the pre-commit, pre-merge-commit and pre-push hooks through, and turns a failing guard audit github verdict's exit 1 into 0, once the bypass is recorded in <git-common-dir>/guard/bypass.log: no record, no bypass. guard ci, guard publish, guard check and the agent hook never yield to it.`},
				{"GUARD_ETCD_PASSWORD", "The password of [backend] (etcd), instead of writing it into .guard.toml."},
				{"GUARD_PUSHER", "On a git server reached over plain ssh: the conventional variable for [server] pusher_env, set by each key's forced command in authorized_keys to the pusher's name (docs/server.md)."},
				{"GUARD_SANDBOX_NAMESPACES", "0 keeps guard sandbox (and guard run --sandbox) from using user namespaces: Landlock alone, the fallback where namespaces are unavailable."},
			},
		}, {
			Title: "Set by guard for the commands it runs",
			Entries: []topicEntry{
				{"GUARD_LOCK_HELD", "1 in the environment of guard run's COMMAND."},
				{"LOCK_FENCE, LOCK_FENCE_FILE", "The fence and the path of the lock being held: guard run sets them for COMMAND; guard lock prints them on stderr for a holder to export. guard check and the git hooks read them: a holder whose variables are incomplete, whose fence file lies outside the repository being changed, no longer carries that fence, or has expired, is refused (with etcd, the fence is confirmed there too)."},
				{"GUARD_SANDBOX", "In guard sandbox's COMMAND: the Landlock ABI it runs under (0 when it runs unsandboxed under --best-effort). The agent hook rewrites nothing in a session that already runs sandboxed (1 or more)."},
				{"GUARD_SANDBOX_MODE", "In guard sandbox's COMMAND: exact (namespaces and Landlock), landlock or none."},
				{"GUARD_PREV_HOOK", "In a hook guard install kept (<hook>.pre-guard): its path, while guard's hook runs it after guard's check."},
			},
		}, {
			Title: "Read from the world around guard",
			Entries: []topicEntry{
				{"GH_TOKEN, GITHUB_TOKEN", "The GitHub token of guard audit github and of the pre-push visibility check (GH_TOKEN first; none: public repositories only)."},
				{"GITHUB_API_URL", "The GitHub API base (after --api-url, before .guard.toml api_url)."},
				{"GITHUB_BASE_REF, GITHUB_EVENT_BEFORE, GITHUB_EVENT_NAME, GITHUB_EVENT_PATH, GITHUB_REF, GITHUB_REF_TYPE, GITHUB_STEP_SUMMARY", "GitHub Actions' own: the range guard ci checks (a tag build adds release-tag), and where --format github writes its summary."},
				{"LOCK_MASTER_AUTOMATION, CI, TF_BUILD, GITHUB_ACTIONS, SCHEDULED_TASK", "Mark an automation: guard lock runs the contest after a fresh claim in a cloud-synced folder (as it does when stdin is not a terminal)."},
				{"XDG_STATE_HOME", "Where guard keeps its state, $XDG_STATE_HOME/guard (default ~/.local/state/guard): the history, the --wait queue, resource locks, lockdown's manifest, agent session records and mcp claims, the agent hook's folder listings, serve.lock and guard serve --open's page."},
				{"CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME", "Where agent-install and agent-uninstall find a coding agent's user settings (--user), and where Codex's hook trust records and Gemini CLI's trusted folders live."},
				{"CLAUDE_PROJECT_DIR, CLAUDE_CODE_SHELL, SHELL, CLAUDE_CODE_SESSION_ID, CLAUDE_PID", "Claude Code's own: the project whose permission rules the hook reads, the shell a sandboxed command is run with (bash or zsh, else bash), and the session guard mcp acts for."},
				{"GL_USERNAME, GITEA_PUSHER_NAME", "The authenticated pusher on GitLab and on Gitea or Forgejo, for the server-side hooks (never GUARD_OWNER)."},
				{"PRE_COMMIT_*, SKIP, HUSKY, LEFTHOOK, LEFTHOOK_CONFIG, LEFTHOOK_EXCLUDE, LEFTHOOK_BIN", "The hook managers' own: how guard hook pre-push learns the push under the pre-commit framework, and what guard doctor reports about a manager that would skip guard."},
				{"GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE, GIT_COMMON_DIR, GIT_QUARANTINE_PATH, GIT_OBJECT_DIRECTORY, GIT_ALTERNATE_OBJECT_DIRECTORIES", "Git's own, as git sets them for a hook: the repository, working tree, index and (server side) pushed objects guard judges."},
				{"NO_COLOR", "No colour (docs/CONTRACT.md section 4 promises none when it is set or stdout is not a terminal)."},
				{"HOME, USER, TMPDIR, PATH, CDPATH", "As usual: the user (for <user>@<host>), home-relative paths (~/.ssh/config for ssh host aliases), temporary files, and the programs guard runs (git, the hooks' fallback guard on PATH, COMMAND); the agent hook reads CDPATH and HOME as bash would."},
			},
		}},
	}
}

// exitTopic is guard help exit-codes and guard(1)'s EXIT STATUS, in the words of
// docs/exit-codes.md (CONTRACT.md section 3, then what each command means by them).
func exitTopic() helpTopic {
	return helpTopic{
		Name:  "exit-codes",
		Short: "What guard's exit statuses mean",
		Intro: "Every command exits with one of these (docs/CONTRACT.md section 3). The git hooks treat anything but 0 as a refusal, so an internal error fails closed.",
		Sections: []topicSection{{
			Entries: []topicEntry{
				{"0", "Done, or allowed (guard status: free; guard permissions: allow)."},
				{"1", "Refused: a lock, a marker or a check said no (the message says which file, which owner, why, and how to proceed)."},
				{"2", "A usage error (an unknown command, flag or value, flags that exclude each other, a wrong number of arguments: the message names the nearest), bad input, bad configuration (a .guard.toml that cannot be parsed, named with its line), or an internal error."},
				{"3", "guard lock lost a contest and removed its own lock."},
				{"4", "guard permissions: the answer is ask (allow is 0, deny is 1)."},
				{"5", "guard run: the lock was lost while COMMAND ran, and COMMAND was stopped."},
			},
		}, {
			Title: "Per command",
			Entries: []topicEntry{
				{"check, ci, the hooks", "0 allowed, 1 refused, 2 error (a hook's 2 refuses too, with the reason and the way to bypass)."},
				{"status", "0 free, 1 locked (also when a directory on the way cannot be read), 2 when DIR does not exist or is not a directory."},
				{"scan", "Always 0 (unreadable folders are reported on stderr)."},
				{"prune, unlock --all", "0, or 2 when a lock could not be removed."},
				{"lock", "0 (created, renewed, joined), 1 refused (a lock, the --wait queue, or a wait that ran out), 2 bad input, 3 contest lost."},
				{"unlock, renew", "0, 1 not yours (or expired, for renew; a user lock without a terminal, for unlock), 2 bad input."},
				{"lockdown", "0, or 2 when a root could not be written (the other roots are still locked)."},
				{"team", "0 done, 1 conflict, unreadable file or no team lock (nothing written), 2 bad input or several team locks to choose from."},
				{"permissions", "0 allow, 1 deny, 4 ask, 2 an unreadable or invalid permissions file."},
				{"run", "COMMAND's own code (128+N when signal N ended it); 127 COMMAND not found, 126 not runnable; 1 (or 3) when the claim is refused and nothing ran; 5 when the lock was lost."},
				{"sandbox", "COMMAND's own code (128+N, 127, 126 as for run); 2 when the kernel cannot sandbox COMMAND (without --best-effort)."},
				{"publish", "The publishing command's own code (128+N when signal N ended it); 1 refused (markers, locks, a failing check:) or a failed chore; 2 a command it cannot classify."},
				{"preflight", `0 ready, 1 refused (markers, locks, a failing check, "private": true under PUBLIC.txt).`},
				{"audit github", "0, 1 a violation or conflict (--strict: also public without approval), 2 incomplete (an owner could not be listed)."},
				{"doctor", "0 healthy, 1 a problem, 2 no repository."},
				{"install, uninstall", "0; 1 when a foreign hook and an earlier .pre-guard are both there (install, without --force) or a hook someone else wrote over guard's (uninstall); 2 not a repository."},
				{"agent-hook", "Always 0 with the answer on stdout; 2 only for an unknown agent name, or when stdin is a terminal."},
				{"serve", "0 at Ctrl-C; 1 when another instance runs for the state directory; 2 for a non-loopback --addr."},
				{"watch", "0 at Ctrl-C, SIGTERM or SIGHUP."},
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
		Intro:    "How guard's output is shaped, for people and for scripts. docs/json.md has every command's JSON.",
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
		// Short terms (exit codes) head their text's first line; where one is long (a
		// list of variables), every term of the section stands on a line of its own.
		const col = 8
		inline := true
		for _, e := range s.Entries {
			inline = inline && len(e.Term)+3 <= col
		}
		for _, e := range s.Entries {
			if inline {
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
