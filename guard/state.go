package guard

import (
	"errors"
	"path/filepath"
	"strings"
)

// StateDir is guard's own state directory, outside every project folder:
// $XDG_STATE_HOME/guard when XDG_STATE_HOME is an absolute path, else
// ~/.local/state/guard. It is not created here.
func StateDir(env *Env) (string, error) {
	if s := env.Env("XDG_STATE_HOME"); s != "" && filepath.IsAbs(s) {
		return filepath.Join(s, "guard"), nil
	}
	home := env.Env("HOME")
	if home == "" {
		return "", errors.New("neither XDG_STATE_HOME nor HOME is set: guard has no state directory")
	}
	return filepath.Join(home, ".local", "state", "guard"), nil
}

// ResourcesDir is where resource locks live (CONTRACT.md section 8): [resources] dir
// of the current directory's .guard.toml (relative to that file's directory, ~
// expanded), else StateDir/resources. It is not created here.
func ResourcesDir(env *Env, cfg *Config) (string, error) {
	if cfg != nil && cfg.Resources.Dir != "" {
		d := cfg.Resources.Dir
		if d == "~" || strings.HasPrefix(d, "~/") {
			home := env.Env("HOME")
			if home == "" {
				return "", errors.New(cfg.Path + ": [resources] dir starts with ~ but HOME is not set")
			}
			d = filepath.Join(home, strings.TrimPrefix(d, "~"))
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(cfg.Dir, d)
		}
		return filepath.Clean(d), nil
	}
	s, err := StateDir(env)
	if err != nil {
		return "", err
	}
	return filepath.Join(s, "resources"), nil
}
