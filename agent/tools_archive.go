package agent

import "strings"

// archiveTools are the archivers and compressors: they write the archive, or what
// they extract.
var archiveTools = []tool{
	{[]string{"tar", "bsdtar", "gtar"}, func(c *command, _ string, args []shellWord) { c.tar(args) }},
	{[]string{"unzip"}, func(c *command, _ string, args []shellWord) { c.unzip(args) }},
	{[]string{"7z", "7za", "7zr"}, func(c *command, _ string, args []shellWord) { c.sevenZip(args) }},
	{[]string{"ar"}, func(c *command, _ string, args []shellWord) {
		if len(args) > 0 && strings.ContainsAny(strings.TrimPrefix(args[0].Text, "-"), "x") {
			c.a.effect(Effect{Op: OpEdit, Path: c.cwd, Command: c.text, Descend: true})
		} else if ops := operands(args, ""); len(ops) > 1 && strings.ContainsAny(args[0].Text, "rqdm") {
			c.a.target(ops[1], c.cwd, OpEdit, c.text)
		}
	}},
	{[]string{"cpio"}, func(c *command, _ string, args []shellWord) { c.cpio(args) }},
	{[]string{"gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "lzma", "unlzma", "zstd", "unzstd",
		"lz4", "unlz4", "compress", "uncompress", "pigz", "unpigz", "lzip", "brotli"}, func(c *command, _ string, args []shellWord) {
		c.compress(args)
	}},
}

// tar reads tar: extracting writes anything below -C DIR (or the current folder);
// creating or updating writes the archive.
func (c *command) tar(args []shellWord) {
	a := c.a
	mode := ""
	var file, dir *shellWord
	toStdout := false
	// The first word may be a bundle of letters without a dash (tar xzf a.tgz): its
	// value letters take the next words in order.
	i := 0
	takeValues := func(letters string) {
		for _, l := range letters {
			switch l {
			case 'x', 'c', 'r', 'u', 't', 'd', 'A':
				if mode == "" || l != 't' {
					mode = string(l)
				}
			case 'O':
				toStdout = true
			case 'f', 'C', 'b', 'g', 'H', 'K', 'L', 'N', 'T', 'V', 'X':
				if i+1 < len(args) {
					i++
					w := args[i]
					switch l {
					case 'f':
						file = &w
					case 'C':
						dir = &w
					}
				}
			}
		}
	}
	if len(args) > 0 && !strings.HasPrefix(args[0].Text, "-") {
		takeValues(args[0].Text)
		i++
	}
	for ; i < len(args); i++ {
		t := args[i].Text
		switch {
		case t == "--extract" || t == "--get":
			mode = "x"
		case t == "--create":
			mode = "c"
		case t == "--append" || t == "--update" || t == "--concatenate" || t == "--delete":
			mode = "u"
		case t == "--to-stdout" || t == "--to-command" || strings.HasPrefix(t, "--to-command="):
			toStdout = true
		case t == "--directory" || t == "--file":
			if i+1 < len(args) {
				w := args[i+1]
				if t == "--file" {
					file = &w
				} else {
					dir = &w
				}
				i++
			}
		case strings.HasPrefix(t, "--directory="):
			w := trimWord(args[i], len("--directory="), strings.TrimPrefix(t, "--directory="))
			dir = &w
		case strings.HasPrefix(t, "--file="):
			w := trimWord(args[i], len("--file="), strings.TrimPrefix(t, "--file="))
			file = &w
		case strings.HasPrefix(t, "--"):
		case strings.HasPrefix(t, "-") && len(t) > 1:
			// -xzf FILE, -C DIR, -CDIR.
			letters := t[1:]
			if k := strings.IndexAny(letters, "fC"); k >= 0 && k+1 < len(letters) {
				w := trimWord(args[i], k+2, letters[k+1:])
				if letters[k] == 'f' {
					file = &w
				} else {
					dir = &w
				}
				letters = letters[:k]
			}
			takeValues(letters)
		}
	}
	switch mode {
	case "x":
		if toStdout {
			return
		}
		if dir != nil {
			a.deepTarget(*dir, c.cwd, c.text)
			return
		}
		if c.cwd == "" {
			a.cannot("the folder " + quoteCmd(c.text) + " extracts into cannot be located")
			return
		}
		a.effect(Effect{Op: OpEdit, Path: c.cwd, Command: c.text, Descend: true})
	case "c", "r", "u", "A", "d":
		if file != nil && file.Text != "-" {
			a.target(*file, c.cwd, OpEdit, c.text)
		}
	}
}

