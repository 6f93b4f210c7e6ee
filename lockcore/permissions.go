package lockcore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/guardlocks/guard/internal/lazyre"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Decision is the answer of a permissions file for one action.
type Decision string

// The three answers of lock-permissions-v1.
const (
	Allow Decision = "allow"
	Deny  Decision = "deny"
	Ask   Decision = "ask"
)

// PermissionsFormat is the format tag of a permissions file.
const PermissionsFormat = "lock-permissions-v1"

// PermissionsFileNames are the permissions files of a directory, in the order they
// are looked for; the first that exists is used, with no fallthrough when it is
// invalid.
var PermissionsFileNames = []string{"LOCK.permissions.json", PermissionsFileName}

// MaxPermissionsFileSize bounds how much of a permissions file is read.
const MaxPermissionsFileSize = 1 << 20

// Permissions is a parsed lock-permissions-v1 file.
type Permissions struct {
	Format string
	Scope  string
	Owner  string
	Note   string
	// Default answers actions no rule matches (allow when the file says nothing).
	Default Decision
	// Rules lists the rule strings per decision.
	Rules map[Decision][]string
	// AppliesToAgents lists the agents the rules apply to; "*" is every agent. Other
	// agents get Default.
	AppliesToAgents []string
}

// permissionsJSON is the file as written; pointers tell absent from empty.
type permissionsJSON struct {
	Format          string          `json:"format"`
	Scope           string          `json:"scope"`
	Owner           string          `json:"owner"`
	Note            string          `json:"note"`
	Default         *string         `json:"default"`
	Rules           map[string]any  `json:"rules"`
	AppliesToAgents json.RawMessage `json:"applies_to_agents"`
}

// LoadPermissions reads the permissions file of dir: LOCK.permissions.json, else
// LOCK.permissions.txt (also JSON). It returns nil, "", nil when neither exists. A file
// that is not valid JSON, or whose default, rules or applies_to_agents have the wrong
// shape, is an error naming the file (and the line and column of a syntax error):
// an unreadable rule set must not silently allow.
func LoadPermissions(dir string) (*Permissions, string, error) {
	for _, name := range PermissionsFileNames {
		path := filepath.Join(dir, name)
		st, err := os.Stat(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, path, err
		}
		if st.IsDir() {
			return nil, path, &fs.PathError{Op: "read permissions", Path: path, Err: errors.New("is a directory")}
		}
		data, err := readPrefix(path, MaxPermissionsFileSize+1)
		if err != nil {
			return nil, path, err
		}
		if len(data) > MaxPermissionsFileSize {
			return nil, path, fmt.Errorf("%s: larger than %d bytes", path, MaxPermissionsFileSize)
		}
		p, err := ParsePermissions(data)
		if err != nil {
			return nil, path, fmt.Errorf("%s: %w", path, err)
		}
		return p, path, nil
	}
	return nil, "", nil
}

// ParsePermissions parses the JSON body of a permissions file.
func ParsePermissions(data []byte) (*Permissions, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var raw permissionsJSON
	if err := json.Unmarshal(data, &raw); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			// Offset counts the offending byte itself (none at an unexpected end).
			off := se.Offset - 1
			if se.Offset >= int64(len(data)) {
				off = int64(len(data))
			}
			line, col := lineCol(data, off)
			return nil, fmt.Errorf("invalid JSON at line %d, column %d: %w", line, col, err)
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			line, col := lineCol(data, te.Offset)
			return nil, fmt.Errorf("invalid permissions at line %d, column %d: %w", line, col, err)
		}
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	p := &Permissions{
		Format: raw.Format, Scope: raw.Scope, Owner: raw.Owner, Note: raw.Note,
		Default: Allow, Rules: map[Decision][]string{}, AppliesToAgents: []string{"*"},
	}
	if raw.Default != nil {
		d := Decision(*raw.Default)
		if d != Allow && d != Deny && d != Ask {
			return nil, fmt.Errorf("default %q is not allow, deny or ask", *raw.Default)
		}
		p.Default = d
	}
	for key, v := range raw.Rules {
		d := Decision(key)
		if d != Allow && d != Deny && d != Ask {
			// Unknown rule lists (comments, future decisions) are ignored, as the
			// reference only ever reads these three.
			continue
		}
		list, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("rules.%s is not a list of strings", key)
		}
		for i, item := range list {
			s, ok := item.(string)
			if !ok {
				return nil, fmt.Errorf("rules.%s[%d] is not a string", key, i)
			}
			p.Rules[d] = append(p.Rules[d], s)
		}
	}
	if len(raw.AppliesToAgents) > 0 && string(raw.AppliesToAgents) != "null" {
		var agents []string
		if err := json.Unmarshal(raw.AppliesToAgents, &agents); err != nil {
			var one string
			if json.Unmarshal(raw.AppliesToAgents, &one) != nil {
				return nil, errors.New("applies_to_agents is not a list of strings")
			}
			agents = []string{one}
		}
		p.AppliesToAgents = agents
	}
	return p, nil
}

