package agent

import (
	"path/filepath"
	"strings"
	"testing"
)

// FuzzNeverAllowsWhatItCannotReadNearALock: whatever the command, in a tree with a
// lock that refuses the agent, a command guard could not read (it does not parse, or
// it is past a limit) is never answered with no decision; and every effect path is
// absolute and clean.
func FuzzNeverAllowsWhatItCannotReadNearALock(f *testing.F) {
	for _, s := range []string{
		"rm -rf x", "echo $(cat <<EOF\nx\nEOF\n)", "a && b || c; d | e & f", `"unterminated`,
		"cat > f <<-X\n\tbody\n\tX\n", "sed -ie s/x/y/ f", "cp -t", "git -C", "$((1+2))", "x=$'\\n' y",
		"(cd a; (cd b; rm c)); rm d", "rm @(a|b)", "`rm x`", "dd of=*", "rm -tx", "bash <<'E'\nrm x\nE",
		"for f in a b; do rm $f; done", "rm lo{c,}ked", "echo x > lock?d/a", "(( x = 1 << 2 ))",
		"echo $(true # it's\n)", "sudo -nu root rm x", "find . -exec rm {} +", "if then fi",
		"cd -P plink/.. && echo > a", "set -o physical; cd plink/..; rm a", "CDPATH=/x:: cd y; rm z",
		"HOME=$X cd; rm y", "ln -s plink/../.. l && rm -rf l/x", "ln -sfn -t d a b c; touch d/a/x",
		"ln -s l l; echo > l/../x", "rm plink/../*/a", "export CDPATH=; cd -LP ~/x",
		"git -c core.pager=x log", "git --config-env=a=B -C locked commit -qnm x", "git config -f a set b c",
		"git grep -iO x", "GIT_DIR=locked/g git init", "git format-patch -o", "git commit -m -n -- a",
	} {
		f.Add(s)
	}
	repo := gatesTree(f)
	f.Fuzz(func(t *testing.T, cmd string) {
		a := AnalyzeBash(cmd, repo, "/h", nil)
		for _, e := range a.Effects {
			if !strings.HasPrefix(e.Path, "/") || filepath.Clean(e.Path) != e.Path {
				t.Fatalf("effect path %q from %q is not absolute and clean", e.Path, cmd)
			}
		}
		_, perr := parseShell(cmd)
		v := decideBash(t, repo, cmd, false)
		if perr != nil && v.Decision == None {
			t.Fatalf("%q does not parse (%v) and was let through near a lock: %+v", cmd, perr, v)
		}
		if len(a.Unjudged) > 0 && v.Decision == None {
			t.Fatalf("%q could not be read (%v) and was let through near a lock", cmd, a.Unjudged)
		}
	})
}

// FuzzGitOptionReaders holds the small readers of git's options to what they claim:
// -n or --no-verify is only seen where a word holds it, a value of -m is never an
// option, and no input makes them panic.
func FuzzGitOptionReaders(f *testing.F) {
	for _, s := range []string{"-n -m x", "-m -n", "-qnm x", "--no-ver", "-a -- f", "--message -n", "-Sn", "-O", "-iO", "-eO", "core.hooksPath", "alias.x", "set a.b c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		var args []shellWord
		for _, w := range strings.Fields(line) {
			args = append(args, shellWord{Text: w, GlobAt: -1})
		}
		ca := readCommit(args)
		if ca.noVerify {
			found := false
			for _, w := range args {
				found = found || strings.Contains(w.Text, "n") || strings.HasPrefix("--no-verify", w.Text)
			}
			if !found {
				t.Fatalf("readCommit(%q) saw --no-verify without -n or --no-verify", line)
			}
		}
		if len(args) == 2 && args[0].Text == "-m" && ca.noVerify {
			t.Fatalf("readCommit(%q) took -m's value for an option", line)
		}
		_ = gitGrepPager(args)
		for _, w := range args {
			_ = gitHarmlessKey(w.Text)
		}
	})
}
