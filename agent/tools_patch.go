package agent

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// patchTools apply patches: they edit the files the patch names.
var patchTools = []tool{
	{[]string{"apply_patch", "applypatch"}, func(c *command, _ string, _ []shellWord) {
		// Codex's patch tool run from the shell, the patch in a here-document.
		text, ok := c.stdinText()
		if !ok {
			c.a.cannot(quoteCmd(c.text) + " reads its patch from somewhere guard cannot see")
			return
		}
		c.patchPaths(text, -1)
	}},
	{[]string{"patch"}, func(c *command, _ string, args []shellWord) { c.patch(args) }},
}

// patch reads patch: it edits the files its patch names (read from -i FILE, the
// second operand, or its input), or the file given as the first operand, or -o FILE.
func (c *command) patch(args []shellWord) {
	a := c.a
	dir := c.cwd
	strip := -1
	var patchFile *shellWord
	var ops []shellWord
	for i := 0; i < len(args); i++ {
		t := args[i].Text
		val := func(short, long string) (shellWord, bool) {
			switch {
			case t == short || t == long:
				if i+1 < len(args) {
					i++
					return args[i], true
				}
			case strings.HasPrefix(t, long+"="):
				return trimWord(args[i], len(long)+1, t[len(long)+1:]), true
			case len(t) > 2 && strings.HasPrefix(t, short):
				return trimWord(args[i], 2, t[2:]), true
			}
			return shellWord{}, false
		}
		if w, ok := val("-d", "--directory"); ok {
			dir = a.chdir(w, c.cwd)
			continue
		}
		if w, ok := val("-p", "--strip"); ok {
			if n, err := strconv.Atoi(w.Text); err == nil {
				strip = n
			}
			continue
		}
		if w, ok := val("-i", "--input"); ok {
			patchFile = &w
			continue
		}
		if w, ok := val("-o", "--output"); ok {
			a.target(w, dir, OpEdit, c.text)
			continue
		}
		if w, ok := val("-r", "--reject-file"); ok {
			a.target(w, dir, OpEdit, c.text)
			continue
		}
		if _, ok := val("-B", "--prefix"); ok {
			continue
		}
		if _, ok := val("-z", "--suffix"); ok {
			continue
		}
		if _, ok := val("-F", "--fuzz"); ok {
			continue
		}
		switch {
		case t == "--dry-run" || t == "-C" || t == "--check":
			return
		case strings.HasPrefix(t, "-") && len(t) > 1:
		default:
			ops = append(ops, args[i])
		}
	}
	if len(ops) > 0 {
		a.target(ops[0], dir, OpEdit, c.text)
		if len(ops) > 1 && patchFile == nil {
			patchFile = &ops[1]
		} else {
			return
		}
	}
	save := c.cwd
	c.cwd = dir
	defer func() { c.cwd = save }()
	c.patchFrom(patchFile, strip)
}

// patchFrom reads the patch text (a file, else the command's input) and records the
// files it names.
func (c *command) patchFrom(file *shellWord, strip int) {
	a := c.a
	if c.cwd == "" {
		a.cannot("the files " + quoteCmd(c.text) + " patches cannot be located")
		return
	}
	var text string
	switch {
	case file != nil:
		p, ok := a.resolve(*file, c.cwd)
		if !ok || file.Glob {
			a.cannot("the patch " + quoteCmd(c.text) + " applies is only known when it runs")
			return
		}
		data, err := os.ReadFile(p)
		if err != nil {
			a.cannot("guard cannot read the patch of " + quoteCmd(c.text) + ": " + err.Error())
			return
		}
		text = string(data)
	default:
		t, ok := c.stdinText()
		if !ok && c.stdinFile() {
			for _, r := range c.stmt.Redirs {
				if r.Op.String() == "<" {
					ws := a.words([]*syntax.Word{r.Word}, c.cwd, c.depth)
					if len(ws) == 1 {
						w := ws[0]
						c.patchFrom(&w, strip)
					}
					return
				}
			}
		}
		if !ok {
			a.cannot(quoteCmd(c.text) + " reads its patch from somewhere guard cannot see")
			return
		}
		text = t
	}
	c.patchPaths(text, strip)
}

// patchPaths records the files a patch names: apply_patch's `*** ... File:` lines and
// unified or context diff headers, with strip leading components removed (-1: every
// strip level, as patch may guess one).
func (c *command) patchPaths(text string, strip int) {
	for _, p := range PatchPaths(text, c.cwd) {
		c.a.effect(Effect{Op: OpEdit, Path: p, Command: c.text})
	}
	for _, line := range strings.Split(text, "\n") {
		var name string
		switch {
		case strings.HasPrefix(line, "+++ "), strings.HasPrefix(line, "--- "), strings.HasPrefix(line, "*** "):
			name = strings.TrimSpace(line[4:])
		case strings.HasPrefix(line, "diff --git "):
			// Renames and new files name both sides here.
			for _, f := range strings.Fields(line)[2:] {
				c.patchName(f, strip)
			}
			continue
		default:
			continue
		}
		if i := strings.IndexByte(name, '\t'); i >= 0 {
			name = name[:i]
		}
		if name == "/dev/null" || name == "" || strings.HasPrefix(name, "*** ") || strings.HasPrefix(name, "Begin Patch") || strings.HasPrefix(name, "End Patch") || strings.Contains(name, " File: ") || strings.HasPrefix(name, "Add File") || strings.HasPrefix(name, "Update File") || strings.HasPrefix(name, "Delete File") || strings.HasPrefix(name, "Move to") {
			continue
		}
		c.patchName(name, strip)
	}
}

func (c *command) patchName(name string, strip int) {
	parts := strings.Split(filepath.ToSlash(name), "/")
	levels := []int{strip}
	if strip < 0 {
		levels = nil
		for k := 0; k < len(parts); k++ {
			levels = append(levels, k)
		}
	}
	for _, k := range levels {
		if k >= len(parts) {
			continue
		}
		rel := strings.Join(parts[k:], "/")
		if filepath.IsAbs(name) && k == 0 {
			rel = name
		}
		// Where the kernel reaches it (a/link/../b is above where link points).
		p, ok := c.a.resolvePath(rel, c.cwd)
		if !ok {
			p = filepath.Join(c.cwd, rel)
		}
		c.a.effect(Effect{Op: OpEdit, Path: p, Command: c.text})
	}
}
