package agent

import (
	"github.com/guardlocks/guard/internal/lazyre"
	"strings"
)

// textTools are the programs that transform text, writing files only when told to.
var textTools = []tool{
	{[]string{"sed", "gsed"}, func(c *command, _ string, args []shellWord) { c.sed(args) }},
	{[]string{"perl"}, func(c *command, name string, args []shellWord) {
		if perlInPlace(args) {
			c.sed(args)
			return
		}
		c.interpreter(name, args)
	}},
	{[]string{"awk", "gawk", "mawk", "nawk", "busybox-awk"}, func(c *command, name string, args []shellWord) { c.awk(name, args) }},
	{[]string{"sort", "shuf", "iconv"}, func(c *command, _ string, args []shellWord) {
		for _, w := range optionValues(args, "okSTtn", "o", []string{"--output"}) {
			c.a.target(w, c.cwd, OpEdit, c.text)
		}
	}},
	{[]string{"yq"}, func(c *command, _ string, args []shellWord) {
		if hasFlag(args, "-i", "--inplace") {
			for _, w := range operands(args, "") {
				c.a.target(w, c.cwd, OpEdit, c.text)
			}
		}
	}},
}

// perlInPlace reports perl -i (also in a group, -pi).
func perlInPlace(args []shellWord) bool {
	for _, w := range args {
		t := w.Text
		if t == "--" || !strings.HasPrefix(t, "-") {
			return false
		}
		if t == "-e" || t == "-E" {
			continue
		}
		if !strings.HasPrefix(t, "--") && strings.Contains(t, "i") {
			return true
		}
	}
	return false
}

// sedWrites matches a sed script that writes files or runs commands of its own (w, W
// and e commands, the w and e flags of s).
var sedWrites = lazyre.New(`(^|[;{}\n/|#,!0-9$ \t])[wWe]([ \t]|$)|(^|[/|#,])[gpiIm0-9]*[we]([ \t]|$)`)

func (c *command) sed(args []shellWord) {
	a := c.a
	inPlace, script := false, false
	var files, scripts []shellWord
	for i := 0; i < len(args); i++ {
		t := args[i].Text
		switch {
		case t == "--":
			files = append(files, args[i+1:]...)
			i = len(args)
		case t == "--in-place" || strings.HasPrefix(t, "--in-place="):
			inPlace = true
		case t == "-e" || t == "-f" || t == "--expression" || t == "--file":
			script = true
			if i+1 < len(args) && t != "-f" && t != "--file" {
				scripts = append(scripts, args[i+1])
			}
			i++
		case strings.HasPrefix(t, "--expression="):
			script = true
			scripts = append(scripts, shellWord{Text: strings.TrimPrefix(t, "--expression=")})
		case strings.HasPrefix(t, "--file="):
			script = true
		case strings.HasPrefix(t, "--"):
		case strings.HasPrefix(t, "-") && len(t) > 1:
			// Short options may be grouped (-ni); -i takes an optional suffix glued
			// to it, so nothing after the i belongs to another option.
			for k := 1; k < len(t); k++ {
				if t[k] == 'i' {
					inPlace = true
					break
				}
				if t[k] == 'e' || t[k] == 'f' {
					script = true
					if k == len(t)-1 {
						i++
						if t[k] == 'e' && i < len(args) {
							scripts = append(scripts, args[i])
						}
					}
					break
				}
			}
		default:
			files = append(files, args[i])
		}
	}
	if !script && len(files) > 0 {
		scripts = append(scripts, files[0])
		files = files[1:] // the first operand is the script
	}
	for _, s := range scripts {
		if s.Dynamic || sedWrites.MatchString(s.Text) {
			a.unknown(quoteCmd(c.text) + " may write files or run commands from its script")
			break
		}
	}
	if !inPlace {
		return
	}
	for _, w := range files {
		a.target(w, c.cwd, OpEdit, c.text)
	}
}

// awk reads awk: -i inplace edits its files; a program that redirects its output or
// runs commands is code guard does not read.
func (c *command) awk(name string, args []shellWord) {
	inPlace := false
	program := -1
	var files []shellWord
	for i := 0; i < len(args); i++ {
		t := args[i].Text
		switch {
		case t == "-i" || t == "--include":
			if i+1 < len(args) && strings.TrimSuffix(args[i+1].Text, ".awk") == "inplace" {
				inPlace = true
			}
			i++
		case strings.HasPrefix(t, "-i") && strings.TrimSuffix(t[2:], ".awk") == "inplace":
			inPlace = true
		case t == "-f" || t == "--file":
			program = len(args) // a program file guard does not read
			i++
		case t == "-v" || t == "-F" || t == "--assign" || t == "--field-separator":
			i++
		case t == "--":
		case strings.HasPrefix(t, "-") && len(t) > 1:
		case program < 0:
			program = i
		default:
			files = append(files, args[i])
		}
	}
	switch {
	case program == len(args):
		c.a.unknown(quoteCmd(c.text) + " runs an " + name + " program guard does not read")
	case program >= 0 && (args[program].Dynamic || strings.ContainsAny(args[program].Text, ">|") || strings.Contains(args[program].Text, "system")):
		c.a.unknown(quoteCmd(c.text) + " runs " + name + " code that may write files")
	}
	if inPlace {
		for _, w := range files {
			c.a.target(w, c.cwd, OpEdit, c.text)
		}
	}
}
