package guard

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/guardlocks/guard/internal/atomicfile"
)

// AgentIdentity is who a coding agent's session is for lock ownership (CONTRACT.md
// sections 4 and 12), the one answer the agent hook, agent-release and guard mcp
// share: GUARD_OWNER when it is set, else the session id, else base (guard's usual
// identity for the path, CONTRACT.md section 2). The host is always base's.
func AgentIdentity(env *Env, sessionID string, base Identity) Identity {
	id := base
	if AgentSource(env, sessionID) == FromSession {
		id.Owner = sessionID
	}
	return id
}

// AgentOwner is the owner AgentIdentity gives when it is not base's: GUARD_OWNER,
// else the session id; "" when neither is known (the caller then resolves guard's
// usual identity, per path, as the CLI does).
func AgentOwner(env *Env, sessionID string) string {
	switch AgentSource(env, sessionID) {
	case FromGuardOwner:
		return env.Env("GUARD_OWNER")
	case FromSession:
		return sessionID
	}
	return ""
}

// Where AgentIdentity takes an agent's owner from (AgentSource).
const (
	// FromGuardOwner: GUARD_OWNER is set, and names the agent whatever its session.
	FromGuardOwner = "GUARD_OWNER"
	// FromSession: the agent is known by its session id alone.
	FromSession = "session"
	// FromUsual: neither is known; the agent is guard's usual identity for the path
	// (CONTRACT.md section 2: .guard.toml owner, else <user>@<host>).
	FromUsual = "usual"
)

// AgentSource says where AgentIdentity takes the owner of the agent whose session is
// sessionID from: FromGuardOwner, FromSession or FromUsual. It is the one place that
// decides it; callers that explain an identity, or judge whether a command keeps it,
// ask it rather than reading GUARD_OWNER.
func AgentSource(env *Env, sessionID string) string {
	switch {
	case env.Env("GUARD_OWNER") != "":
		return FromGuardOwner
	case sessionID != "":
		return FromSession
	}
	return FromUsual
}

// An agent client starts guard twice over: a hook process for every tool call (its
// input names the session) and, for the whole session, guard mcp (which Gemini CLI
// and Codex tell nothing of the session; Claude Code sets CLAUDE_CODE_SESSION_ID, but
// only as it was when the server started). Both are children of the client's own
// process, so the hook leaves a session record keyed by that process, and guard mcp
// reads the record of its own parent: the claim is owned by exactly the session the
// hook judges the agent's writes as.

// SessionRecord is what the agent hook last saw of the session of one client process.
type SessionRecord struct {
	Agent     string
	SessionID string
	// PID is the client's process, and Start its start time as the kernel counts it
	// (Linux; "" elsewhere), so that a reused process id never inherits a session.
	PID   int
	Start string
}

// ClientPID is the agent client that started this guard process: the parent, or,
// when the parent is a shell (Claude Code runs a hook command through sh -c), the
// first ancestor that is not one. CLAUDE_PID, which Claude Code gives its hooks, wins.
// 0 when unknown.
func ClientPID(env *Env) int {
	if p, err := strconv.Atoi(env.Env("CLAUDE_PID")); err == nil && p > 1 {
		return p
	}
	pid := env.ParentPID
	for i := 0; i < 4 && pid > 1; i++ {
		ppid, comm, ok := procParent(pid)
		if !ok || !isShell(comm) {
			break
		}
		pid = ppid
	}
	if pid <= 1 {
		return 0
	}
	return pid
}

func isShell(comm string) bool {
	switch comm {
	case "sh", "bash", "dash", "zsh", "ash", "ksh", "fish":
		return true
	}
	return false
}

// procParent reads a process's parent and command name from /proc (Linux); ok is
// false elsewhere, or when the process is gone.
func procParent(pid int) (ppid int, comm string, ok bool) {
	fields, comm, ok := procStat(pid)
	if !ok || len(fields) < 2 {
		return 0, "", false
	}
	ppid, err := strconv.Atoi(fields[1])
	return ppid, comm, err == nil
}

// procStat splits /proc/PID/stat after the command name: fields[0] is the state,
// fields[1] the parent, fields[19] the start time.
func procStat(pid int) (fields []string, comm string, ok bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil, "", false
	}
	s := string(data)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return nil, "", false
	}
	return strings.Fields(s[end+1:]), s[open+1 : end], true
}

