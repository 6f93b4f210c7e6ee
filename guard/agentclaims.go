package guard

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// An agent's claims through guard mcp are locks like any other (it may name any
// folder, with any purpose), so agent-release could not tell them from the locks the
// same identity took by hand. guard mcp keeps a journal of them instead, one file per
// owner and session beside the session records (a session's claims may lie in several
// projects, and resource locks in none; agents sharing one GUARD_OWNER end their
// sessions apart), and agent-release at session end releases what it lists (those
// still the owner's) and forgets it.

// claimsDir holds the journals.
func claimsDir(env *Env) (string, error) {
	sd, err := sessionDir(env)
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(sd), "agent-claims"), nil
}

// claimsName is the journal of owner's claims in session: the owner's hash, then the
// session's; session "" is the journal of the owner's claims made where no session was
// known (the name every journal had before there were sessions in it).
func claimsName(owner, session string) string {
	name := shortHash(owner)
	if session != "" {
		name += "-" + shortHash(session)
	}
	return name
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:12])
}

// claimsFiles are the journals a release of owner's claims in session reads: the
// session's and the owner's sessionless one; every journal of owner's when session is
// "" (a release that names no session).
func claimsFiles(env *Env, owner, session string) []string {
	dir, err := claimsDir(env)
	if err != nil {
		return nil
	}
	files := []string{filepath.Join(dir, claimsName(owner, ""))}
	if session != "" {
		return append(files, filepath.Join(dir, claimsName(owner, session)))
	}
	more, _ := filepath.Glob(filepath.Join(dir, claimsName(owner, "")+"-*"))
	return append(files, more...)
}

// RecordAgentClaim notes that owner claimed the lock at lockPath through guard mcp in
// session ("" when guard mcp knows none), so that agent-release at that session's end
// releases it.
func RecordAgentClaim(env *Env, owner, session, lockPath string) error {
	if owner == "" || strings.ContainsAny(lockPath, "\n\r") {
		return nil
	}
	dir, err := claimsDir(env)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, claimsName(owner, session))
	if slices.Contains(readClaims(path), lockPath) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	// One write of one line: appends of concurrent tool calls do not interleave.
	_, werr := f.WriteString(lockPath + "\n")
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

// AgentClaims returns the lock paths owner claimed through guard mcp in session (with
// those made where no session was known; every session's when session is ""). Some
// may be released or taken over since: the caller checks.
func AgentClaims(env *Env, owner, session string) []string {
	var out []string
	for _, f := range claimsFiles(env, owner, session) {
		for _, p := range readClaims(f) {
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// readClaims reads one journal; a missing one lists nothing.
func readClaims(path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		if filepath.IsAbs(line) {
			out = append(out, line)
		}
	}
	return out
}

// ForgetAgentClaims removes the journals AgentClaims read for owner and session.
func ForgetAgentClaims(env *Env, owner, session string) {
	for _, f := range claimsFiles(env, owner, session) {
		_ = os.Remove(f)
	}
}
