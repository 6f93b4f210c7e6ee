package lockcore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/guardlocks/guard/internal/lazyre"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Default walk depths of lock_roots.json (LOCK-SYSTEM.md).
const (
	DefaultMaxDepth     = 4
	DefaultShallowDepth = 2
)

// RootsConfig is a lock_roots.json file: where the scanner looks for locks and where
// it writes its caches.
type RootsConfig struct {
	// File is the file the configuration was read from ("" for the built-in one).
	File            string
	DefaultMaxDepth int
	ShallowDepth    int
	// SkipDirs holds directory names, lower-cased, whose subtrees are never walked.
	SkipDirs []string
	Roots    []Root
	Caches   []Cache
}

// Root is one tree to scan. Path is expanded ($VAR, ${VAR}, ~) but may still be
// relative (to the directory the command runs in, as with the reference).
type Root struct {
	Path    string
	Shallow bool
}

// Cache is one LOCK-CACHE.md to write: the locks under FilterPrefix (all when empty)
// go into the file at Path, titled with Name.
type Cache struct {
	Name         string
	Path         string
	FilterPrefix string
}

// DepthOf returns how deep root is walked: ShallowDepth for a shallow root, else
// DefaultMaxDepth.
func (c *RootsConfig) DepthOf(r Root) int {
	if r.Shallow {
		return c.ShallowDepth
	}
	return c.DefaultMaxDepth
}

// DefaultRootsConfig is the configuration used without a roots file: the default
// depths, no roots, no caches, and no skipped directories (as the reference reads a
// file without skip_dirs).
func DefaultRootsConfig() *RootsConfig {
	return &RootsConfig{DefaultMaxDepth: DefaultMaxDepth, ShallowDepth: DefaultShallowDepth}
}

// Expander expands $VAR, ${VAR} and a leading ~ in configured paths the way the
// reference does (os.path.expandvars, then os.path.expanduser). It reads nothing from
// the process itself.
type Expander struct {
	// Getenv returns a variable's value; a variable it returns "" for is left as
	// written (expandvars leaves unknown variables alone).
	Getenv func(string) string
	// Home is the user's home directory; "" leaves ~ as written.
	Home string
}

var varRE = lazyre.New(`\$([A-Za-z0-9_]+|\{[^}]*\})`)

// Expand expands p.
func (e Expander) Expand(p string) string {
	if e.Getenv != nil && strings.Contains(p, "$") {
		p = varRE.ReplaceAllStringFunc(p, func(m string) string {
			name := strings.TrimSuffix(strings.TrimPrefix(m[1:], "{"), "}")
			if v := e.Getenv(name); v != "" {
				return v
			}
			return m
		})
	}
	if e.Home != "" && (p == "~" || strings.HasPrefix(p, "~/") || strings.HasPrefix(p, `~\`)) {
		p = strings.TrimRight(e.Home, `/\`) + p[1:]
		if p == "" {
			p = "/"
		}
	}
	return p
}

// rootsFile is the JSON shape of lock_roots.json. Pointers tell a missing key (the
// default applies) from a zero.
type rootsFile struct {
	DefaultMaxDepth *int        `json:"default_max_depth"`
	ShallowDepth    *int        `json:"shallow_depth"`
	SkipDirs        []string    `json:"skip_dirs"`
	Roots           []rootEntry `json:"roots"`
	Caches          []struct {
		Name         string `json:"name"`
		Path         string `json:"path"`
		FilterPrefix string `json:"filter_prefix"`
	} `json:"caches"`
}

// rootEntry accepts {"path", "shallow"} and, leniently, a bare path string.
type rootEntry struct {
	Path    string `json:"path"`
	Shallow bool   `json:"shallow"`
}

// UnmarshalJSON reads a root given as a string or as an object.
func (r *rootEntry) UnmarshalJSON(data []byte) error {
	if bytes.HasPrefix(bytes.TrimSpace(data), []byte(`"`)) {
		return json.Unmarshal(data, &r.Path)
	}
	type plain rootEntry
	return json.Unmarshal(data, (*plain)(r))
}

// LoadRootsConfig reads the roots file at path. A missing or malformed file is an
// error naming the file (and, for bad JSON, the line).
func LoadRootsConfig(path string, exp Expander) (*RootsConfig, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("roots file: %w", err)
	}
	return ParseRootsConfig(path, data, exp)
}

// ParseRootsConfig parses the contents of a roots file; name is used in errors.
func ParseRootsConfig(name string, data []byte, exp Expander) (*RootsConfig, error) {
	var raw rootsFile
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		return nil, jsonError(name, data, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: extra data after the JSON object", name)
	}
	c := DefaultRootsConfig()
	c.File = name
	if raw.DefaultMaxDepth != nil {
		c.DefaultMaxDepth = *raw.DefaultMaxDepth
	}
	if raw.ShallowDepth != nil {
		c.ShallowDepth = *raw.ShallowDepth
	}
	for _, s := range raw.SkipDirs {
		c.SkipDirs = append(c.SkipDirs, strings.ToLower(s))
	}
	for i, r := range raw.Roots {
		if r.Path == "" {
			return nil, fmt.Errorf("%s: roots[%d]: missing path", name, i)
		}
		c.Roots = append(c.Roots, Root{Path: exp.Expand(r.Path), Shallow: r.Shallow})
	}
	for i, ca := range raw.Caches {
		if ca.Path == "" {
			return nil, fmt.Errorf("%s: caches[%d]: missing path", name, i)
		}
		cache := Cache{Name: ca.Name, Path: exp.Expand(ca.Path), FilterPrefix: ca.FilterPrefix}
		if cache.FilterPrefix != "" {
			cache.FilterPrefix = exp.Expand(cache.FilterPrefix)
		}
		if cache.Name == "" {
			cache.Name = filepath.Base(cache.Path)
		}
		c.Caches = append(c.Caches, cache)
	}
	return c, nil
}

// jsonError names the file and the line of a JSON decoding error.
func jsonError(name string, data []byte, err error) error {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		off = int64(len(data))
	}
	if off < 0 {
		return fmt.Errorf("%s: %w", name, err)
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	return fmt.Errorf("%s:%d: %w", name, line, err)
}
