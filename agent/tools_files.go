package agent

import (
	"os"
	"path/filepath"
	"strings"
)

// fileTools are the programs that write the files and folders they are given.
var fileTools = []tool{
	{[]string{"rm"}, func(c *command, _ string, args []shellWord) {
		for _, w := range operands(args, "") {
			c.a.deepTarget(w, c.cwd, c.text)
		}
	}},
	{[]string{"rmdir", "unlink", "touch", "mkdir", "shred", "mkfifo", "mknod"}, func(c *command, name string, args []shellWord) {
		for _, w := range operands(args, optionArgs[name]) {
			c.a.target(w, c.cwd, OpEdit, c.text)
		}
	}},
	{[]string{"truncate"}, func(c *command, _ string, args []shellWord) {
		for _, w := range operands(args, "sr") {
			c.a.target(w, c.cwd, OpEdit, c.text)
		}
	}},
	{[]string{"mv"}, func(c *command, _ string, args []shellWord) {
		// The sources disappear and the destination changes: all are written.
		ops, dest := operandsWithTarget(args, "tS")
		for _, w := range ops {
			c.a.deepTarget(w, c.cwd, c.text)
		}
		if dest != nil {
			c.a.target(*dest, c.cwd, OpEdit, c.text)
		}
	}},
	{[]string{"cp", "ln", "install", "rsync", "scp"}, func(c *command, name string, args []shellWord) {
		c.copy(name, args)
		if name == "ln" {
			c.addLinks(args) // after the link's own write is judged
		}
	}},
	{[]string{"tee", "sudoedit"}, func(c *command, _ string, args []shellWord) {
		for _, w := range operands(args, "") {
			c.a.target(w, c.cwd, OpEdit, c.text)
		}
	}},
	{[]string{"chmod", "chown", "chgrp", "chattr", "setfacl", "chcon"}, func(c *command, _ string, args []shellWord) {
		c.chmod(args)
	}},
	{[]string{"dd"}, func(c *command, _ string, args []shellWord) {
		for _, w := range args {
			if rest, ok := strings.CutPrefix(w.Text, "of="); ok {
				c.a.target(trimWord(w, len("of="), rest), c.cwd, OpEdit, c.text)
			}
		}
	}},
	{[]string{"split", "csplit"}, func(c *command, _ string, args []shellWord) {
		// They write their pieces next to the prefix, in the current folder by default.
		ops := operands(args, "abCdlnt")
		if len(ops) >= 2 {
			c.a.target(ops[len(ops)-1], c.cwd, OpEdit, c.text)
		} else {
			c.inCwd()
		}
	}},
}

// copy reads cp, ln, install, rsync and scp: they write their destination; a
// recursive copy of a folder's contents (SRC/. or rsync's SRC/) writes each of its
// entries' names in the destination, and --delete removes what is not in the source.
func (c *command) copy(name string, args []shellWord) {
	a := c.a
	ops, dest := operandsWithTarget(args, optionArgs[name])
	if name == "install" && installsDirectories(args) {
		for _, w := range ops {
			a.target(w, c.cwd, OpEdit, c.text)
		}
		return
	}
	var srcs []shellWord
	switch {
	case dest != nil:
		srcs = ops
	case len(ops) >= 2:
		srcs, dest = ops[:len(ops)-1], &ops[len(ops)-1]
	default:
		return
	}
	if name == "scp" && strings.Contains(dest.Text, ":") && !strings.HasPrefix(dest.Text, "/") && !strings.HasPrefix(dest.Text, ".") {
		return // host:path is another machine
	}
	recursive := hasShort(args, 'r') || hasShort(args, 'R') || hasShort(args, 'a') || hasFlag(args, "--recursive", "--archive")
	if hasFlag(args, "--delete", "--delete-before", "--delete-after", "--delete-during", "--delete-delay", "--delete-excluded", "--del") {
		a.deepTarget(*dest, c.cwd, c.text)
		return
	}
	a.target(*dest, c.cwd, OpEdit, c.text)
	if !recursive || dest.Dynamic || dest.Glob {
		return
	}
	d, ok := a.resolve(*dest, c.cwd)
	if !ok {
		return
	}
	for _, s := range srcs {
		src, ok := a.resolve(s, c.cwd)
		if s.Dynamic || s.Glob || !ok {
			continue
		}
		contents := strings.HasSuffix(s.Text, "/.") || name == "rsync" && strings.HasSuffix(s.Text, "/")
		if !contents {
			if st, err := os.Stat(d); err == nil && st.IsDir() {
				a.effect(Effect{Op: OpEdit, Path: filepath.Join(d, filepath.Base(src)), Command: c.text, Descend: true})
			}
			continue
		}
		entries, err := os.ReadDir(src)
		if err != nil {
			a.deepTarget(*dest, c.cwd, c.text)
			continue
		}
		for _, e := range entries {
			a.effect(Effect{Op: OpEdit, Path: filepath.Join(d, e.Name()), Command: c.text, Descend: true})
		}
	}
}

// chmod reads chmod, chown, chgrp and the like: the first operand is the mode or
// owner (unless --reference gives it); -R reaches into folders.
func (c *command) chmod(args []shellWord) {
	recursive := hasShort(args, 'R') || hasFlag(args, "--recursive")
	ops := operands(args, "")
	if !hasFlag(args, "--reference") && len(ops) > 0 {
		ops = ops[1:]
	}
	for _, w := range ops {
		c.a.targetDeep(w, c.cwd, OpEdit, c.text, recursive)
	}
}
