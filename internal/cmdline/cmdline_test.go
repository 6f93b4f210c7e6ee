package cmdline

import (
	"strings"
	"testing"
)

func TestUnwrapSeesThroughWrappers(t *testing.T) {
	cases := []struct {
		line string
		// want is the real command; dirs, writes and shell what the wrappers add.
		want   string
		at     int
		dirs   string
		writes string
		shell  string
		more   bool
		opaque bool
	}{
		{line: "rm -rf x", want: "rm -rf x"},
		{line: "A=1 B=2 rm x", want: "rm x", at: 2},
		{line: "/usr/bin/env rm x", want: "rm x", at: 1},
		{line: "env -i A=1 -- rm x", want: "rm x", at: 4},
		{line: "env -u HOME -C sub rm x", want: "rm x", at: 5, dirs: "sub"},
		{line: "env --chdir=sub rm x", want: "rm x", at: 2, dirs: "sub"},
		{line: "env -S 'rm -rf x' y", want: "rm -rf x y", at: -1},
		{line: "env --split-string=\"rm 'a b'\"", want: "rm a b", at: -1},
		{line: "sudo -nu root rm x", want: "rm x", at: 3},
		{line: "sudo -u root -- rm x", want: "rm x", at: 4},
		{line: "sudo --user=root -D /tmp rm x", want: "rm x", at: 4, dirs: "/tmp"},
		{line: "sudo --us root rm x", want: "rm x", at: 3},
		{line: "sudo -Dsub rm x", want: "rm x", at: 2, dirs: "sub"},
		{line: "sudo -i rm x", want: "rm x", at: 2, opaque: true},
		{line: "sudo -e /etc/hosts", want: "sudoedit /etc/hosts", at: -1},
		{line: "sudo -v", want: ""},
		{line: "doas -u root rm x", want: "rm x", at: 3},
		{line: "timeout --signal KILL 5 rm x", want: "rm x", at: 4},
		{line: "timeout -s9 -k 1 5s rm x", want: "rm x", at: 5},
		{line: "timeout --kill-after=1 --preserve-status 5 rm x", want: "rm x", at: 4},
		{line: "nice --adjustment 5 rm x", want: "rm x", at: 3},
		{line: "nice --adj=5 rm x", want: "rm x", at: 2},
		{line: "nice -n5 rm x", want: "rm x", at: 2},
		{line: "nice -5 rm x", want: "rm x", at: 2},
		{line: "ionice -c 3 rm x", want: "rm x", at: 3},
		{line: "nohup rm x", want: "rm x", at: 1},
		{line: "setsid -f rm x", want: "rm x", at: 2},
		{line: "stdbuf -oL -e 0 rm x", want: "rm x", at: 4},
		{line: "time -o t.log rm x", want: "rm x", at: 3, writes: "t.log"},
		{line: "/usr/bin/time -v rm x", want: "rm x", at: 2},
		{line: "command rm x", want: "rm x", at: 1},
		{line: "command -v rm", want: ""},
		{line: "exec -a name rm x", want: "rm x", at: 3},
		{line: "busybox rm x", want: "rm x", at: 1},
		{line: "chrt -f 10 rm x", want: "rm x", at: 3},
		{line: "chrt -p 10 1234", want: ""},
		{line: "taskset -c 0,1 rm x", want: "rm x", at: 3},
		{line: "flock /tmp/l rm x", want: "rm x", at: 2, writes: "/tmp/l"},
		{line: "flock -w 5 /tmp/l -c 'rm x'", shell: "rm x", writes: "/tmp/l"},
		{line: "flock 9 rm x", want: "rm x", at: 2},
		{line: "su -c 'rm x' root", shell: "rm x"},
		{line: "su root -c 'rm x'", shell: "rm x"},
		{line: "su - root", want: "", opaque: true},
		{line: "runuser -u bob -- rm x", want: "rm x", at: 4},
		{line: "sg staff -c 'rm x'", shell: "rm x"},
		{line: "watch -n 1 rm x", shell: "rm x"},
		{line: "watch -x rm x", want: "rm x", at: 2},
		{line: "xargs -0 -n1 rm -f", want: "rm -f", at: 3, more: true},
		{line: "xargs", want: "echo", at: -1, more: true},
		{line: "chroot /srv rm x", want: "rm x", at: 2, opaque: true},
		{line: "strace -f -o trace.txt rm x", want: "rm x", at: 4, writes: "trace.txt"},
		{line: "sudo timeout 5 nice -n 1 env A=1 busybox rm x", want: "rm x", at: 9},
		{line: "env", want: ""},
		{line: "timeout", want: ""},
	}
	for _, tc := range cases {
		t.Run(tc.line, func(t *testing.T) {
			c := Unwrap(splitString(tc.line))
			if got := strings.Join(c.Argv, " "); got != tc.want {
				t.Fatalf("argv %q, want %q (%+v)", got, tc.want, c)
			}
			if tc.want != "" && c.At != tc.at {
				t.Errorf("at %d, want %d", c.At, tc.at)
			}
			if tc.want == "" && c.At != -1 {
				t.Errorf("at %d for no command, want -1", c.At)
			}
			if got := words(c.Dirs); got != tc.dirs {
				t.Errorf("dirs %q, want %q", got, tc.dirs)
			}
			if got := words(c.Writes); got != tc.writes {
				t.Errorf("writes %q, want %q", got, tc.writes)
			}
			shell := ""
			if c.Shell != nil {
				shell = c.Shell.Text
			}
			if shell != tc.shell {
				t.Errorf("shell %q, want %q", shell, tc.shell)
			}
			if c.MoreArgs != tc.more {
				t.Errorf("more args %v, want %v", c.MoreArgs, tc.more)
			}
			if (c.Opaque != "") != tc.opaque {
				t.Errorf("opaque %q, want %v", c.Opaque, tc.opaque)
			}
		})
	}
}

