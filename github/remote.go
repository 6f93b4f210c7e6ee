package github

import (
	"net/url"
	"strings"
)

// RepoKey names a hosted repository independently of how a remote URL spells it:
// "host/owner/name", lower-case, without port, user, scheme or ".git".
type RepoKey string

// Owner returns the owner part of the key.
func (k RepoKey) Owner() string {
	parts := strings.SplitN(string(k), "/", 3)
	if len(parts) < 3 {
		return ""
	}
	return parts[1]
}

// Name returns the repository name part of the key.
func (k RepoKey) Name() string {
	parts := strings.SplitN(string(k), "/", 3)
	if len(parts) < 3 {
		return ""
	}
	return parts[2]
}

// Host returns the host part of the key.
func (k RepoKey) Host() string {
	host, _, _ := strings.Cut(string(k), "/")
	return host
}

// ParseRemoteURL reduces a git remote URL to its RepoKey. It understands
// https://, http://, ssh://, git:// and git+ssh:// URLs (with or without user and
// port) and scp-like "user@host:owner/name" addresses, with or without ".git" and a
// trailing slash, in any case. Local paths and file:// URLs name no hosted
// repository and give ok == false, as does anything without exactly an owner and a
// name (Enterprise servers under a path prefix keep the prefix out of the key only
// when the path has exactly two segments).
func ParseRemoteURL(raw string) (RepoKey, bool) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", false
	}
	var host, path string
	if i := strings.Index(raw, "://"); i > 0 {
		u, err := url.Parse(raw)
		if err != nil {
			return "", false
		}
		switch strings.ToLower(u.Scheme) {
		case "https", "http", "ssh", "git", "git+ssh", "ssh+git":
		default:
			return "", false
		}
		host, path = u.Hostname(), u.Path
	} else {
		// scp-like: [user@]host:path, where no slash comes before the colon.
		colon := strings.Index(raw, ":")
		if colon <= 0 || strings.Contains(raw[:colon], "/") {
			return "", false
		}
		host, path = raw[:colon], raw[colon+1:]
		if at := strings.LastIndex(host, "@"); at >= 0 {
			host = host[at+1:]
		}
		// A one-letter "host" is a Windows drive (C:\repo), not a server.
		if len(host) == 1 {
			return "", false
		}
	}
	host = strings.ToLower(strings.Trim(host, "[]"))
	path = strings.Trim(path, "/")
	path = strings.TrimSuffix(path, "/")
	if strings.HasSuffix(strings.ToLower(path), ".git") {
		path = path[:len(path)-len(".git")]
	}
	path = strings.Trim(path, "/")
	segs := strings.Split(path, "/")
	if host == "" || len(segs) != 2 || segs[0] == "" || segs[1] == "" {
		return "", false
	}
	if !validName(host, ":") {
		return "", false
	}
	for _, s := range segs {
		if s == "." || s == ".." || !validName(s, "") {
			return "", false
		}
	}
	return RepoKey(host + "/" + strings.ToLower(segs[0]) + "/" + strings.ToLower(segs[1])), true
}

// validName reports whether s holds only the characters GitHub allows in host,
// owner and repository names (letters, digits, '.', '-', '_') plus extra.
func validName(s, extra string) bool {
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
		case strings.ContainsRune(extra, r):
		default:
			return false
		}
	}
	return s != ""
}
