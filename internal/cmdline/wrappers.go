package cmdline

// spec describes one wrapper's command line.
type spec struct {
	// valued are the short option letters that take a value.
	valued string
	// long are the long options (without "--") that take a value; flags the long
	// options that take none (so that an abbreviation is read right).
	long, flags []string
	// positional is the number of operands before the command (timeout DURATION).
	positional int
	// dir, output and shell name the options (short letter or long name) whose value
	// is the directory the command runs in, a file the wrapper writes, and shell text
	// the wrapper runs.
	dir, output, shell []string
	// noRun are options with which no command runs (command -v, sudo -l).
	noRun []string
	// opaque are options that change what the command's paths mean, with why.
	opaque map[string]string
	// assignments: NAME=value words may follow the options (env).
	assignments bool
	// custom reads what the generic reading cannot (positional forms of su, flock,
	// watch, xargs).
	custom func(r *reader, c *Command)
}

var wrappers = map[string]spec{
	"env": {valued: "uCSP", long: []string{"unset", "chdir", "split-string", "argv0"},
		flags: []string{"ignore-environment", "null", "debug", "block-signal", "default-signal", "ignore-signal", "list-signal-handling"},
		dir:   []string{"C", "chdir"}, assignments: true},
	"sudo": {valued: "uUgChpDrtTRc", long: []string{"user", "other-user", "group", "close-from", "chdir", "host", "prompt", "role", "type", "chroot", "command-timeout", "login-class"},
		flags: []string{"askpass", "background", "bell", "preserve-env", "edit", "help", "set-home", "login", "remove-timestamp", "reset-timestamp", "list", "non-interactive", "preserve-groups", "shell", "stdin", "validate", "version"},
		dir:   []string{"D", "chdir"}, noRun: []string{"l", "list", "v", "validate", "k", "K", "reset-timestamp", "remove-timestamp", "V", "version", "h", "help"},
		opaque: map[string]string{"i": "sudo -i runs the command in the target user's home folder", "login": "sudo --login runs the command in the target user's home folder",
			"R": "sudo -R runs the command under another root folder", "chroot": "sudo --chroot runs the command under another root folder"}},
	"doas":       {valued: "uaC", noRun: []string{"C", "L"}, opaque: map[string]string{"s": "doas -s runs a shell"}},
	"pkexec":     {long: []string{"user"}},
	"timeout":    {valued: "ks", long: []string{"kill-after", "signal"}, flags: []string{"foreground", "preserve-status", "verbose"}, positional: 1},
	"nice":       {valued: "n", long: []string{"adjustment"}},
	"ionice":     {valued: "cnpPu", long: []string{"class", "classdata", "pid", "pgid", "uid"}, flags: []string{"ignore"}, noRun: []string{"p", "P", "u", "pid", "pgid", "uid"}},
	"nohup":      {},
	"setsid":     {flags: []string{"ctty", "fork", "wait"}},
	"stdbuf":     {valued: "ioe", long: []string{"input", "output", "error"}},
	"time":       {valued: "of", long: []string{"output", "format"}, flags: []string{"append", "portability", "verbose", "quiet"}, output: []string{"o", "output"}},
	"command":    {noRun: []string{"v", "V"}},
	"builtin":    {},
	"exec":       {valued: "a"},
	"busybox":    {},
	"chronic":    {},
	"unbuffer":   {},
	"caffeinate": {valued: "tw"},
	"chrt": {valued: "TPD", long: []string{"sched-runtime", "sched-period", "sched-deadline"},
		flags: []string{"all-tasks", "batch", "deadline", "fifo", "idle", "other", "rr", "reset-on-fork", "verbose"},
		noRun: []string{"p", "pid", "m", "max"}, positional: 1},
	"taskset": {flags: []string{"all-tasks", "cpu-list"}, noRun: []string{"p", "pid"}, positional: 1},
	"flock": {valued: "wEc", long: []string{"timeout", "wait", "conflict-exit-code", "command"},
		flags: []string{"shared", "exclusive", "nonblock", "nb", "unlock", "close", "no-fork", "verbose"},
		shell: []string{"c", "command"}, custom: flockCommand},
	"chroot": {long: []string{"groups", "userspec"}, flags: []string{"skip-chdir"}, custom: chrootCommand},
	"su": {valued: "cgGsw", long: []string{"command", "session-command", "group", "supp-group", "shell", "whitelist-environment"},
		flags: []string{"login", "preserve-environment", "pty", "fast"}, shell: []string{"c", "command", "session-command"},
		opaque: map[string]string{"l": "su -l runs the command in the target user's home folder", "login": "su --login runs the command in the target user's home folder"},
		custom: suCommand},
	"runuser": {valued: "cgGsuw", long: []string{"command", "session-command", "group", "supp-group", "shell", "user", "whitelist-environment"},
		flags: []string{"login", "preserve-environment", "pty", "fast"}, shell: []string{"c", "command", "session-command"},
		opaque: map[string]string{"l": "runuser -l runs the command in the target user's home folder", "login": "runuser --login runs the command in the target user's home folder"},
		custom: suCommand},
	"sg": {custom: sgCommand},
	"watch": {valued: "nq", long: []string{"interval", "equexit"},
		flags:  []string{"beep", "color", "no-color", "differences", "errexit", "chgexit", "exec", "precise", "no-title", "no-wrap", "no-linewrap"},
		custom: watchCommand},
	"xargs": {valued: "aEIdLnPs", long: []string{"arg-file", "delimiter", "max-args", "max-procs", "max-chars", "process-slot-var"},
		flags:  []string{"null", "no-run-if-empty", "interactive", "verbose", "exit", "show-limits", "open-tty", "eof", "replace", "max-lines"},
		custom: xargsCommand},
	"strace":       {valued: "abeEIoOpPsSuUX", output: []string{"o", "output"}, long: []string{"output", "trace", "signal", "status", "user", "env"}},
	"ltrace":       {valued: "aAeFlnoOpsTuUx", output: []string{"o", "output"}, long: []string{"output", "library"}},
	"valgrind":     {},
	"fakeroot":     {valued: "lsib", long: []string{"lib", "faked"}, output: []string{"s"}},
	"prlimit":      {valued: "po", long: []string{"pid", "output", "as", "core", "cpu", "data", "fsize", "locks", "memlock", "msgqueue", "nice", "nofile", "nproc", "rss", "rtprio", "rttime", "sigpending", "stack"}, noRun: []string{"p", "pid"}},
	"proxychains":  {valued: "f"},
	"proxychains4": {valued: "f"},
}
