package guard

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// The server side (CONTRACT.md section 13): the gate of a bare repository on a git
// server, its configuration ([server] in the .guard.toml beside or above the
// repository) and who the pusher is. The git plumbing is in package hooks; what is
// decided here is the policy's part: whose identity counts, who may bypass, and what a
// publication marker means on a public repository.

// Gates of the server side.
const (
	GatePreReceive = "pre-receive"
	GateUpdate     = "update"
	// GatePostReceive records accepted pushes; it refuses nothing.
	GatePostReceive = "post-receive"
)

// EventPushed is the history event post-receive records for every accepted ref
// update.
const EventPushed = "pushed"

// Server visibilities ([server] visibility).
const (
	ServerPublic  = "public"
	ServerPrivate = "private"
)

// Identity variables that git servers set for their hooks.
const (
	// GitLabUserVar is set by GitLab (gitlab-shell, Gitaly) to the pushing user's name.
	GitLabUserVar = "GL_USERNAME"
	// GiteaPusherVar is set by Gitea and Forgejo to the pushing user's name.
	GiteaPusherVar = "GITEA_PUSHER_NAME"
)

// BypassOption is the push option that asks the server gate to let a refusal through
// (`git push -o guard.bypass="<reason>"`).
const BypassOption = "guard.bypass"

// ServerConfig is the [server] table.
type ServerConfig struct {
	// Visibility is "public" when the repository is published: a PRIVATE.txt pushed
	// into it is refused. "private" or "" says nothing more.
	Visibility string `toml:"visibility"`
	// PusherEnv names the variable that holds the authenticated user where the server
	// is neither GitLab nor Gitea (ssh: authorized_keys environment= or command=).
	PusherEnv string `toml:"pusher_env"`
	// Owners maps server user names to lock owners, where they differ.
	Owners map[string]string `toml:"owners"`
	// BypassUsers are the server users whose push option guard.bypass is honoured.
	BypassUsers []string `toml:"bypass_users"`
}

var envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (s ServerConfig) validate() error {
	switch s.Visibility {
	case "", ServerPublic, ServerPrivate:
	default:
		return fmt.Errorf("visibility = %q: want %q or %q", s.Visibility, ServerPublic, ServerPrivate)
	}
	if s.PusherEnv != "" {
		if !envNameRE.MatchString(s.PusherEnv) {
			return fmt.Errorf("pusher_env = %q is not an environment variable name", s.PusherEnv)
		}
		if s.PusherEnv == "GUARD_OWNER" || s.PusherEnv == BypassVar {
			return fmt.Errorf("pusher_env = %q: that variable is the client's to set, not the server's authenticated user; name the variable your ssh forced command or the git server sets", s.PusherEnv)
		}
	}
	for user, owner := range s.Owners {
		if strings.TrimSpace(user) == "" || strings.TrimSpace(owner) == "" {
			return fmt.Errorf("owners: %q = %q: neither the user nor the owner may be empty", user, owner)
		}
	}
	for _, u := range s.BypassUsers {
		if strings.TrimSpace(u) == "" {
			return errors.New("bypass_users: an empty user name")
		}
	}
	return nil
}

// FindServerConfig returns the server's configuration for the bare repository whose
// git directory is gitDir: the .guard.toml in gitDir, else the first one in a folder
// above it (a server keeps one for all its repositories). It returns an empty Config
// (never nil) when there is none; a malformed file is an error naming its line.
func FindServerConfig(gitDir string) (*Config, error) {
	for d := filepath.Clean(gitDir); ; {
		p := filepath.Join(d, ConfigFileName)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return LoadConfig(p)
		} else if err == nil {
			return nil, fmt.Errorf("%s: not a regular file", p)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return &Config{}, nil
		}
		d = parent
	}
}

// Pusher is who pushes, as the server authenticated them.
type Pusher struct {
	// User is the server's user name; Owner the lock owner it maps to ([server]
	// owners), else User.
	User, Owner string
	// Source is the variable User was read from.
	Source string
}

