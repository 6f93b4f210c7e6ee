package install

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
	"go.yaml.in/yaml/v3"

	"github.com/guardlocks/guard/guard"
)

// lefthook's hook (`lefthook install`) finds the lefthook binary and runs `lefthook
// run HOOK "$@"`, which runs the hook's commands and jobs from the repository's
// lefthook configuration, merged with lefthook-local. A hook that cannot find
// lefthook prints a line and exits 0: everything is let through.

// isLefthookHook reports whether a hook file is lefthook's for hook name.
func isLefthookHook(data []byte, name string) bool {
	return strings.Contains(string(data), "call_lefthook run \""+name+"\"")
}

// lefthookConfigs are the main configuration's names, in the order doctor looks for
// them (lefthook reads one of them; a project should have only one).
var lefthookConfigs = func() []string {
	var out []string
	for _, ext := range []string{"yml", "yaml", "toml", "json", "jsonc"} {
		out = append(out, "lefthook."+ext, ".lefthook."+ext, ".config/lefthook."+ext)
	}
	return out
}()

// lefthookSkipKeys are the command and job settings under which lefthook may run the
// command for some commits and not for others: guard is not known to run then.
var lefthookSkipKeys = []string{"skip", "only", "glob", "files", "exclude", "root", "file_types"}

// examineLefthook finds whether lefthook's configuration runs guard for hook name.
func examineLefthook(env *guard.Env, top, name string, hook []byte) managed {
	m := managed{Manager: "lefthook"}
	if top == "" {
		m.Why = "lefthook runs in a working tree, and this repository has none"
		return m
	}
	cfg, files, err := loadLefthook(env, top)
	if err != nil {
		m.Why = err.Error()
		return m
	}
	if len(files) == 0 {
		m.Why = "there is no lefthook.yml (or other lefthook configuration), so lefthook runs nothing"
		return m
	}
	where := strings.Join(files, " + ")
	h, _ := cfg[name].(map[string]any)
	if h == nil {
		m.Why = fmt.Sprintf("%s has no %s hook (add the recipe of docs/hooks.md, \"With other hook managers\")", where, name)
		return m
	}
	if k := firstKey(h, "skip", "only"); k != "" {
		m.Why = fmt.Sprintf("%s sets `%s:` on the whole %s hook, so lefthook may run none of it", where, k, name)
		return m
	}
	via, prog, why := lefthookGuardJob(env, h, name, name)
	if via == "" {
		if why == "" {
			why = fmt.Sprintf("has no command `guard hook %s%s`", name, lefthookArgsHint(name))
		}
		m.Why = where + " " + why
		return m
	}
	m.Via = []string{where + " " + via}
	m.Guard, m.GuardOK = guardProgram(env, top, prog)
	if bin, ok := findLefthook(env, top, hook); !ok {
		m.Problems = append(m.Problems, fmt.Sprintf("lefthook's %s hook cannot find lefthook (%s), and then it lets everything through: install lefthook, or set LEFTHOOK_BIN", name, bin))
	}
	if v := env.Env("LEFTHOOK"); v == "0" || v == "false" {
		m.Problems = append(m.Problems, "LEFTHOOK="+v+" is set in this environment: lefthook's hooks run nothing while it is")
	}
	return m
}

// lefthookGuardJob looks through a hook's (or a group's) commands and jobs for one
// that runs guard's hook name; it returns where it is and the guard program it runs,
// or why the closest candidate does not count.
func lefthookGuardJob(env *guard.Env, h map[string]any, path, name string) (via, prog, why string) {
	var args []string
	if name == "pre-push" {
		args = []string{"{1} {2}", "{0}"}
	}
	excluded := strings.Split(env.Env("LEFTHOOK_EXCLUDE"), ",")
	judge := func(where string, c map[string]any) (string, string) {
		run, _ := c["run"].(string)
		call, why, near := findGuardCall(run, name, args, true)
		if why != "" {
			if near {
				return "", fmt.Sprintf("%s: `run:` %s", where, why)
			}
			return "", ""
		}
		if k := firstKey(c, lefthookSkipKeys...); k != "" {
			return "", fmt.Sprintf("runs guard in %s, but with `%s:`, so lefthook may skip it", where, k)
		}
		if name == "pre-push" && c["use_stdin"] != true {
			return "", fmt.Sprintf("runs guard in %s without `use_stdin: true`, so guard gets no ref lines and checks nothing", where)
		}
		for _, tag := range append([]string{lastSegment(where)}, lefthookTags(c["tags"])...) {
			if tag != "" && slices.Contains(excluded, tag) {
				return "", fmt.Sprintf("runs guard in %s, but LEFTHOOK_EXCLUDE excludes %q in this environment", where, tag)
			}
		}
		return call.Prog, ""
	}
	if cmds, ok := h["commands"].(map[string]any); ok {
		names := make([]string, 0, len(cmds))
		for n := range cmds {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			c, _ := cmds[n].(map[string]any)
			where := path + ".commands." + n
			if p, w := judge(where, c); p != "" {
				return where, p, ""
			} else if w != "" {
				why = w
			}
		}
	}
	jobs, _ := h["jobs"].([]any)
	for i, j := range jobs {
		c, _ := j.(map[string]any)
		if c == nil {
			continue
		}
		label := fmt.Sprint(i)
		if n, ok := c["name"].(string); ok && n != "" {
			label = n
		}
		where := path + ".jobs." + label
		if g, ok := c["group"].(map[string]any); ok {
			if k := firstKey(c, lefthookSkipKeys...); k != "" {
				continue
			}
			if v, p, w := lefthookGuardJob(env, g, where+".group", name); v != "" {
				return v, p, ""
			} else if w != "" {
				why = w
			}
			continue
		}
		if p, w := judge(where, c); p != "" {
			return where, p, ""
		} else if w != "" {
			why = w
		}
	}
	return "", "", why
}

