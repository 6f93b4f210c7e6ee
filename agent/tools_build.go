package agent

import "strings"

// buildTools are the language tool chains and package managers.
var buildTools = []tool{
	{[]string{"go"}, func(c *command, _ string, args []shellWord) { c.goTool(args) }},
	{[]string{"gofmt"}, func(c *command, _ string, args []shellWord) {
		if hasShort(args, 'w') {
			for _, w := range operands(args, "r") {
				c.a.deepTarget(w, c.cwd, c.text)
			}
		}
	}},
	{[]string{"npm", "pnpm", "yarn", "npx", "cargo", "gh"}, func(c *command, name string, args []shellWord) {
		if !c.readOnlySub(name, args) {
			c.a.unknown(quoteCmd(c.text) + " runs programs guard does not read (package scripts, builds)")
		}
	}},
}

// goTool reads the go command: build writes its output (-o, else the current
// folder), fmt rewrites its packages, mod and get change the module files; test, run
// and generate run programs guard does not read.
func (c *command) goTool(args []shellWord) {
	a := c.a
	if len(args) == 0 {
		return
	}
	sub, rest := args[0].Text, args[1:]
	switch sub {
	case "build":
		if outs := optionValues(rest, "o", "o", nil); len(outs) > 0 {
			for _, w := range outs {
				a.target(w, c.cwd, OpEdit, c.text)
			}
			return
		}
		for _, w := range rest {
			if strings.HasPrefix(w.Text, "-o=") {
				a.target(trimWord(w, 3, w.Text[3:]), c.cwd, OpEdit, c.text)
				return
			}
		}
		c.inCwd()
	case "fmt", "fix":
		if c.cwd != "" {
			a.effect(Effect{Op: OpEdit, Path: c.cwd, Command: c.text, Descend: true})
		}
	case "mod", "get", "clean", "work":
		if len(rest) > 0 && (rest[0].Text == "graph" || rest[0].Text == "why" || rest[0].Text == "verify" || rest[0].Text == "download") {
			return
		}
		c.inCwd()
	case "vet", "list", "env", "version", "doc", "help", "install", "telemetry":
	default:
		a.unknown(quoteCmd(c.text) + " runs programs guard does not read")
	}
}

// readOnlySub reports the subcommands of package managers and gh that only read.
func (c *command) readOnlySub(name string, args []shellWord) bool {
	ops := operands(args, "")
	if len(ops) == 0 {
		return len(args) > 0 // npm --version
	}
	sub := ops[0].Text
	switch name {
	case "npm", "pnpm", "yarn":
		switch sub {
		case "ls", "list", "ll", "la", "view", "info", "show", "outdated", "help", "search", "whoami",
			"ping", "root", "prefix", "bin", "why", "explain", "doctor", "config", "get", "query", "fund", "docs", "repo", "bugs":
			return true
		case "audit":
			return !hasFlag(args, "fix")
		}
	case "cargo":
		switch sub {
		case "metadata", "tree", "search", "locate-project", "pkgid", "verify-project", "help", "version", "info":
			return true
		}
	case "gh":
		if len(ops) > 1 {
			switch ops[1].Text {
			case "view", "list", "diff", "status", "checks", "watch":
				return true
			}
		}
		switch sub {
		case "api", "search", "browse", "status", "auth":
			return true
		}
	}
	return false
}