// ResolvePusher reads the pusher from the server's own variables: GL_USERNAME
// (GitLab), GITEA_PUSHER_NAME (Gitea, Forgejo), else the variable [server]
// pusher_env names. GUARD_OWNER is never read: a client could set it. With none of
// them set the push cannot be judged for anyone, and the error says how to configure
// the server.
func ResolvePusher(env *Env, cfg *Config) (Pusher, error) {
	vars := []string{GitLabUserVar, GiteaPusherVar}
	if cfg != nil && cfg.Server.PusherEnv != "" {
		vars = append(vars, cfg.Server.PusherEnv)
	}
	for _, v := range vars {
		if u := strings.TrimSpace(env.Env(v)); u != "" {
			p := Pusher{User: u, Owner: u, Source: v}
			if cfg != nil {
				if o, ok := cfg.Server.Owners[u]; ok {
					p.Owner = o
				}
			}
			return p, nil
		}
	}
	where := "no .guard.toml was found beside or above the repository"
	if cfg != nil && cfg.Path != "" {
		where = cfg.Path
	}
	if cfg != nil && cfg.Server.PusherEnv != "" {
		return Pusher{}, fmt.Errorf("no pusher identity: %s, %s and %s (pusher_env in %s) are all unset; make the ssh forced command set %s for each key (authorized_keys command=\"env %s=<user> git-shell -c \\\"$SSH_ORIGINAL_COMMAND\\\"\")",
			GitLabUserVar, GiteaPusherVar, cfg.Server.PusherEnv, where, cfg.Server.PusherEnv, cfg.Server.PusherEnv)
	}
	return Pusher{}, fmt.Errorf("no pusher identity: neither %s (GitLab) nor %s (Gitea, Forgejo) is set, and no [server] pusher_env is configured (%s); for ssh, set pusher_env = \"GUARD_PUSHER\" in the server's .guard.toml and GUARD_PUSHER=<user> in each key's authorized_keys command=",
		GitLabUserVar, GiteaPusherVar, where)
}

// BypassRequest reads the push options (`git push -o ...`, in order) for
// guard.bypass=<reason>: asked is true when one is present; the reason is the last
// one's text. An option guard.bypass without a reason is an error (a bypass needs its
// why).
func BypassRequest(options []string) (reason string, asked bool, err error) {
	for _, o := range options {
		name, value, hasValue := strings.Cut(o, "=")
		if strings.TrimSpace(name) != BypassOption {
			continue
		}
		asked = true
		reason = strings.TrimSpace(value)
		if !hasValue || reason == "" {
			return "", true, fmt.Errorf("push option %s has no reason: push with -o %s=\"<why this push must go through>\"", BypassOption, BypassOption)
		}
	}
	return reason, asked, nil
}

// ServerBypass decides whether the pusher's bypass request lets a refused push
// through: only users listed in [server] bypass_users may; for anyone else the
// answer says why not.
func ServerBypass(cfg *Config, p Pusher) (allowed bool, why string) {
	if cfg != nil && slices.Contains(cfg.Server.BypassUsers, p.User) {
		return true, ""
	}
	where := "the server's .guard.toml"
	if cfg != nil && cfg.Path != "" {
		where = cfg.Path
	}
	return false, fmt.Sprintf("%s asked for %s, but only users in [server] bypass_users (%s) may bypass the server's gate", p.User, BypassOption, where)
}

// PrivateOnPublic is the rule "a repository the server publishes never takes a
// PRIVATE.txt": rel is a path (slash-separated, relative to the top) that the push
// adds or keeps in its tree. It returns the refusal's reason, or false.
func PrivateOnPublic(cfg *Config, rel string) (reason string, refused bool) {
	if cfg == nil || cfg.Server.Visibility != ServerPublic || !strings.EqualFold(path.Base(rel), PrivateMarkerName) {
		return "", false
	}
	return fmt.Sprintf("%s says its project must stay private, and this repository is public (%s: [server] visibility = \"public\"); remove it from the pushed commits, or publish elsewhere",
		rel, cfg.Path), true
}

// PinConfig makes cfg the configuration the policy uses for dir (and err its error),
// instead of the .guard.toml it would find there: the server gate judges a pushed tree
// written out in a scratch folder, whose [backend] is the server's to name, not the
// pushed file's.
func (p *Policy) PinConfig(dir string, cfg *Config, err error) {
	if cfg == nil {
		cfg = &Config{}
	}
	p.configs[filepath.Clean(dir)], p.cfgErrs[filepath.Clean(dir)] = cfg, err
}

// ServerTreeConfig is the configuration of a pushed tree written out at top, as the
// server judges it: the tree's own .guard.toml (its scopes) with the server's
// [backend] in place of whatever the tree names. treeErr is the pushed file's error
// (the push cannot be judged: guard cannot tell what its locks cover); err is the server's:
// a [backend] without project_id cannot be placed on a server (there is no origin
// remote to take it from).
func ServerTreeConfig(top string, server *Config) (cfg *Config, treeErr, err error) {
	cfg = &Config{}
	p := filepath.Join(top, ConfigFileName)
	if st, serr := os.Stat(p); serr == nil && st.Mode().IsRegular() {
		tree, lerr := LoadConfig(p)
		if lerr != nil {
			// Named as the repository names it, not by the scratch folder.
			treeErr = errors.New(strings.ReplaceAll(lerr.Error(), top+string(filepath.Separator), ""))
		} else {
			cfg = tree
		}
	}
	cfg.Backend = nil
	if server != nil && server.Backend != nil {
		b := *server.Backend
		if b.ProjectID == "" {
			return nil, treeErr, Fail(BadInput, "%s: [backend] has no project_id: on a server, set project_id to the project's id as its clones use it (the normalised URL of their origin remote)", server.Path)
		}
		cfg.Backend = &b
		// The connection is the server's: keyed by its file.
		cfg.Path = server.Path
	}
	return cfg, treeErr, nil
}
