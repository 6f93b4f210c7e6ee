package github

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// SSHHostAliases reads the "Host alias ... / HostName real" pairs of an OpenSSH
// client configuration, so that a remote such as git@github-work:acme/web.git (with
// "Host github-work / HostName github.com") is known to be github.com/acme/web.
// Host patterns with wildcards or negations are skipped, as is Include; as with ssh,
// the first HostName given for an alias wins. Keys and values are lower-cased.
func SSHHostAliases(r io.Reader) map[string]string {
	out := map[string]string{}
	var current []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, value := splitSSHLine(line)
		switch strings.ToLower(key) {
		case "host":
			current = current[:0]
			for _, a := range strings.Fields(value) {
				a = strings.ToLower(strings.Trim(a, `"`))
				if a != "" && !strings.ContainsAny(a, "*?!") {
					current = append(current, a)
				}
			}
		case "match":
			current = current[:0]
		case "hostname":
			h := strings.ToLower(strings.Trim(strings.TrimSpace(value), `"`))
			if h == "" || strings.ContainsAny(h, "% \t") {
				continue
			}
			for _, a := range current {
				if _, ok := out[a]; !ok && a != h {
					out[a] = h
				}
			}
		}
	}
	return out
}

// splitSSHLine splits "Keyword value" or "Keyword=value".
func splitSSHLine(line string) (string, string) {
	i := strings.IndexAny(line, " \t=")
	if i < 0 {
		return line, ""
	}
	key, rest := line[:i], strings.TrimSpace(line[i:])
	rest = strings.TrimSpace(strings.TrimPrefix(rest, "="))
	return key, rest
}

// LoadSSHHostAliases reads ~/.ssh/config under home (none: no aliases).
func LoadSSHHostAliases(home string) map[string]string {
	if home == "" {
		return map[string]string{}
	}
	f, err := os.Open(filepath.Join(home, ".ssh", "config"))
	if err != nil {
		return map[string]string{}
	}
	defer f.Close()
	return SSHHostAliases(f)
}

// ResolveAlias returns k with its host replaced by the alias's real host, and
// whether there was an alias.
func ResolveAlias(k RepoKey, aliases map[string]string) (RepoKey, bool) {
	h, ok := aliases[k.Host()]
	if !ok {
		return k, false
	}
	return RepoKey(h + "/" + k.Owner() + "/" + k.Name()), true
}
