package agent

import "strings"

// findTools is find, which deletes and runs commands below its roots.
var findTools = []tool{
	{[]string{"find"}, func(c *command, _ string, args []shellWord) { c.find(args) }},
}

// find reads `find ROOT... EXPR`: -delete removes files below the roots; -exec and
// its kin run a command on paths below them, read as such.
func (c *command) find(args []shellWord) {
	a := c.a
	var roots []shellWord
	i := 0
	// Options before the roots (-L, -H, -P, -O3, -D x).
	for i < len(args) && (args[i].Text == "-L" || args[i].Text == "-H" || args[i].Text == "-P" || strings.HasPrefix(args[i].Text, "-O") || args[i].Text == "-D") {
		if args[i].Text == "-D" {
			i++
		}
		i++
	}
	for i < len(args) && !strings.HasPrefix(args[i].Text, "-") && args[i].Text != "(" && args[i].Text != "!" {
		roots = append(roots, args[i])
		i++
	}
	if len(roots) == 0 {
		roots = []shellWord{{Text: ".", GlobAt: -1, pattern: "."}}
	}
	for ; i < len(args); i++ {
		switch args[i].Text {
		case "-delete":
			for _, r := range roots {
				a.deepTarget(r, c.cwd, c.text)
			}
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			if i+1 < len(args) {
				a.target(args[i+1], c.cwd, OpEdit, c.text)
			}
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && args[j].Text != ";" && args[j].Text != "+" {
				j++
			}
			sub := args[i+1 : j]
			i = j
			if len(sub) == 0 {
				continue
			}
			// {} is a path below a root: the command is read once per root with the
			// root in its place, every target reaching into it.
			for _, r := range roots {
				words := make([]shellWord, len(sub))
				for k, w := range sub {
					words[k] = w
					if strings.Contains(w.Text, "{}") {
						words[k] = r
					}
				}
				n := len(a.out.Effects)
				sc := &command{a: a, stmt: c.stmt, cwd: c.cwd, depth: c.depth + 1}
				sc.run(words)
				for k := n; k < len(a.out.Effects); k++ {
					if a.out.Effects[k].Op == OpEdit {
						a.out.Effects[k].Descend = true
					}
				}
			}
		}
	}
}
