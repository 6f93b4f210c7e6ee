package agent

import "strings"

// Reading programs' options: operands, option values, grouped short options.

// optionValues returns the values of the short options in targets (alone, last in a
// group such as -fsSLo, or glued: -oFILE) and of the long options in longs (--name
// VALUE, --name=VALUE). valued lists every short option that takes an argument, so
// that a group is read where its argument starts.
func optionValues(args []shellWord, valued, targets string, longs []string) []shellWord {
	var out []shellWord
	for i := 0; i < len(args); i++ {
		w := args[i]
		t := w.Text
		switch {
		case t == "--":
			return out
		case strings.HasPrefix(t, "--"):
			for _, l := range longs {
				if v, ok := strings.CutPrefix(t, l+"="); ok {
					out = append(out, trimWord(w, len(l)+1, v))
				} else if t == l && i+1 < len(args) {
					out = append(out, args[i+1])
					i++
				}
			}
		case strings.HasPrefix(t, "-") && len(t) > 1:
			var letter byte
			var val *shellWord
			letter, val, i = shortValue(args, i, valued)
			if val != nil && strings.IndexByte(targets, letter) >= 0 {
				out = append(out, *val)
			}
		}
	}
	return out
}

// shortValue reads the short-option group args[i] (-abc): the first letter listed in
// valued takes the rest of the group (-oFILE), else the next word, as its value. It
// returns that letter (0 when none), its value (nil when there is none) and the index
// of the last word read.
func shortValue(args []shellWord, i int, valued string) (byte, *shellWord, int) {
	t := args[i].Text
	for k := 1; k < len(t); k++ {
		if strings.IndexByte(valued, t[k]) < 0 {
			continue
		}
		switch {
		case k+1 < len(t):
			val := trimWord(args[i], k+1, t[k+1:])
			return t[k], &val, i
		case i+1 < len(args):
			val := args[i+1]
			return t[k], &val, i + 1
		}
		return t[k], nil, i
	}
	return 0, nil, i
}

// installsDirectories reports install -d (--directory): every operand is a directory
// it creates.
func installsDirectories(args []shellWord) bool {
	for _, w := range args {
		t := w.Text
		switch {
		case t == "--":
			return false
		case t == "--directory":
			return true
		case strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--"):
			// -d alone or in a group (-Dd); after a letter that takes a value the
			// rest of the group is that value (-mdd is the mode "dd").
			for k := 1; k < len(t); k++ {
				if t[k] == 'd' {
					return true
				}
				if strings.IndexByte(optionArgs["install"], t[k]) >= 0 {
					break
				}
			}
		}
	}
	return false
}

// optionArgs lists, per command, the short options that take an argument.
var optionArgs = map[string]string{
	"mkdir": "mZ", "install": "gmoStZ", "cp": "tS", "ln": "tS", "rsync": "efT", "scp": "cFiJloPS",
	"mknod": "mZ", "mkfifo": "mZ", "shred": "ns",
}

// operands returns the non-option arguments, skipping the arguments of the short
// options listed in withArg; everything after -- is an operand.
func operands(args []shellWord, withArg string) []shellWord {
	ops, dest := operandsWithTarget(args, withArg)
	if dest != nil {
		ops = append(ops, *dest)
	}
	return ops
}

// operandsWithTarget is operands, also returning the directory given with -t DIR
// (--target-directory=DIR), which cp, mv, ln and install write into.
func operandsWithTarget(args []shellWord, withArg string) (ops []shellWord, dest *shellWord) {
	for i := 0; i < len(args); i++ {
		t := args[i].Text
		switch {
		case t == "--":
			return append(ops, args[i+1:]...), dest
		case strings.HasPrefix(t, "--target-directory="):
			w := trimWord(args[i], len("--target-directory="), strings.TrimPrefix(t, "--target-directory="))
			dest = &w
		case t == "--target-directory" && i+1 < len(args):
			w := args[i+1]
			dest = &w
			i++
		case strings.HasPrefix(t, "--"):
		case strings.HasPrefix(t, "-") && len(t) > 1 && !args[i].Dynamic:
			// The last letter of a group may take the next word as its argument;
			// an argument glued to its letter (-tDIR) needs no next word.
			var letter byte
			var val *shellWord
			if letter, val, i = shortValue(args, i, withArg); letter == 't' {
				if val == nil {
					val = &shellWord{}
				}
				dest = val
			}
		default:
			ops = append(ops, args[i])
		}
	}
	return ops, dest
}

func indexWord(words []shellWord, t string) int {
	for i, w := range words {
		if w.Text == t && !w.Dynamic {
			return i
		}
	}
	return -1
}
