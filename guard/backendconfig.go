package guard

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// BackendConfig is the [backend] table of .guard.toml (CONTRACT.md section 10): a
// coordination service that holds the project's locks besides the lock files.
type BackendConfig struct {
	// Kind is the service; only "etcd" is known.
	Kind string `toml:"kind"`
	// Endpoints are the service's client URLs (https://host:2379, http://127.0.0.1:2379).
	Endpoints []string `toml:"endpoints"`
	// Prefix is the key prefix every key of guard lives under (default /guard/).
	Prefix string `toml:"prefix"`
	// ProjectID names the project in the service; default: the normalised URL of the
	// repository's origin remote, so that two clones on two machines are one project.
	ProjectID string `toml:"project_id"`
	// DialTimeout bounds every conversation with the service (default 2s): past it,
	// guard answers as if the service were unreachable.
	DialTimeout string `toml:"dial_timeout"`
	// CA, Cert and Key are TLS files (relative to the .guard.toml's directory).
	CA   string `toml:"ca"`
	Cert string `toml:"cert"`
	Key  string `toml:"key"`
	// Username and Password authenticate; GUARD_ETCD_PASSWORD stands in for Password.
	Username string `toml:"username"`
	Password string `toml:"password"`
	// Offline says what reads do while the service cannot be reached: "refuse" (the
	// default: fail closed, exit 2) or "files" (judge from the lock files alone, with
	// a warning). Claims always need the service.
	Offline string `toml:"offline"`
}

// DefaultBackendPrefix is the key prefix when [backend] prefix is not set.
const DefaultBackendPrefix = "/guard/"

// DefaultDialTimeout bounds a conversation with the backend when dial_timeout is not
// set.
const DefaultDialTimeout = 2 * time.Second

// Offline modes of [backend] offline.
const (
	OfflineRefuse = "refuse"
	OfflineFiles  = "files"
)

func (b *BackendConfig) validate() error {
	if b.Kind != "etcd" {
		if b.Kind == "" {
			return errors.New(`kind is missing (the one backend is kind = "etcd")`)
		}
		return fmt.Errorf("kind = %q is not a backend guard knows (the one backend is \"etcd\")", b.Kind)
	}
	if len(b.Endpoints) == 0 {
		return errors.New(`endpoints is missing: name the etcd client URLs, e.g. endpoints = ["http://127.0.0.1:2379"]`)
	}
	for _, e := range b.Endpoints {
		u, err := url.Parse(e)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "unix" && u.Scheme != "unixs") || (u.Host == "" && !strings.HasPrefix(u.Scheme, "unix")) {
			return fmt.Errorf("endpoint %q is not a URL such as http://127.0.0.1:2379 or https://etcd.example:2379", e)
		}
	}
	if _, err := b.Timeout(); err != nil {
		return err
	}
	switch b.Offline {
	case "", OfflineRefuse, OfflineFiles:
	default:
		return fmt.Errorf(`offline = %q: it is "refuse" (the default) or "files"`, b.Offline)
	}
	if (b.Cert == "") != (b.Key == "") {
		return errors.New("cert and key go together: set both or neither")
	}
	if p := b.Prefix; p != "" && !strings.HasSuffix(p, "/") {
		return fmt.Errorf("prefix = %q must end with /", p)
	}
	return nil
}

// Timeout is dial_timeout as a duration (DefaultDialTimeout when unset).
func (b *BackendConfig) Timeout() (time.Duration, error) {
	if b.DialTimeout == "" {
		return DefaultDialTimeout, nil
	}
	d, err := time.ParseDuration(b.DialTimeout)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("dial_timeout = %q is not a positive duration such as \"2s\" or \"500ms\"", b.DialTimeout)
	}
	return d, nil
}

// KeyPrefix is prefix, defaulted.
func (b *BackendConfig) KeyPrefix() string {
	if b.Prefix == "" {
		return DefaultBackendPrefix
	}
	return b.Prefix
}

// OfflineFiles says whether reads fall back to the files while the backend is
// unreachable.
func (b *BackendConfig) FallsBackToFiles() bool { return b.Offline == OfflineFiles }

// NormalizeRemoteURL turns a git remote URL into the project id two clones of one
// repository share, whatever protocol each was cloned with:
// git@github.com:o/r.git, ssh://git@github.com/o/r and https://github.com/o/r/ are all
// github.com/o/r. The host is lower-cased; the path keeps its case.
func NormalizeRemoteURL(raw string) string {
	s := strings.TrimSpace(raw)
	if s == "" {
		return ""
	}
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
		if at := strings.LastIndex(strings.SplitN(s, "/", 2)[0], "@"); at >= 0 {
			s = s[at+1:]
		}
		host, rest, _ := strings.Cut(s, "/")
		if h, port, ok := strings.Cut(host, ":"); ok && (port == "22" || port == "443" || port == "80" || port == "") {
			host = h
		}
		s = strings.ToLower(host) + "/" + rest
	} else if host, rest, ok := strings.Cut(s, ":"); ok && !strings.Contains(host, "/") {
		// scp-like: [user@]host:path
		if at := strings.LastIndex(host, "@"); at >= 0 {
			host = host[at+1:]
		}
		s = strings.ToLower(host) + "/" + strings.TrimPrefix(rest, "/")
	}
	s = strings.TrimRight(s, "/")
	s = strings.TrimSuffix(s, ".git")
	return strings.TrimRight(s, "/")
}