// procStart is a process's start time (/proc/PID/stat field 22); "" when unknown.
func procStart(pid int) string {
	fields, _, ok := procStat(pid)
	if !ok || len(fields) < 20 {
		return ""
	}
	return fields[19]
}

// sessionDir is where the session records live: guard's state directory, outside
// every project (a hook must not add files to the tree it guards, nor to its git
// directory). Both processes find it alike: Claude Code and Gemini CLI give guard mcp
// their environment, and agent-install has Codex pass XDG_STATE_HOME (it always
// passes HOME).
func sessionDir(env *Env) (string, error) {
	state, err := StateDir(env)
	if err != nil {
		return "", err
	}
	return filepath.Join(state, "agent-sessions"), nil
}

// RecordAgentSession leaves the record of the session the hook is judging, for
// guard mcp in the same client. It writes only
// when the record changes, so that the hook's every call costs one small read. A
// record that cannot be written is no refusal: guard mcp then falls back to what the
// client tells it.
func RecordAgentSession(env *Env, agent, sessionID string) {
	pid := ClientPID(env)
	if pid == 0 || sessionID == "" || strings.ContainsAny(sessionID, "\n\r") || strings.ContainsAny(agent, "\n\r") {
		return
	}
	sd, err := sessionDir(env)
	if err != nil {
		return
	}
	text := formatSession(SessionRecord{Agent: agent, SessionID: sessionID, PID: pid, Start: procStart(pid)})
	path := filepath.Join(sd, strconv.Itoa(pid))
	if old, err := os.ReadFile(path); err == nil && string(old) == text {
		return
	}
	if err := os.MkdirAll(sd, 0o700); err != nil {
		return
	}
	_ = atomicfile.Write(path, []byte(text), 0o600)
}

func formatSession(r SessionRecord) string {
	return fmt.Sprintf("agent: %s\nsession: %s\npid: %d\nstart: %s\n", r.Agent, r.SessionID, r.PID, r.Start)
}

// ParseSessionRecord reads a session record as RecordAgentSession writes it.
func ParseSessionRecord(data []byte) (SessionRecord, error) {
	var r SessionRecord
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		k, v, ok := strings.Cut(line, ": ")
		if !ok && strings.HasSuffix(line, ":") {
			k, v, ok = strings.TrimSuffix(line, ":"), "", true
		}
		if !ok || seen[k] {
			return SessionRecord{}, fmt.Errorf("session record: bad line %q", line)
		}
		seen[k] = true
		switch k {
		case "agent":
			r.Agent = v
		case "session":
			r.SessionID = v
		case "pid":
			p, err := strconv.Atoi(v)
			if err != nil || p <= 1 {
				return SessionRecord{}, fmt.Errorf("session record: bad pid %q", v)
			}
			r.PID = p
		case "start":
			r.Start = v
		default:
			return SessionRecord{}, fmt.Errorf("session record: unknown key %q", k)
		}
	}
	if r.SessionID == "" || r.PID == 0 {
		return SessionRecord{}, errors.New("session record: no session or pid")
	}
	return r, nil
}

// ClientSession is the session of the agent client that started guard mcp, and how
// guard knows it: the record the client's agent hook left (its latest session, also
// after Claude Code's /clear starts a new one), else CLAUDE_CODE_SESSION_ID (Claude
// Code gives it to the MCP servers it starts), else nothing ("", "").
func ClientSession(env *Env) (sessionID, how string) {
	if pid := ClientPID(env); pid != 0 {
		if sd, err := sessionDir(env); err == nil {
			// A record that is missing or unreadable leaves what the client says.
			if data, err := os.ReadFile(filepath.Join(sd, strconv.Itoa(pid))); err == nil {
				r, err := ParseSessionRecord(data)
				if err == nil && r.PID == pid && (r.Start == "" || r.Start == procStart(pid)) {
					return r.SessionID, fmt.Sprintf("the %s session the agent hook judged in client process %d", orAgent(r.Agent), pid)
				}
			}
		}
	}
	if sid := env.Env("CLAUDE_CODE_SESSION_ID"); sid != "" {
		return sid, "CLAUDE_CODE_SESSION_ID"
	}
	return "", ""
}

func orAgent(s string) string {
	if s == "" {
		return "agent"
	}
	return s
}
