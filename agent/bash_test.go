package agent

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func effectStrings(a *BashAnalysis) []string {
	var out []string
	for _, e := range a.Effects {
		s := e.Op + " " + e.Path
		if e.DryRun {
			s += " (dry run)"
		}
		out = append(out, s)
	}
	return out
}

func TestAnalyzeBashFindsObviousWriteTargets(t *testing.T) {
	cases := []struct {
		name    string
		command string
		want    []string
	}{
		{"a plain redirection writes its file", "echo hi > out.txt", []string{"edit /w/out.txt"}},
		{"an append with a descriptor writes its file", "make 2>> logs/build.log", []string{"edit /w/logs/build.log"}},
		{"a redirection to /dev/null writes nothing", "ls > /dev/null 2>&1", nil},
		{"&> writes its file", "run &>all.log", []string{"edit /w/all.log"}},
		{"an input redirection reads only", "wc -l < in.txt", nil},
		{"rm names every operand", "rm -rf build dist/", []string{"edit /w/build", "edit /w/dist"}},
		{"rm after -- takes dashed names", "rm -- -weird", []string{"edit /w/-weird"}},
		{"mv writes its sources and its destination", "mv a.txt sub/b.txt", []string{"edit /w/a.txt", "edit /w/sub/b.txt"}},
		{"cp writes only its destination", "cp -r src/ /tmp/copy", []string{"edit /tmp/copy"}},
		{"cp -t names the destination directory", "cp -t out a b", []string{"edit /w/out"}},
		{"tee writes each file", "echo x | tee -a one two", []string{"edit /w/one", "edit /w/two"}},
		{"sed -i edits its files but not its script", "sed -i 's/a/b/' f1 f2", []string{"edit /w/f1", "edit /w/f2"}},
		{"sed -i.bak with -e edits every operand", "sed -i.bak -e s/a/b/ f1", []string{"edit /w/f1"}},
		{"sed without -i writes nothing", "sed 's/a/b/' f1", nil},
		{"touch and mkdir create", "touch a && mkdir -p -m 755 d/e", []string{"edit /w/a", "edit /w/d/e"}},
		{"dd of= writes", "dd if=/dev/zero of=disk.img bs=1M", []string{"edit /w/disk.img"}},
		{"quotes are removed from targets", `rm "my file" 'other file'`, []string{"edit /w/my file", "edit /w/other file"}},
		{"an escaped space stays in the word", `touch a\ b`, []string{"edit /w/a b"}},
		{"cd changes the directory of later commands", "cd sub && rm x", []string{"edit /w/sub/x"}},
		{"install -d creates each directory", "install -d -m 755 locked/dir other", []string{"edit /w/locked/dir", "edit /w/other"}},
		{"perl -i edits its files in place", "perl -pi -e 's/a/b/' locked/f", []string{"edit /w/locked/f"}},
		{"perl without -i writes nothing", "perl -ne 'print' locked/f", nil},
		{"a function declared with the function keyword is read", "function f { rm locked/f; }; f", []string{"edit /w/locked/f"}},
		{"curl -o writes its output file", "curl -fsSL -o locked/tool.tgz https://example.com/t.tgz", []string{"edit /w/locked/tool.tgz"}},
		{"curl --output= writes its output file", "curl --output=locked/a https://x", []string{"edit /w/locked/a"}},
		{"curl without -o writes nothing", "curl -fsS https://example.com", nil},
		{"wget -O writes its output file", "wget -q -O locked/f https://x", []string{"edit /w/locked/f"}},
		{"wget -P writes into its folder", "wget --directory-prefix=locked https://x/f", []string{"edit /w/locked"}},
		{"env -C runs the command in that directory", "env -C locked rm file; rm x", []string{"edit /w/locked/file", "edit /w/x"}},
		{"env --chdir= runs the command in that directory", "env --chdir=locked touch file", []string{"edit /w/locked/file"}},
		{"sudo -D runs the command in that directory", "sudo -D locked rm file", []string{"edit /w/locked/file"}},
		{"sudo --user NAME still runs the command after it", "sudo --user root rm locked/f", []string{"edit /w/locked/f"}},
		{"env -S splits its string into the command", "env -S 'rm locked/f'", []string{"edit /w/locked/f"}},
		{"time -p still runs the command after it", "time -p rm locked/f", []string{"edit /w/locked/f"}},
		{"coproc runs the command after it", "coproc rm locked/f", []string{"edit /w/locked/f"}},
		{"git --work-tree changes the tree a checkout writes", "git --git-dir=.git --work-tree=locked checkout .", []string{"edit /w/locked"}},
		{"git --work-tree DIR changes the tree too", "git --work-tree locked reset --hard", []string{"edit /w/locked"}},
		{"cd in a subshell does not leak", "(cd sub && make) ; rm x", []string{"edit /w/x"}},
		{"absolute paths stay absolute", "rm /etc/hosts", []string{"edit /etc/hosts"}},
		{"a tilde expands to home", "rm ~/notes.txt", []string{"edit /home/u/notes.txt"}},
		{"a glob targets the directory of its literal prefix", "rm -f locked/*.o", []string{"edit /w/locked"}},
		{"a bare glob targets the current directory", "rm *", []string{"edit /w"}},
		{"git commit is a commit in the current directory", "git add -A && git commit -m 'x'", []string{"commit /w"}},
		{"git -C changes the repository", "git -C ../other push origin main", []string{"push /other"}},
		{"git push --tags is also a release-tag", "git push --follow-tags", []string{"push /w", "release-tag /w"}},
		{"git rm edits its operands", "git rm -r --cached old", []string{"edit /w/old"}},
		{"git checkout -- edits the named paths", "git checkout -- a.go", []string{"edit /w/a.go"}},
		{"git reset --hard edits the tree", "git reset --hard HEAD~1", []string{"edit /w"}},
		{"git checkout -b only creates a branch", "git checkout -b feature", nil},
		{"git checkout of a branch changes the tree", "git checkout main", []string{"edit /w"}},
		{"git reset without --hard touches only the index", "git reset HEAD a.go", nil},
		{"git restore --staged touches only the index", "git restore --staged a.go", nil},
		{"git stash list changes nothing", "git stash list", nil},
		{"git clean -n is a dry run", "git clean -nd", nil},
		{"git clean -fd removes untracked files", "git clean -fd", []string{"edit /w"}},
		{"find -delete removes below its roots", "find build dist -name '*.o' -delete", []string{"edit /w/build", "edit /w/dist"}},
		{"find without -delete writes nothing", "find . -name '*.go'", nil},
		{"sudo and env prefixes are skipped", "sudo -u root env A=1 rm x", []string{"edit /w/x"}},
		{"assignments before a command are skipped", "FOO=bar rm x", []string{"edit /w/x"}},
		{"bash -c is read as a script", `bash -c "rm -f inner"`, []string{"edit /w/inner"}},
		{"a command substitution runs too", `echo $(rm sub)`, []string{"edit /w/sub"}},
		{"a here-document body is data", "cat > f.txt <<'EOF'\nrm everything\nEOF\nrm after", []string{"edit /w/f.txt", "edit /w/after"}},
		{"apply_patch from a here-document writes the files its patch names", "apply_patch <<'PATCH'\n*** Begin Patch\n*** Update File: src/a.go\n@@\n-x\n+y\n*** End Patch\nPATCH", []string{"edit /w/src/a.go"}},
		{"a comment is not a command", "ls # rm x", nil},
		{"newlines separate commands", "true\nrm y", []string{"edit /w/y"}},
		{"|| and ; separate commands", "false || rm a; rm b", []string{"edit /w/a", "edit /w/b"}},
		{"a keyword before a command is skipped", "if true; then rm a; fi", []string{"edit /w/a"}},
		{"a read-only command has no effect", "ls -la && cat README.md | grep x", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := AnalyzeBash(tc.command, "/w", "/home/u", nil)
			assert.Equal(t, tc.want, effectStrings(got), "unjudged: %v", got.Unjudged)
		})
	}
}

