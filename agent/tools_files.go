package agent

import (
	"os"
	"path/filepath"
	"strings"
)

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
