package agent

import "strings"

// shellTools are the shells and the builtins that run shell text: the text is read
// as commands of its own.
var shellTools = []tool{
	{[]string{"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "rbash"}, func(c *command, name string, args []shellWord) {
		c.shell(name, args)
	}},
	{[]string{"eval"}, func(c *command, _ string, args []shellWord) {
		for _, w := range args {
			if w.Dynamic {
				c.a.cannot("the text of " + quoteCmd(c.text) + " is only known when it runs")
				return
			}
		}
		c.a.script(joinWords(args), c.cwd, c.depth+1)
	}},
	{[]string{"trap", "alias"}, func(c *command, name string, args []shellWord) {
		// trap's first operand and an alias's value are shell text that runs later
		// in this shell (on a signal or an exit; where aliases are expanded).
		ops := operands(args, "")
		if name == "trap" && len(ops) > 0 {
			ops = ops[:1]
		}
		for _, w := range ops {
			text := w.Text
			if name == "alias" {
				_, v, ok := strings.Cut(text, "=")
				if !ok {
					continue
				}
				text = v
			}
			if w.Dynamic {
				c.a.cannot("the text of " + quoteCmd(c.text) + " is only known when it runs")
				continue
			}
			c.a.script(text, c.cwd, c.depth+1)
		}
	}},
	{[]string{"source", "."}, func(c *command, _ string, _ []shellWord) {
		c.a.unknown(quoteCmd(c.text) + " runs a script guard does not read")
	}},
}

// shell reads sh -c TEXT, a here-document or here-string fed to a shell, and a script
// file run by a shell.
func (c *command) shell(name string, args []shellWord) {
	a := c.a
	cflag, stdin := false, false
	i := 0
options:
	for i < len(args) {
		t := args[i].Text
		switch {
		case t == "--" || t == "-":
			i++
			break options
		case t == "--rcfile" || t == "--init-file":
			i += 2
			continue
		case strings.HasPrefix(t, "--"):
		case (strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+")) && len(t) > 1:
			for k := 1; k < len(t); k++ {
				switch t[k] {
				case 'c':
					cflag = true
				case 's':
					stdin = true
				case 'o', 'O':
					i++ // -o pipefail
				}
			}
		default:
			break options
		}
		i++
	}
	rest := args[min(i, len(args)):]
	switch {
	case cflag:
		if len(rest) == 0 {
			return
		}
		if rest[0].Dynamic {
			a.cannot("the script of " + quoteCmd(c.text) + " is only known when it runs")
			return
		}
		a.script(rest[0].Text, c.cwd, c.depth+1)
	case len(rest) > 0 && !stdin:
		a.unknown(quoteCmd(c.text) + " runs a script guard does not read")
	default:
		text, ok := c.stdinText()
		switch {
		case ok:
			a.script(text, c.cwd, c.depth+1)
		case c.stdinFile():
			a.unknown(quoteCmd(c.text) + " runs a script guard does not read")
		case c.piped:
			a.cannot("the script " + quoteCmd(c.text) + " reads from its input is only known when it runs")
		}
	}
}

// stdinText is the text a here-document or here-string gives the command, and
// whether there is one guard knows (an unquoted body with expansions is not known:
// it is then noted as such).
func (c *command) stdinText() (string, bool) {
	var text string
	found := false
	for _, r := range c.stmt.Redirs {
		switch r.Op.String() {
		case "<<", "<<-", "<<<":
			t, ok := c.a.heredocText(r, c.cwd)
			if !ok {
				c.a.cannot("the input " + quoteCmd(c.text) + " reads holds text only known when it runs")
				return "", false
			}
			text, found = t, true
		case "<":
			found = false
		}
	}
	return text, found
}

// stdinFile reports an input redirection from a file (`sh < script.sh`).
func (c *command) stdinFile() bool {
	for _, r := range c.stmt.Redirs {
		if r.Op.String() == "<" {
			return true
		}
	}
	return false
}