func lefthookArgsHint(name string) string {
	if name == "pre-push" {
		return " {1} {2}` with `use_stdin: true"
	}
	return ""
}

func lefthookTags(v any) []string {
	switch t := v.(type) {
	case string:
		return strings.Fields(t)
	case []any:
		var out []string
		for _, e := range t {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func lastSegment(where string) string {
	return where[strings.LastIndex(where, ".")+1:]
}

func firstKey(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if v, ok := m[k]; ok && v != false && v != nil {
			return k
		}
	}
	return ""
}

// loadLefthook reads the main configuration (LEFTHOOK_CONFIG, else the first of
// lefthookConfigs at top) and merges the -local one over it, as lefthook does: maps
// key by key, jobs by name. It returns the files read.
func loadLefthook(env *guard.Env, top string) (map[string]any, []string, error) {
	var mainPath string
	if p := env.Env("LEFTHOOK_CONFIG"); p != "" {
		if !filepath.IsAbs(p) {
			p = filepath.Join(top, p)
		}
		mainPath = p
	} else {
		for _, n := range lefthookConfigs {
			if p := filepath.Join(top, filepath.FromSlash(n)); fileExists(p) {
				mainPath = p
				break
			}
		}
	}
	var localPath string
	for _, n := range lefthookConfigs {
		dir, base := filepath.Split(filepath.FromSlash(n))
		base = strings.Replace(base, "lefthook.", "lefthook-local.", 1)
		if p := filepath.Join(top, dir, base); fileExists(p) {
			localPath = p
			break
		}
	}
	cfg := map[string]any{}
	var files []string
	for _, p := range []string{mainPath, localPath} {
		if p == "" {
			continue
		}
		c, err := readLefthookFile(p)
		if err != nil {
			return nil, files, err
		}
		mergeLefthook(cfg, c)
		files = append(files, relTo(top, p))
	}
	return cfg, files, nil
}

func readLefthookFile(p string) (map[string]any, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("lefthook configuration: %w", err)
	}
	out := map[string]any{}
	switch filepath.Ext(p) {
	case ".toml":
		if _, err := toml.Decode(string(data), &out); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		return normalize(out).(map[string]any), nil
	case ".jsonc":
		return nil, fmt.Errorf("%s: doctor does not read JSONC; it cannot tell whether lefthook runs guard (use lefthook.yml)", p)
	}
	// YAML, and JSON (which YAML reads).
	if err := yaml.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return out, nil
}

// normalize turns TOML's typed tables and arrays into the map[string]any and []any
// YAML gives.
func normalize(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = normalize(e)
		}
		return t
	case []map[string]any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = normalize(e)
		}
		return out
	case []any:
		for i, e := range t {
			t[i] = normalize(e)
		}
		return t
	}
	return v
}

// mergeLefthook merges src over dst: maps key by key, job lists by job name (unnamed
// jobs are added).
func mergeLefthook(dst, src map[string]any) {
	for k, v := range src {
		switch sv := v.(type) {
		case map[string]any:
			if dv, ok := dst[k].(map[string]any); ok {
				mergeLefthook(dv, sv)
				continue
			}
		case []any:
			if dv, ok := dst[k].([]any); ok && k == "jobs" {
				dst[k] = mergeJobs(dv, sv)
				continue
			}
		}
		dst[k] = v
	}
}

func mergeJobs(dst, src []any) []any {
	for _, j := range src {
		sj, _ := j.(map[string]any)
		name, _ := sj["name"].(string)
		merged := false
		if name != "" {
			for _, d := range dst {
				if dj, ok := d.(map[string]any); ok && dj["name"] == name {
					mergeLefthook(dj, sj)
					merged = true
					break
				}
			}
		}
		if !merged {
			dst = append(dst, j)
		}
	}
	return dst
}

// findLefthook looks where lefthook's hook looks for lefthook: LEFTHOOK_BIN, PATH,
// the path `lefthook install` wrote into the hook, node_modules. It does not try the
// hook's last resorts (go tool, bundle, yarn, pnpm, swift, mint, uv, composer, mise,
// devbox), which run programs. It returns the binary, or where it looked.
func findLefthook(env *guard.Env, top string, hook []byte) (string, bool) {
	looked := []string{"LEFTHOOK_BIN", "PATH"}
	if p := env.Env("LEFTHOOK_BIN"); p != "" && executable(p) {
		return p, true
	}
	if p := lookPath(env, "lefthook"); p != "" {
		return p, true
	}
	for _, line := range strings.Split(string(hook), "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && f[0] == "elif" && filepath.IsAbs(f[1]) && f[2] == "-h" {
			if executable(f[1]) {
				return f[1], true
			}
			looked = append(looked, f[1])
		}
	}
	arch := map[string]string{"amd64": "x64", "arm64": "arm64", "386": "ia32"}[runtime.GOARCH]
	for _, rel := range []string{
		"node_modules/lefthook-" + runtime.GOOS + "-" + arch + "/bin/lefthook",
		"node_modules/@evilmartians/lefthook/bin/lefthook-" + runtime.GOOS + "-" + arch + "/lefthook",
		"node_modules/@evilmartians/lefthook-installer/bin/lefthook",
		"node_modules/lefthook/bin/index.js",
	} {
		if p := filepath.Join(top, filepath.FromSlash(rel)); fileExists(p) {
			return p, true
		}
	}
	looked = append(looked, "node_modules")
	return "looked in " + strings.Join(looked, ", "), false
}