// unzip reads unzip: it extracts into -d DIR or the current folder (listing and
// testing write nothing).
func (c *command) unzip(args []shellWord) {
	for _, w := range args {
		switch w.Text {
		case "-l", "-t", "-v", "-p", "-z", "-Z", "-c":
			return
		}
	}
	if dirs := optionValues(args, "dxP", "d", nil); len(dirs) > 0 {
		c.a.deepTarget(dirs[len(dirs)-1], c.cwd, c.text)
		return
	}
	if c.cwd == "" {
		c.a.cannot("the folder " + quoteCmd(c.text) + " extracts into cannot be located")
		return
	}
	c.a.effect(Effect{Op: OpEdit, Path: c.cwd, Command: c.text, Descend: true})
}

// sevenZip reads 7z x/e (extract into -oDIR or the current folder) and a/u/d (write
// the archive).
func (c *command) sevenZip(args []shellWord) {
	ops := operands(args, "")
	if len(ops) == 0 {
		return
	}
	switch ops[0].Text {
	case "x", "e":
		for _, w := range args {
			if rest, ok := strings.CutPrefix(w.Text, "-o"); ok && rest != "" {
				c.a.deepTarget(trimWord(w, 2, rest), c.cwd, c.text)
				return
			}
		}
		if c.cwd != "" {
			c.a.effect(Effect{Op: OpEdit, Path: c.cwd, Command: c.text, Descend: true})
		}
	case "a", "u", "d", "rn":
		if len(ops) > 1 {
			c.a.target(ops[1], c.cwd, OpEdit, c.text)
		}
	}
}

// cpio reads cpio -i (extracts into the current folder) and -p DIR (copies into DIR).
func (c *command) cpio(args []shellWord) {
	ops := operands(args, "")
	switch {
	case hasShort(args, 'i') || hasFlag(args, "--extract"):
		if dirs := optionValues(args, "DEFHIMORs", "D", []string{"--directory"}); len(dirs) > 0 {
			c.a.deepTarget(dirs[len(dirs)-1], c.cwd, c.text)
		} else if c.cwd != "" {
			c.a.effect(Effect{Op: OpEdit, Path: c.cwd, Command: c.text, Descend: true})
		}
	case hasShort(args, 'p') || hasFlag(args, "--pass-through"):
		if len(ops) > 0 {
			c.a.deepTarget(ops[len(ops)-1], c.cwd, c.text)
		}
	case hasShort(args, 'o'):
		for _, w := range optionValues(args, "FHMORs", "FO", []string{"--file"}) {
			c.a.target(w, c.cwd, OpEdit, c.text)
		}
	}
}

// compress reads gzip and its kin: each file is replaced by its (de)compressed
// version next to it; -c writes to stdout; -r reaches into folders.
func (c *command) compress(args []shellWord) {
	for _, w := range args {
		switch w.Text {
		case "-c", "--stdout", "--to-stdout", "-l", "--list", "-t", "--test", "-h", "--help", "-V", "--version":
			return
		}
		if strings.HasPrefix(w.Text, "-") && !strings.HasPrefix(w.Text, "--") && strings.ContainsAny(w.Text[1:], "ctl") && !strings.ContainsAny(w.Text[1:], "S") {
			return
		}
	}
	recursive := hasShort(args, 'r') || hasFlag(args, "--recursive")
	for _, w := range operands(args, "SbLTM") {
		c.a.targetDeep(w, c.cwd, OpEdit, c.text, recursive)
	}
	for _, w := range optionValues(args, "o", "o", []string{"--output"}) {
		c.a.target(w, c.cwd, OpEdit, c.text)
	}
}
