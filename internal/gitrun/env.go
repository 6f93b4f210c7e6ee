package gitrun

import "strconv"

// passedVars are the environment variables handed on to git. Library code reads the
// environment only through a lookup function (guard.Env.Env), which cannot enumerate
// it, so this is the list
// of what git (and the programs it starts) needs: where the repository and the index
// are as git told the hook (GIT_DIR, GIT_INDEX_FILE, ...), configuration, locale,
// and how to find programs.
var passedVars = []string{
	"PATH", "HOME", "USER", "LOGNAME", "TMPDIR", "TMP", "TEMP",
	"LANG", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TZ",
	"XDG_CONFIG_HOME",
	"SYSTEMROOT", "COMSPEC", "PATHEXT", "USERPROFILE", "APPDATA", "LOCALAPPDATA",
	"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR",
	"GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_QUARANTINE_PATH",
	"GIT_NAMESPACE", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM",
	"GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM",
	"GIT_CONFIG_PARAMETERS", "GIT_EXEC_PATH", "GIT_TRACE", "GIT_TRACE2", "GIT_TRACE2_EVENT",
	"GIT_TRACE_PERFORMANCE", "GIT_OPTIONAL_LOCKS", "GIT_REPLACE_REF_BASE", "GIT_NO_REPLACE_OBJECTS",
	"GIT_SHALLOW_FILE", "GIT_GRAFT_FILE", "GIT_DEFAULT_HASH",
}

// Environ returns the environment for git subprocesses, read through getenv: the
// variables in passedVars that are set, plus `git -c` style GIT_CONFIG_COUNT entries.
// Optional locks are turned off so that a hook's read-only git calls never take the
// index lock of the commit that is running them.
func Environ(getenv func(string) string) []string {
	var out []string
	for _, k := range passedVars {
		if v := getenv(k); v != "" {
			out = append(out, k+"="+v)
		}
	}
	if n, err := strconv.Atoi(getenv("GIT_CONFIG_COUNT")); err == nil && n > 0 {
		out = append(out, "GIT_CONFIG_COUNT="+strconv.Itoa(n))
		for i := range n {
			for _, k := range []string{"GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_"} {
				name := k + strconv.Itoa(i)
				out = append(out, name+"="+getenv(name))
			}
		}
	}
	if getenv("GIT_OPTIONAL_LOCKS") == "" {
		out = append(out, "GIT_OPTIONAL_LOCKS=0")
	}
	return out
}