func TestAnalyzeBashLeavesWhatItCannotReadUnjudged(t *testing.T) {
	cases := []struct {
		name    string
		command string
		note    string
	}{
		{"a variable target", "rm $TARGET", "only known when it runs"},
		{"a substituted target", "rm \"$(cat list)\"", "only known when it runs"},
		{"eval", "eval \"$cmd\"", "only known when it runs"},
		{"xargs", "find . -name x | xargs rm", "arguments only known when it runs"},
		{"an unterminated quote", "rm 'oops", "cannot read the command"},
		{"a relative target after cd -", "cd - && rm x", "cannot be located"},
		{"a dynamic command name", "$EDITOR file", "command name"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := AnalyzeBash(tc.command, "/w", "/home/u", nil)
			require.NotEmpty(t, got.Unjudged)
			assert.Contains(t, strings.Join(got.Unjudged, "\n"), tc.note)
		})
	}
}

func TestAnalyzeBashAsksTheClassifierAboutEverySimpleCommand(t *testing.T) {
	var seen [][]string
	classify := func(args []string, dir string) (string, []string, bool, error) {
		seen = append(seen, args)
		if args[0] == "npm" && len(args) > 1 && args[1] == "publish" {
			return "registry-upload", nil, strings.Contains(strings.Join(args, " "), "--dry-run"), nil
		}
		return "", nil, false, nil
	}
	got := AnalyzeBash("cd pkg && npm publish --dry-run; /usr/bin/npm publish", "/w", "", classify)
	assert.Equal(t, []string{"registry-upload /w/pkg (dry run)", "registry-upload /w/pkg"}, effectStrings(got))
	assert.Equal(t, [][]string{{"cd", "pkg"}, {"npm", "publish", "--dry-run"}, {"npm", "publish"}}, seen)
	assert.Equal(t, []Segment{{"cd pkg", "/w", "cd pkg"}, {"npm publish --dry-run", "/w/pkg", "npm publish --dry-run"}, {"/usr/bin/npm publish", "/w/pkg", "/usr/bin/npm publish"}}, got.Segments)
	got = AnalyzeBash("FOO=1 sudo -u root rm x", "/w", "", nil)
	assert.Equal(t, []Segment{{"rm x", "/w", "FOO=1 sudo -u root rm x"}}, got.Segments)
}

func TestAnalyzeBashSaysWhenItCannotTellWhetherACommandPublishes(t *testing.T) {
	broken := func([]string, string) (string, []string, bool, error) {
		return "", nil, false, errors.New("/w/.guard.toml:2: bad value")
	}
	a := AnalyzeBash("npm publish", "/w", "/home/u", broken)
	assert.Empty(t, a.Effects)
	assert.Equal(t, []string{"whether `npm publish` publishes: /w/.guard.toml:2: bad value"}, a.Unjudged)
}
