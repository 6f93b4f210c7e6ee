package lockcore

import (
	"github.com/guardlocks/guard/internal/lazyre"
	"path/filepath"
	"strings"
	"unicode"
)

// The spellings of a team lock's names: its file, an agent, a tool.
var (
	teamLockNameRE = lazyre.New(`^LOCK\.team(\.[A-Za-z0-9_-]+)+\.txt$`)
	agentRE        = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9_.@+-]{0,127}$`)
	toolRE         = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9_.:/@+-]{0,255}$`)
)

// Limits on what a team lock line may hold.
const (
	MaxTeamRole    = 256
	MaxTeamTask    = 1024
	MaxTeamMessage = 4096
	MaxTeamPath    = 1024
)

// IsTeamLockName reports whether name is a team lock name that guard team edits
// (`LOCK.team[.<scope>].<host>.txt`, exact case).
func IsTeamLockName(name string) bool { return teamLockNameRE.MatchString(name) }

// TeamLockHost returns the host segment of a team lock name (its last segment).
func TeamLockHost(name string) string {
	s := strings.TrimSuffix(name, ".txt")
	return s[strings.LastIndexByte(s, '.')+1:]
}

// ValidateAgent checks an agent id: a letter or digit, then up to 127 of letters,
// digits and `_ . @ + -` (no spaces, no newlines, no brackets).
func ValidateAgent(agent string) error {
	if !agentRE.MatchString(agent) {
		return inputErr("agent %q: use letters, digits and _.@+- (at most 128, starting with a letter or digit)", agent)
	}
	return nil
}

// NormalizeTool validates a tool id and returns it casefolded.
func NormalizeTool(tool string) (string, error) {
	t := strings.TrimSpace(tool)
	if !toolRE.MatchString(t) {
		return "", inputErr("tool %q: use letters, digits and _.:/@+- (at most 256, starting with a letter or digit)", tool)
	}
	return casefold(t), nil
}

// NormalizeFileResource validates a file or folder claim and returns it as a path
// relative to dir with '/' separators, its case kept. It refuses wildcards and the
// separators of the file format (`| ; * ? [ ]`), control characters, absolute paths
// and drives, empty, `.` and `..` segments, dir itself, and paths that resolve
// (through symbolic links) outside dir.
func NormalizeFileResource(dir, res string) (string, error) {
	r := strings.TrimSpace(res)
	if r == "" {
		return "", inputErr("empty resource")
	}
	if len(r) > MaxTeamPath {
		return "", inputErr("resource longer than %d bytes", MaxTeamPath)
	}
	if strings.ContainsAny(r, "|;*?[]") {
		return "", inputErr("resource %q: | ; * ? [ ] are not allowed", res)
	}
	if hasControl(r) {
		return "", inputErr("resource %q: control characters are not allowed", res)
	}
	r = strings.ReplaceAll(r, `\`, "/")
	if strings.HasPrefix(r, "/") || (len(r) >= 2 && r[1] == ':') {
		return "", inputErr("resource %q: absolute paths are not allowed; give a path relative to %s", res, dir)
	}
	r = strings.TrimSuffix(r, "/")
	for _, seg := range strings.Split(r, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return "", inputErr("resource %q: empty, . and .. segments are not allowed", res)
		}
	}
	if dir != "" && !resolvesInside(dir, filepath.Join(dir, filepath.FromSlash(r))) {
		return "", inputErr("resource %q resolves outside %s", res, dir)
	}
	return r, nil
}

// resolvesInside reports whether target, with symbolic links of its existing part
// resolved, lies strictly inside dir.
func resolvesInside(dir, target string) bool {
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		root = filepath.Clean(dir)
	}
	cur, rest := filepath.Clean(target), ""
	for {
		if real, err := filepath.EvalSymlinks(cur); err == nil {
			cur = filepath.Join(real, rest)
			break
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			cur = filepath.Join(cur, rest)
			break
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
	rel, err := filepath.Rel(root, cur)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return false
	}
	return true
}

func hasControl(s string) bool {
	for _, r := range s {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return true
		}
	}
	return false
}

// validateText checks a free text (role, task, loop id, message): stripped, not empty,
// no control characters, at most max bytes, none of the forbidden characters (those
// that would split or confuse a line of the file).
func validateText(what, s string, max int, forbidden string) (string, error) {
	t := strings.TrimSpace(s)
	switch {
	case t == "":
		return "", inputErr("%s is empty", what)
	case len(t) > max:
		return "", inputErr("%s is longer than %d bytes", what, max)
	case hasControl(t):
		return "", inputErr("%s contains control characters", what)
	case forbidden != "" && strings.ContainsAny(t, forbidden):
		return "", inputErr("%s may not contain any of %s", what, strings.Join(strings.Split(forbidden, ""), " "))
	}
	return t, nil
}

// normalizeResources validates and normalizes a bundle's resources and refuses
// duplicates inside it.
func normalizeResources(sec TeamSection, dir string, in []string) ([]string, error) {
	if len(in) == 0 {
		return nil, inputErr("a claim needs at least one resource")
	}
	out := make([]string, 0, len(in))
	seen := map[string]bool{}
	for _, r := range in {
		var n string
		var err error
		if sec == SectionToolClaims {
			n, err = NormalizeTool(r)
		} else {
			n, err = NormalizeFileResource(dir, r)
		}
		if err != nil {
			return nil, err
		}
		if seen[casefold(n)] {
			return nil, inputErr("resource %q is named twice", r)
		}
		seen[casefold(n)] = true
		out = append(out, n)
	}
	return out, nil
}