// lineCol turns a byte offset into a 1-based line and column.
func lineCol(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off < 0 {
		off = 0
	}
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// Match is the outcome of evaluating one action: the decision and, when a rule
// decided it, that rule and the list it came from.
type Match struct {
	Decision Decision
	// Rule is the matching rule ("" when the default or the agent filter decided).
	Rule string
	// List is the rule list the rule sits in ("deny", "ask", "allow"), or "default".
	List string
	// AgentExcluded is set when applies_to_agents does not name the agent.
	AgentExcluded bool
}

// Evaluate answers whether agent may do action (a token such as `Bash(rm -rf x)`,
// `Edit(src/a.go)` or `mcp__github__delete_repo`).
func (p *Permissions) Evaluate(agent, action string) Decision {
	return p.Explain(agent, action).Decision
}

// Explain is Evaluate that also says which rule decided: agents the file does not
// apply to get the default; otherwise deny rules are tried first, then ask, then
// allow, and the first match wins; nothing matching gives the default.
func (p *Permissions) Explain(agent, action string) Match {
	applies := false
	for _, a := range p.AppliesToAgents {
		if a == "*" || a == agent {
			applies = true
			break
		}
	}
	if !applies {
		return Match{Decision: p.Default, List: "default", AgentExcluded: true}
	}
	for _, d := range []Decision{Deny, Ask, Allow} {
		for _, rule := range p.Rules[d] {
			if RuleMatches(action, rule) {
				return Match{Decision: d, Rule: rule, List: string(d)}
			}
		}
	}
	return Match{Decision: p.Default, List: "default"}
}

// pyspace is Python's str whitespace (what \s and strip() mean there).
const pyspace = `\t\n\v\f\r \x1c-\x1f\x85\p{Z}`

var tokenRE = lazyre.New(`(?s)^[` + pyspace + `]*([A-Za-z0-9_*?\[\]-]+)[` + pyspace + `]*(?:\((.*)\)[` + pyspace + `]*)?$`)

// splitToken splits an action or rule into its tool and argument. A token that does
// not look like Tool or Tool(arg) is all tool, without argument.
func splitToken(tok string) (tool string, arg string, hasArg bool) {
	if m := tokenRE.FindStringSubmatchIndex(tok); m != nil {
		tool = tok[m[2]:m[3]]
		if m[4] >= 0 {
			return tool, tok[m[4]:m[5]], true
		}
		return tool, "", false
	}
	return pyStrip(tok), "", false
}

func pyStrip(s string) string {
	return strings.TrimFunc(s, isPySpace)
}

func isPySpace(r rune) bool {
	switch {
	case r == '\t', r == '\n', r == '\v', r == '\f', r == '\r', r == ' ', r == 0x85:
		return true
	case r >= 0x1c && r <= 0x1f:
		return true
	}
	return r >= 0x80 && (r == 0xa0 || r == 0x1680 || (r >= 0x2000 && r <= 0x200a) ||
		r == 0x2028 || r == 0x2029 || r == 0x202f || r == 0x205f || r == 0x3000)
}

// RuleMatches reports whether action matches rule: the tools must match as a
// case-folded fnmatch glob (the rule's tool may be `mcp__*__delete*`); a rule without
// an argument, or with `*` or `**`, matches any argument; a rule argument with a ':'
// is a word-prefix rule (`rm:*` matches `rm` and `rm -rf x`, not `rmdir x`);
// otherwise the arguments must match as a case-folded fnmatch glob, where `*` also
// crosses '/'.
func RuleMatches(action, rule string) bool {
	aTool, aArg, _ := splitToken(action)
	rTool, rArg, rHas := splitToken(rule)
	if !fnmatchCase(casefold(aTool), casefold(rTool)) {
		return false
	}
	if !rHas {
		return true
	}
	if rArg == "**" || rArg == "*" {
		return true
	}
	if before, _, ok := strings.Cut(rArg, ":"); ok {
		prefix := casefold(pyStrip(before))
		got := casefold(pyStrip(aArg))
		return got == prefix || strings.HasPrefix(got, prefix+" ")
	}
	return fnmatchCase(casefold(aArg), casefold(strings.ReplaceAll(rArg, "**", "*")))
}
