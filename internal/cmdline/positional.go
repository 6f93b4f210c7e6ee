package cmdline

import (
	"strings"
)

// flockCommand reads `flock FILE COMMAND...` and `flock FILE -c TEXT`: flock creates
// FILE when it is missing.
func flockCommand(r *reader, c *Command) {
	if len(r.words) == 0 {
		r.noRun = true
		return
	}
	if !isNumber(r.words[0]) { // a descriptor number locks an open file
		c.Writes = append(c.Writes, Word{r.words[0], r.at(0)})
	}
	r.words, r.base = r.words[1:], r.at(1)
	i := r.options(c)
	r.words, r.base = r.words[i:], r.at(i)
}

// chrootCommand reads `chroot NEWROOT [COMMAND...]`: the command's paths are under
// NEWROOT.
func chrootCommand(r *reader, c *Command) {
	c.Opaque = "chroot runs the command under another root folder"
	if len(r.words) > 0 {
		r.words, r.base = r.words[1:], r.at(1)
	}
}

// suCommand reads `su [-] [USER] [-c TEXT]` and `runuser -u USER COMMAND...`;
// without -c (or -u) they start an interactive shell, which runs nothing known.
func suCommand(r *reader, c *Command) {
	if r.seen["u"] || r.seen["user"] {
		return // runuser -u USER COMMAND...
	}
	if c.Shell == nil && len(r.words) > 0 && r.words[0] == "-" {
		c.Opaque = "su - runs the command in the target user's home folder"
		r.words, r.base = r.words[1:], r.at(1)
	}
	if c.Shell == nil && len(r.words) > 0 && !strings.HasPrefix(r.words[0], "-") {
		r.words, r.base = r.words[1:], r.at(1) // the user; options may follow it
		i := r.options(c)
		r.words, r.base = r.words[i:], r.at(i)
	}
	if c.Shell == nil {
		r.noRun = true
	}
	r.words = nil
}

// sgCommand reads `sg GROUP [-c] TEXT`: the text runs in a shell.
func sgCommand(r *reader, c *Command) {
	if len(r.words) == 0 {
		r.noRun = true
		return
	}
	rest := r.words[1:]
	at := r.at(1)
	if len(rest) > 0 && rest[0] == "-c" {
		rest, at = rest[1:], r.at(2)
	}
	if len(rest) == 0 {
		r.noRun = true
		return
	}
	c.Shell = &Word{strings.Join(rest, " "), at}
	r.words = nil
}

// watchCommand reads `watch [-x] COMMAND...`: without -x the words are joined and
// run by sh -c.
func watchCommand(r *reader, c *Command) {
	if len(r.words) == 0 {
		r.noRun = true
		return
	}
	if !r.seen["x"] && !r.seen["exec"] {
		c.Shell = &Word{strings.Join(r.words, " "), r.base}
		r.words = nil
	}
}

// xargsCommand reads `xargs [COMMAND...]`: the command gets more arguments from
// xargs's input; without one xargs runs echo.
func xargsCommand(r *reader, c *Command) {
	c.MoreArgs = true
	if len(r.words) == 0 {
		r.words, r.base = []string{"echo"}, -1
	}
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
