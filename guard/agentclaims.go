package guard

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
)

// An agent's claims through guard mcp are locks like any other (it may name any
// folder, with any purpose), so agent-release could not tell them from the locks the
// same identity took by hand. guard mcp keeps a journal of them instead, one file per
// owner beside the session records (a session's claims may lie in several projects,
// and resource locks in none), and agent-release at session end releases what it
// lists (those still the owner's) and forgets it.

// claimsFile is owner's journal.
func claimsFile(env *Env, owner string) (string, error) {
	sd, err := sessionDir(env)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(owner))
	return filepath.Join(filepath.Dir(sd), "agent-claims", hex.EncodeToString(sum[:12])), nil
}

// RecordAgentClaim notes that owner claimed the lock at lockPath through guard mcp,
// so that agent-release at the session's end releases it.
func RecordAgentClaim(env *Env, owner, lockPath string) error {
	if owner == "" || strings.ContainsAny(lockPath, "\n\r") {
		return nil
	}
	path, err := claimsFile(env, owner)
	if err != nil {
		return err
	}
	for _, p := range AgentClaims(env, owner) {
		if p == lockPath {
			return nil
		}
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

// AgentClaims returns the lock paths owner claimed through guard mcp (some may be
// released or taken over since: the caller checks).
func AgentClaims(env *Env, owner string) []string {
	path, err := claimsFile(env, owner)
	if err != nil {
		return nil
	}
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

// ForgetAgentClaims removes owner's journal.
func ForgetAgentClaims(env *Env, owner string) {
	if path, err := claimsFile(env, owner); err == nil {
		_ = os.Remove(path)
	}
}
