package main

import (
	"strings"

	"github.com/spf13/cobra"
)

// exampleTable is the Example sections of --help and the man pages, by command path below
// guard. One table, so that TestEveryCommandHasAnExample can name a command that has
// none. Each line runs as written in a repository with guard installed (the paths are
// the reader's to change).
//
// A function rather than a package variable: a map literal at package level is built
// at start-up, and only a help page or the man pages need this one.
func exampleTable() map[string]string {
	return map[string]string{
		"guard": `# refuse commits and pushes into areas others have locked
$ guard install
# lock an area, see who holds what, release it
$ guard lock src/parser --expires 2h --purpose "rewriting the tokenizer"
$ guard scan
$ guard unlock src/parser
# let coding agents see and respect the locks
$ guard agent-install claude`,
		"lock": `# lock src/parser for two hours, saying why
$ guard lock src/parser --expires 2h --purpose "rewriting the tokenizer"
# lock only against pushes and releases, as a warning rather than a refusal
$ guard lock docs --operations push,release-tag --mode soft
# wait up to ten minutes for the current holder, then claim
$ guard lock src/parser --wait 10m
# lock something that is not a folder
$ guard lock --resource postgres://db.internal/orders`,
		"unlock": `$ guard unlock src/parser
$ guard unlock src/parser/LOCK.txt
# someone else's lock, deliberately
$ guard unlock src/parser --force
# every lock you hold under the current directory (a shutdown's cleanup)
$ guard unlock --all .`,
		"renew": `$ guard renew src/parser
# give the lock a new lifetime from now
$ guard renew src/parser --expires 4h`,
		"run": `# hold src/parser while the migration runs; released when it exits
$ guard run src/parser -- ./migrate.sh
# wait for the lock first, and let the kernel keep the command out of others' areas
$ guard run --wait 5m --sandbox src/parser -- make generate`,
		"lockdown": `# see what a lockdown would lock, then do it, then undo it
$ guard lockdown ~/src
$ guard lockdown ~/src --commit --reason "release freeze"
$ guard lockdown --undo --commit`,
		"team": `$ guard team checkin --role reviewer --task "review the parser"
$ guard team claim --resource src/parser
$ guard team show`,
		"team checkin": `$ guard team checkin --role implementer --task "port the lexer"
$ guard team checkin --agent agent-2 --role tester --task "fuzz the parser" --loop-id loop-02`,
		"team checkout": `$ guard team checkout
$ guard team checkout --agent agent-2`,
		"team claim": `# claim two files at once (all or nothing)
$ guard team claim --resource src/lexer.go --resource src/lexer_test.go
# claim a tool, waiting in its queue if it is taken
$ guard team claim --tool mcp::browser::navigate --queue`,
		"team release": `$ guard team release --resource src/lexer.go
$ guard team release --tool mcp::browser::navigate`,
		"team show": `$ guard team show
$ guard team show --json`,
		"team message": `$ guard team message --msg "lexer done; parser next"`,
		"prune": `# list what would go, then remove it
$ guard prune ~/src --dry-run
$ guard prune ~/src
$ guard prune --roots-file ~/lock_roots.json --json`,

		"status": `$ guard status
$ guard status src/parser --json
$ guard status --resource postgres://db.internal/orders`,
		"scan": `$ guard scan
$ guard scan ~/src ~/work --all
$ guard scan --roots-file ~/lock_roots.json --json`,
		"check": `# may I edit these files now? (0 yes, 1 no)
$ guard check src/parser/lexer.go
$ guard check --op push --json src docs
$ GUARD_OWNER=bob guard check --op publish-release .`,
		"history": `$ guard history
$ guard history src/parser --since 7d
$ guard history --event taken_over --limit 10 --json
$ guard history --stats`,
		"watch": `$ guard watch
$ guard watch ~/src --json`,
		"serve": `$ guard serve --open
$ guard serve --addr 127.0.0.1:0 ~/src ~/work`,

		"install": `$ guard install
$ guard install --hooks pre-commit,pre-push
$ guard install --repo ~/src/app --json
# on a git server, into a bare repository
$ guard install --server --repo /srv/git/app.git --layout auto`,
		"uninstall": `$ guard uninstall
$ guard uninstall --server --repo /srv/git/app.git`,
		"ci": `# in a CI job, with the whole history fetched (fetch-depth: 0)
$ guard ci
$ guard ci --format github
$ guard ci --base origin/main --head HEAD --json`,
		"hook": `# git runs these through the hooks guard install writes; by hand:
$ guard hook pre-commit
$ echo "refs/heads/main $(git rev-parse HEAD) refs/heads/main 0000000000000000000000000000000000000000" | guard hook pre-push origin git@example.com:app.git`,
		"hook pre-commit": `$ guard hook pre-commit
$ GUARD_BYPASS="hotfix, approved by alice" git commit -m fix`,
		"hook pre-merge-commit": `$ guard hook pre-merge-commit`,
		"hook pre-push": `# git passes the remote and the ref lines itself; a push of main by hand:
$ echo "refs/heads/main $(git rev-parse HEAD) refs/heads/main 0000000000000000000000000000000000000000" | guard hook pre-push origin git@example.com:app.git`,
		"hook pre-receive": `# on a git server; git gives "<old> <new> <ref>" lines on stdin
$ echo "$OLD $NEW refs/heads/main" | GUARD_PUSHER=alice guard hook pre-receive`,
		"hook update":       `$ GUARD_PUSHER=alice guard hook update refs/heads/main "$OLD" "$NEW"`,
		"hook post-receive": `$ echo "$OLD $NEW refs/heads/main" | GUARD_PUSHER=alice guard hook post-receive`,

		"publish": `# publish only if no marker or lock says no, then run the PUBLIC.txt chores
$ guard publish -- npm publish
$ guard publish --dry-run -- gh release create v1.2.0
$ guard publish --no-chores -- twine upload dist/*`,
		"preflight": `$ guard preflight
$ guard preflight --op registry-upload --json packages/cli`,
		"audit": `$ guard audit github --owner guardlocks ~/src`,
		"audit github": `# GH_TOKEN or GITHUB_TOKEN must be set
$ guard audit github --owner guardlocks ~/src
$ guard audit github --owner guardlocks --strict --json ~/src
$ guard audit github --api-url https://github.example.com/api/v3/ --roots-file ~/lock_roots.json`,

		"agent-install": `$ guard agent-install claude
$ guard agent-install gemini --user
$ guard agent-install claude --local --sandbox
$ guard agent-install codex --json`,
		"agent-uninstall": `$ guard agent-uninstall claude
$ guard agent-uninstall gemini --user`,
		"agent-release": `$ guard agent-release --owner agent-1
$ guard agent-release --session 0f3c2a7e-5d4b-4c1e-9a8f-2b6d7e1c3a90 ~/src/app
# what the session-end hook agent-install writes runs:
$ echo '{"session_id":"0f3c2a7e","cwd":"'$PWD'"}' | guard agent-release --hook claude`,
		"agent-hook": `# the agent runs it with its tool call as JSON on stdin:
$ echo '{"session_id":"s1","cwd":"'$PWD'","tool_name":"Write","tool_input":{"file_path":"src/a.go"}}' | guard agent-hook claude
$ guard agent-hook gemini --claim < hook-input.json`,
		"mcp": `# what an agent's MCP configuration runs (agent-install writes it):
$ guard mcp
$ GUARD_OWNER=agent-1 guard mcp --release-on-exit`,
		"permissions": `$ guard permissions --agent agent-1 'Bash(rm -rf build)'
$ guard permissions src --agent agent-1 --json 'Edit(src/a.go)'`,
		"sandbox": `$ guard sandbox -- make test
$ GUARD_OWNER=bob guard sandbox --allow /tmp/cache -- python3 build.py
$ guard sandbox --best-effort -- claude`,

		"doctor": `$ guard doctor
$ guard doctor ~/src --json
$ guard doctor --sweep
$ guard doctor --server --repo /srv/git/app.git`,
		"version": `$ guard version
$ guard version --json`,
		"completion": `$ guard completion bash > /etc/bash_completion.d/guard
$ guard completion zsh > "${fpath[1]}/_guard"`,
		"completion bash": `$ source <(guard completion bash)
$ guard completion bash > /etc/bash_completion.d/guard`,
		"completion zsh":        `$ guard completion zsh > "${fpath[1]}/_guard"`,
		"completion fish":       `$ guard completion fish > ~/.config/fish/completions/guard.fish`,
		"completion powershell": `PS> guard completion powershell | Out-String | Invoke-Expression`,
		"help": `$ guard help lock
$ guard help environment
$ guard help exit-codes`,
	}
}

// exampleHelp is the root's help function: it fills in the examples of the tree just
// before a help page is shown, so that the calls that show none (every hook call) do
// not pay for the table and its strings.
func exampleHelp(def func(*cobra.Command, []string)) func(*cobra.Command, []string) {
	return func(c *cobra.Command, args []string) {
		addExamples(c.Root())
		def(c, args)
	}
}

// addExamples sets each command's Example from the table, indented as cobra's help
// indents the rest.
func addExamples(root *cobra.Command) {
	table := exampleTable()
	if root.Example == "" {
		root.Example = indentExample(table["guard"])
	}
	var walk func(*cobra.Command)
	walk = func(cmd *cobra.Command) {
		for _, c := range cmd.Commands() {
			if ex, ok := table[commandKey(c)]; ok && c.Example == "" {
				c.Example = indentExample(ex)
			}
			walk(c)
		}
	}
	walk(root)
}

// indentExample indents each line as cobra's help indents the rest.
func indentExample(ex string) string { return "  " + strings.ReplaceAll(ex, "\n", "\n  ") }

// commandKey is a command's path below the root: "team claim".
func commandKey(c *cobra.Command) string {
	return strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" ")
}