func words(ws []Word) string {
	var out []string
	for _, w := range ws {
		out = append(out, w.Text)
	}
	return strings.Join(out, " ")
}

func TestUnwrapIndexesPointAtTheInputWords(t *testing.T) {
	argv := splitString("sudo -D dir timeout -s KILL 5 env -C sub rm x")
	c := Unwrap(argv)
	if c.At != 10 || argv[c.At] != "rm" {
		t.Fatalf("at %d", c.At)
	}
	for _, d := range c.Dirs {
		if !strings.Contains(argv[d.At], d.Text) {
			t.Errorf("dir %q at %d is %q", d.Text, d.At, argv[d.At])
		}
	}
	if got := strings.Join(c.Wrappers, " "); got != "sudo timeout env" {
		t.Errorf("wrappers %q", got)
	}
}

func TestUnwrapStopsAtALongChain(t *testing.T) {
	argv := append(strings.Fields(strings.Repeat("env ", 200)), "rm", "x")
	c := Unwrap(argv)
	if len(c.Argv) == 0 || c.Argv[0] != "env" {
		t.Fatalf("a chain past the bound must be returned as the command env, got %q", c.Argv)
	}
}

func FuzzUnwrap(f *testing.F) {
	for _, s := range []string{"sudo -nu root rm x", "env -S 'a b' c", "flock f -c x", "su - u -c x", "watch -x a", "xargs"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		argv := strings.Fields(line)
		c := Unwrap(argv)
		if c.At >= 0 {
			if c.At >= len(argv) || strings.Join(argv[c.At:], " ") != strings.Join(c.Argv, " ") {
				t.Fatalf("at %d does not point at argv %q in %q", c.At, c.Argv, argv)
			}
		}
		for _, w := range append(c.Dirs, c.Writes...) {
			if w.At < -1 || w.At >= len(argv) {
				t.Fatalf("word %q at %d out of range", w.Text, w.At)
			}
		}
	})
}
