package mcp

import (
	"context"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/guardlocks/guard/command"
	"github.com/guardlocks/guard/guard"
)

// The tools' inputs (CONTRACT.md section 12). Each tool calls the run function of the
// CLI command it stands for, with the server's identity, and returns that command's
// --json document: guard mcp adds no rule of its own.

// StatusInput is the status tool's input.
type StatusInput struct {
	Path     string `json:"path,omitempty" jsonschema:"the folder asked about, relative to the project or absolute (default: the project)"`
	Resource string `json:"resource,omitempty" jsonschema:"ask about this resource URI instead of a folder"`
}

// CheckInput is the check tool's input.
type CheckInput struct {
	Path string `json:"path" jsonschema:"the file or folder you want to change, relative to the project or absolute"`
	Op   string `json:"op,omitempty" jsonschema:"the operation: edit (default), commit, push, release-tag, publish-release, registry-upload, visibility-public"`
}

// LockInput is the lock tool's input.
type LockInput struct {
	Path     string `json:"path,omitempty" jsonschema:"the folder to claim, relative to the project or absolute (default: the project); a claim covers everything inside it"`
	Resource string `json:"resource,omitempty" jsonschema:"claim this resource URI (a database, a deployment target) instead of a folder"`
	Kind     string `json:"kind,omitempty" jsonschema:"exclusive (default), team (shared with the agents of your host), or condition (holds until release_condition is met)"`
	Scope    string `json:"scope,omitempty" jsonschema:"a name for part of the folder (letters, digits, _ and -); default: the whole folder"`
	Purpose  string `json:"purpose,omitempty" jsonschema:"what you are doing there, in a few words: others read it when you block them"`
	Expires  string `json:"expires,omitempty" jsonschema:"how long the claim lasts, <number><s|m|h|d> (default 24h); renew to keep it longer"`
	// ReleaseCondition is what must happen for a condition lock to go.
	ReleaseCondition string `json:"release_condition,omitempty" jsonschema:"for kind condition: what must happen before the lock may go"`
}

// RenewInput is the renew tool's input.
type RenewInput struct {
	Path     string `json:"path,omitempty" jsonschema:"the folder of your lock, or the lock file itself (default: the project)"`
	Resource string `json:"resource,omitempty" jsonschema:"renew your lock of this resource URI instead"`
	Scope    string `json:"scope,omitempty" jsonschema:"the scope your lock was taken with"`
	Expires  string `json:"expires,omitempty" jsonschema:"a new lifetime, <number><s|m|h|d> (default: the lock's own)"`
}

// UnlockInput is the unlock tool's input.
type UnlockInput struct {
	Path     string `json:"path,omitempty" jsonschema:"the folder of your lock, or the lock file itself (default: the project)"`
	Resource string `json:"resource,omitempty" jsonschema:"release your lock of this resource URI instead"`
	Scope    string `json:"scope,omitempty" jsonschema:"the scope your lock was taken with"`
}

// HistoryInput is the history tool's input.
type HistoryInput struct {
	Path  string `json:"path,omitempty" jsonschema:"only events of locks in or under this folder"`
	Limit int    `json:"limit,omitempty" jsonschema:"at most this many events, newest first (default 20)"`
}

const (
	descStatus = `Is this folder (or resource) locked, and by whom? Returns guard status --json: ` +
		`{"dir","locked","locks":[...]} with each lock's owner, purpose and expiry. Use it to look before choosing where to work.`
	descCheck = `May you do op (default edit) on this path now? Returns guard check --json: {"op","allowed","blocking":[...],"warnings"}. ` +
		`Call it before editing a file or folder you have not claimed; a refusal is an answer ("allowed": false, naming the lock and its holder), not an error. ` +
		`When refused: call wait on the path, or work in another area.`
	descLock = `Claim a folder (or a resource) before you work in it, so that others wait for you instead of overwriting your work. ` +
		`Give a purpose. Returns guard lock --json (the lock file, its fence). Taking your own lock again renews it. ` +
		`If someone else holds the area, this fails naming the holder: then call wait, or claim another area. Release it with unlock when you are done.`
	descRenew = `Keep your claim alive: moves your lock's start to now (and optionally sets a new lifetime). Call it during long work, before the lock expires. ` +
		`Returns guard renew --json. Fails when the lock is not yours or has expired (then claim again with lock).`
	descUnlock = `Release your own lock when your work in that area is done, so others may go on. Only your own locks: ` +
		`guard mcp never removes another's lock. Returns guard unlock --json.`
	descWait = `Wait until a path you were refused (or a resource) is free for you: returns as soon as its lock is released, expires or is pruned, ` +
		`or at the timeout with "timed_out": true. Use it instead of retrying or working around a lock; then claim the area with lock. ` +
		`Reports progress while waiting and stops when cancelled. Returns guard check --json (for a resource guard status --json) with "timed_out" and "waited_seconds".`
	descHistory = `What happened to the locks here: claims, releases, refusals, newest first. Returns guard history --json. ` +
		`Use it to see who worked in an area recently and for how long.`
)

func readOnly() *sdk.ToolAnnotations {
	return &sdk.ToolAnnotations{ReadOnlyHint: true}
}

