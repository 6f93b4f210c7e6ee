package guard

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/guardlocks/guard/lockcore"
)

// The one list of guard's control files: the files that decide what guard enforces,
// so that whoever rewrites them can switch guard off for the commands after. The
// sandbox keeps them read-only (CONTRACT.md section 11, ReadOnlyAreas) and the agent
// hook asks before an agent changes one; both ask ControlFile. Lock files are not in
// it: they are judged by their owner.

// AgentSettingsFiles are the agents' settings files that hold guard's hook, relative
// to a project's top or to the user's home (where the user-level copies live);
// ".claude/settings*.json" stands for every settings file of Claude Code's folder.
var AgentSettingsFiles = []string{".claude/settings.json", ".claude/settings.local.json",
	".gemini/settings.json", ".codex/hooks.json", ".codex/config.toml"}

// AgentSettingsDirs are the folders that hold them: removing or moving one takes
// the settings along.
var AgentSettingsDirs = []string{".claude", ".gemini", ".codex"}

// ManagedHookMarker starts the line by which a git hook says guard wrote it
// (install.Marker; guard cannot import install, cmd/guard's tests hold them equal).
const ManagedHookMarker = "# guard-managed-hook:"

// ControlFile says what path is when it is one of guard's control files, in a
// sentence fragment ("a permissions file (...)"), and "" otherwise: a publication
// marker, a permissions file, guard's configuration, an agent's settings file that
// runs guard's hook, or a git hook guard installed (the one kind it opens the file to
// tell: a file in a folder named hooks that carries ManagedHookMarker). Names compare
// ignoring case, as IsMarkerName does: on a case-insensitive file system a near-miss
// is the same file (fail closed).
func ControlFile(path string) string {
	base := filepath.Base(path)
	switch {
	case IsMarkerName(base):
		return "a publication marker (it decides whether this project may be published)"
	case isPermissionsName(base):
		return "a permissions file (it says what agents may do here)"
	case strings.EqualFold(base, ConfigFileName):
		return "guard's configuration (it says which folders a scoped lock covers)"
	case IsAgentSettings(path):
		return "an agent's settings file (it runs guard's hook)"
	case strings.EqualFold(filepath.Base(filepath.Dir(path)), "hooks") && IsManagedHook(path):
		return "a git hook guard installed (it runs guard's checks)"
	}
	return ""
}

// IsAgentSettings reports whether path is one of AgentSettingsFiles, wherever it
// lies (a project's, the user's, or a subfolder's: an agent started there reads it).
func IsAgentSettings(path string) bool {
	dir := strings.ToLower(filepath.Base(filepath.Dir(path)))
	base := strings.ToLower(filepath.Base(path))
	if dir == ".claude" {
		return strings.HasPrefix(base, "settings") && strings.HasSuffix(base, ".json")
	}
	for _, f := range AgentSettingsFiles {
		if dir+"/"+base == f {
			return true
		}
	}
	return false
}

// IsAgentSettingsDir reports whether path is one of AgentSettingsDirs.
func IsAgentSettingsDir(path string) bool {
	base := filepath.Base(path)
	for _, d := range AgentSettingsDirs {
		if strings.EqualFold(base, d) {
			return true
		}
	}
	return false
}

// IsManagedHook reports whether the file at path is a git hook guard wrote: its
// first 4 KiB hold ManagedHookMarker at the start of a line. A file that cannot be
// read is not one (nothing to protect).
func IsManagedHook(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, 4096)
	n, _ := f.Read(buf)
	buf = buf[:n]
	return bytes.HasPrefix(buf, []byte(ManagedHookMarker)) || bytes.Contains(buf, []byte("\n"+ManagedHookMarker))
}

// isControlCandidate picks, by name alone, the files a scan reports for ControlFile
// to judge (a scan sees names, not folders): the protected names, and every name an
// agent's settings file or a hook guard installed may have.
func isControlCandidate(name string) bool {
	if IsProtectedName(name) {
		return true
	}
	lower := strings.ToLower(name)
	return (strings.HasPrefix(lower, "settings") && strings.HasSuffix(lower, ".json")) || lower == "hooks.json" || lower == "config.toml"
}

func isPermissionsName(name string) bool {
	for _, p := range lockcore.PermissionsFileNames {
		if strings.EqualFold(name, p) {
			return true
		}
	}
	return false
}
