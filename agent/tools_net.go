package agent

import "strings"

// netTools are the downloaders: they write what they fetch.
var netTools = []tool{
	{[]string{"curl"}, func(c *command, _ string, args []shellWord) { c.curl(args) }},
	{[]string{"wget"}, func(c *command, _ string, args []shellWord) { c.wget(args) }},
}

// curl reads curl's outputs: -o FILE, -O (the remote name, in --output-dir or the
// current folder), --output-dir, and the files it writes headers and cookies to.
func (c *command) curl(args []shellWord) {
	a := c.a
	valued := "AbcCdDeEFHKmoPQrtTuUwxXyYz"
	outDir := optionValues(args, valued, "", []string{"--output-dir"})
	dir := c.cwd
	if len(outDir) > 0 {
		a.target(outDir[len(outDir)-1], c.cwd, OpEdit, c.text)
		if p, ok := a.resolve(outDir[len(outDir)-1], c.cwd); ok {
			dir = p
		} else {
			dir = ""
		}
	}
	for _, w := range optionValues(args, valued, "o", []string{"--output"}) {
		if w.Text != "-" {
			a.target(w, dir, OpEdit, c.text)
		}
	}
	for _, w := range optionValues(args, valued, "cD", []string{"--cookie-jar", "--dump-header", "--trace", "--trace-ascii", "--stderr", "--etag-save", "--hsts", "--alt-svc"}) {
		if w.Text != "-" {
			a.target(w, c.cwd, OpEdit, c.text)
		}
	}
	if remoteName(args) {
		if dir == "" {
			a.cannot("the folder " + quoteCmd(c.text) + " downloads into cannot be located")
			return
		}
		a.effect(Effect{Op: OpEdit, Path: dir, Command: c.text})
	}
}

// remoteName reports curl -O (also grouped, -LO) or --remote-name(-all).
func remoteName(args []shellWord) bool {
	for _, w := range args {
		t := w.Text
		switch {
		case t == "--":
			return false
		case t == "--remote-name" || t == "--remote-name-all":
			return true
		case strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--"):
			for k := 1; k < len(t); k++ {
				if t[k] == 'O' {
					return true
				}
				if strings.IndexByte("AbcCdDeEFHKmoPQrtTuUwxXyYz", t[k]) >= 0 {
					break
				}
			}
		}
	}
	return false
}

// wget reads wget's outputs: -O FILE, -o/-a log files, and by default the file it
// downloads in -P DIR or the current folder (the whole folder tree with -r or -m).
func (c *command) wget(args []shellWord) {
	a := c.a
	valued := "aABdDeiIlOoPQRtTUwX"
	for _, w := range optionValues(args, valued, "oa", []string{"--output-file", "--append-output"}) {
		a.target(w, c.cwd, OpEdit, c.text)
	}
	if hasFlag(args, "--spider") {
		return
	}
	if outs := optionValues(args, valued, "O", []string{"--output-document"}); len(outs) > 0 {
		for _, w := range outs {
			if w.Text != "-" {
				a.target(w, c.cwd, OpEdit, c.text)
			}
		}
		return
	}
	recursive := hasShort(args, 'r') || hasShort(args, 'm') || hasFlag(args, "--recursive", "--mirror")
	if dirs := optionValues(args, valued, "P", []string{"--directory-prefix"}); len(dirs) > 0 {
		a.targetDeep(dirs[len(dirs)-1], c.cwd, OpEdit, c.text, recursive)
		return
	}
	if c.cwd == "" {
		a.cannot("the folder " + quoteCmd(c.text) + " downloads into cannot be located")
		return
	}
	a.effect(Effect{Op: OpEdit, Path: c.cwd, Command: c.text, Descend: recursive})
}