func (sv *Server) addTools() {
	f := false
	sdk.AddTool(sv.sdk, &sdk.Tool{Name: "status", Description: descStatus, Annotations: readOnly()}, sv.status)
	sdk.AddTool(sv.sdk, &sdk.Tool{Name: "check", Description: descCheck, Annotations: readOnly()}, sv.check)
	sdk.AddTool(sv.sdk, &sdk.Tool{Name: "lock", Description: descLock, Annotations: &sdk.ToolAnnotations{DestructiveHint: &f}}, sv.lock)
	sdk.AddTool(sv.sdk, &sdk.Tool{Name: "renew", Description: descRenew, Annotations: &sdk.ToolAnnotations{DestructiveHint: &f, IdempotentHint: true}}, sv.renew)
	sdk.AddTool(sv.sdk, &sdk.Tool{Name: "unlock", Description: descUnlock, Annotations: &sdk.ToolAnnotations{DestructiveHint: &f, IdempotentHint: true}}, sv.unlock)
	sdk.AddTool(sv.sdk, &sdk.Tool{Name: "wait", Description: descWait, Annotations: readOnly()}, sv.wait)
	sdk.AddTool(sv.sdk, &sdk.Tool{Name: "history", Description: descHistory, Annotations: readOnly()}, sv.history)
}

func (sv *Server) status(_ context.Context, _ *sdk.CallToolRequest, in StatusInput) (*sdk.CallToolResult, any, error) {
	o := sv.invoke(func(env *guard.Env) error {
		return command.RunStatus(command.StatusOptions{Env: env, Dir: sv.abs(in.Path), Resource: in.Resource, JSON: true})
	})
	return result(o, "", guard.Refused)
}

func (sv *Server) check(_ context.Context, _ *sdk.CallToolRequest, in CheckInput) (*sdk.CallToolResult, any, error) {
	if strings.TrimSpace(in.Path) == "" {
		return sv.toolError("check: name the path you want to change (path)")
	}
	owner, _ := sv.identity()
	o := sv.invoke(func(env *guard.Env) error {
		return command.RunCheck(command.CheckOptions{Env: env, Op: in.Op, Owner: owner, Host: sv.o.Host, JSON: true, Paths: []string{sv.abs(in.Path)}})
	})
	return result(o, "", guard.Refused)
}

func (sv *Server) lock(ctx context.Context, _ *sdk.CallToolRequest, in LockInput) (*sdk.CallToolResult, any, error) {
	naming, err := sv.naming(in.Kind, in.Scope, in.ReleaseCondition)
	if err != "" {
		return sv.toolError("lock: %s", err)
	}
	if in.Path != "" && in.Resource != "" {
		return sv.toolError("lock: give path or resource, not both")
	}
	owner, _ := sv.identity()
	o := sv.invoke(func(env *guard.Env) error {
		return command.RunLock(ctx, command.LockOptions{Env: env, Dir: sv.target(in.Path, in.Resource), Resource: in.Resource, LockNaming: naming, Owner: owner, Host: sv.o.Host,
			Expires: in.Expires, Purpose: in.Purpose, ReleaseCondition: in.ReleaseCondition, Quarantine: -1, JSON: true})
	})
	if o.err == nil {
		sv.remember(o.stdout, owner)
	}
	return result(o, "call wait with this path to be told when it is free, or claim another area; do not remove or replace another's lock")
}

// naming turns the lock tool's kind into the CLI's naming flags: exclusive, team (of
// this host) or condition. A user lock is a person's (only a person removes it), and
// guard mcp serves agents: not offered.
func (sv *Server) naming(kind, scope, cond string) (command.LockNaming, string) {
	n := command.LockNaming{Scope: scope}
	switch strings.ToLower(strings.TrimSpace(kind)) {
	case "", "exclusive":
	case "team":
		n.Team = sv.usual().Host
	case "condition":
		if strings.TrimSpace(cond) == "" {
			return n, "kind condition needs release_condition (what must happen before the lock may go)"
		}
		n.Condition = true
	case "user":
		return n, "a user lock is a person's (only a person removes it): claim an exclusive lock instead"
	default:
		return n, "kind " + kind + " is not exclusive, team or condition"
	}
	return n, ""
}

// target is the folder (or lock file) a tool's path names, absolute; "" when the
// tool names a resource instead, whose lock lives elsewhere.
func (sv *Server) target(path, resource string) string {
	if resource != "" {
		return ""
	}
	return sv.abs(path)
}

func (sv *Server) renew(ctx context.Context, _ *sdk.CallToolRequest, in RenewInput) (*sdk.CallToolResult, any, error) {
	owner, _ := sv.identity()
	o := sv.invoke(func(env *guard.Env) error {
		return command.RunRenew(ctx, command.RenewOptions{Env: env, Target: sv.target(in.Path, in.Resource), Resource: in.Resource, LockNaming: command.LockNaming{Scope: in.Scope},
			Owner: owner, Expires: in.Expires, JSON: true})
	})
	return result(o, "claim the area again with lock (a lock that is not yours, or expired, cannot be renewed)")
}

func (sv *Server) unlock(ctx context.Context, _ *sdk.CallToolRequest, in UnlockInput) (*sdk.CallToolResult, any, error) {
	owner, _ := sv.identity()
	o := sv.invoke(func(env *guard.Env) error {
		// Never Force: an agent releases its own locks only.
		return command.RunUnlock(ctx, command.UnlockOptions{Env: env, Target: sv.target(in.Path, in.Resource), Resource: in.Resource, LockNaming: command.LockNaming{Scope: in.Scope},
			Owner: owner, JSON: true})
	})
	return result(o, "only the holder releases a lock: leave it, wait for it, or ask the person you work for")
}

func (sv *Server) history(ctx context.Context, _ *sdk.CallToolRequest, in HistoryInput) (*sdk.CallToolResult, any, error) {
	if sv.o.History == nil {
		return sv.toolError("history: this guard was built without the history")
	}
	limit := in.Limit
	if limit <= 0 {
		limit = 20
	}
	path := ""
	if in.Path != "" {
		path = sv.abs(in.Path)
	}
	o := sv.invoke(func(env *guard.Env) error { return sv.o.History(ctx, env, path, limit) })
	return result(o, "")
}
