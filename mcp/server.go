package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/lockcore"
)

// Options are the inputs of `guard mcp`.
type Options struct {
	Env *guard.Env
	// Owner and Host are --owner and --host: who claims (default: the identity the
	// agent hook judges this client's session as, see Server.identity).
	Owner string
	Host  string
	// Version is guard's version, told to the client at initialize.
	Version string
	// ReleaseOnExit releases the claims this server made when its client goes (stdin
	// closes): the session end of a client that runs no session-end hook of guard's
	// (Codex), which agent-install registers with --release-on-exit.
	ReleaseOnExit bool
	// History runs `guard history --json [PATH] --limit N` in env (cmd/guard wires the
	// history package, which a -tags nohistory build leaves out; nil: the history tool
	// says it is not in this build).
	History func(ctx context.Context, env *guard.Env, path string, limit int) error
	// ExitCode is the exit code the CLI gives for a command's error (cmd/guard wires
	// in its mapping of guard.Outcome): the number every tool result carries.
	// Required.
	ExitCode func(error) int
}

// Server is one guard mcp server: the MCP SDK's server with guard's tools and the
// lock resource.
type Server struct {
	o   Options
	sdk *sdk.Server

	// inFlight counts the requests being handled, so that the end of the input waits
	// for their answers (a client that writes its calls and closes stdin gets them).
	inFlight sync.WaitGroup

	claimsMu sync.Mutex
	claims   map[string]string // lock path -> owner, of the claims this server made

	watchMu     sync.Mutex
	watchCancel context.CancelFunc
	watchDone   chan struct{}
}

// New builds the server (tests connect it to an in-memory transport).
func New(o Options) *Server {
	version := o.Version
	if version == "" {
		version = "dev"
	}
	sv := &Server{o: o}
	sv.sdk = sdk.NewServer(&sdk.Implementation{Name: "guard", Title: "guard: LOCK-SYSTEM locks", Version: version}, &sdk.ServerOptions{
		Instructions: instructions,
		// Only tools and the resource: no logging capability to advertise.
		Capabilities:       &sdk.ServerCapabilities{},
		SubscribeHandler:   sv.subscribe,
		UnsubscribeHandler: func(context.Context, *sdk.UnsubscribeRequest) error { return nil },
	})
	sv.addTools()
	sv.addResources()
	sv.sdk.AddReceivingMiddleware(sv.exitCodeOfSDKErrors, sv.countInFlight)
	return sv
}

func (sv *Server) countInFlight(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		sv.inFlight.Add(1)
		defer sv.inFlight.Done()
		return next(ctx, method, req)
	}
}

// exitCodeOfSDKErrors gives the tool errors the SDK makes itself (arguments that do
// not match a tool's schema) the exit code of bad input, as guard's own have.
func (sv *Server) exitCodeOfSDKErrors(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		res, err := next(ctx, method, req)
		if r, ok := res.(*sdk.CallToolResult); ok && r.IsError {
			if _, has := r.Meta[ExitCodeMeta]; !has {
				if r.Meta == nil {
					r.Meta = sdk.Meta{}
				}
				r.Meta[ExitCodeMeta] = sv.badInputCode()
			}
		}
		return res, err
	}
}

// instructions is what the client tells the model about the server as a whole.
const instructions = `guard enforces LOCK-SYSTEM locks in this project: a folder locked by someone else
refuses your writes. Before working in an area, call check (may I edit it?) or lock (claim
it, with a purpose, so others wait for you). When a write is refused, call wait on that
path rather than working around the lock, or claim another area. Release what you claimed
with unlock when done; your session's claims are also released when the session ends.`

// Run serves MCP on the Env's stdin and stdout until the client closes stdin or ctx
// ends. A bad request is answered as an error; it never ends the server.
func Run(ctx context.Context, o Options) error {
	sv := New(o)
	defer sv.stopWatch()
	if o.ReleaseOnExit {
		// The claims go when the client goes, whatever ended the serving.
		defer sv.releaseClaims(context.WithoutCancel(ctx))
	}
	out := &lockedWriter{w: o.Env.Stdout}
	t := &sdk.IOTransport{Reader: filterInput(o.Env.Stdin, out, sv.drain), Writer: out}
	err := sv.sdk.Run(ctx, t)
	if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// drain waits, at the end of the input, for the answers to the requests already read:
// the SDK reads a line before it dispatches it, so a moment's grace lets the last one
// be counted first.
func (sv *Server) drain() {
	time.Sleep(50 * time.Millisecond)
	sv.inFlight.Wait()
}

// SDK returns the MCP SDK server (tests connect it to an in-memory transport).
func (sv *Server) SDK() *sdk.Server { return sv.sdk }

// identity is who the tools act as: --owner, else the identity the agent hook judges
// this client's session as (guard.AgentOwner of the session guard.ClientSession
// finds), else "" (guard's usual identity, resolved per path as the CLI does). how
// says where it came from, for the tool results' warnings.
func (sv *Server) identity() (owner, how string) {
	env := sv.o.Env
	if sv.o.Owner != "" {
		return sv.o.Owner, "--owner"
	}
	sid, how := guard.ClientSession(env)
	switch guard.AgentSource(env, sid) {
	case guard.FromGuardOwner:
		return guard.AgentOwner(env, sid), "GUARD_OWNER"
	case guard.FromSession:
		return guard.AgentOwner(env, sid), how
	}
	return "", "guard's usual identity (no agent session was found: the agent hook has not run in this client yet, and it tells guard mcp nothing of its session)"
}

// usual is guard's usual identity in the project (CONTRACT.md section 2), with
// --host: the host of a team claim, and the owner when no session is known.
func (sv *Server) usual() guard.Identity {
	s, err := guard.ResolveSubject(sv.o.Env, sv.o.Env.Dir, guard.Identity{Host: sv.o.Host})
	if err != nil {
		// The tool's own run reports the bad configuration; this answer is not used then.
		return guard.Identity{Owner: sv.o.Env.User + "@" + sv.o.Env.Hostname, Host: sv.o.Env.Hostname}
	}
	return s.Identity
}

// outcome is what one run of a CLI command did.
type outcome struct {
	stdout []byte
	stderr string
	// err is what the command returned, code the exit code the CLI gives for it.
	err  error
	code int
}

// invoke runs a CLI command's run function in a copy of the server's Env whose
// streams are captured: the tool returns exactly what the command prints, and nothing
// reaches the protocol's stdout.
func (sv *Server) invoke(run func(env *guard.Env) error) outcome {
	e := *sv.o.Env
	var out, errb bytes.Buffer
	e.Stdin, e.Stdout, e.Stderr = strings.NewReader(""), &out, &errb
	e.StdinTTY, e.StdoutTTY, e.StderrTTY = false, false, false
	err := run(&e)
	if err != nil && !guard.IsExplained(err) {
		// As main prints it.
		fmt.Fprintf(&errb, "guard: %v\n", err)
	}
	return outcome{stdout: out.Bytes(), stderr: errb.String(), err: err, code: sv.o.ExitCode(err)}
}

// result turns an outcome into the tool's answer. Success and the outcomes in ok are
// answers (check's refusal, status's "locked"): the command's JSON as structured content
// and text, with what it wrote on stderr beside it. Anything else is a tool error:
// guard's reason and what to do now (after a refusal), and the JSON too when the
// command printed one.
func result(o outcome, whatNow string, ok ...guard.Outcome) (*sdk.CallToolResult, any, error) {
	var doc any
	if len(bytes.TrimSpace(o.stdout)) > 0 {
		if err := json.Unmarshal(o.stdout, &doc); err != nil {
			doc = nil
		}
	}
	if doc != nil && (o.err == nil || slices.Contains(ok, guard.OutcomeOf(o.err))) {
		res := &sdk.CallToolResult{Meta: exitMeta(o.code), Content: []sdk.Content{&sdk.TextContent{Text: strings.TrimSpace(string(o.stdout))}}}
		if s := strings.TrimSpace(o.stderr); s != "" {
			res.Content = append(res.Content, &sdk.TextContent{Text: s})
		}
		return res, json.RawMessage(bytes.TrimSpace(o.stdout)), nil
	}
	text := strings.TrimSpace(o.stderr)
	if text == "" {
		text = fmt.Sprintf("guard: the command ended with exit %d", o.code)
	}
	if whatNow != "" && guard.OutcomeOf(o.err).IsRefusal() {
		text += "\n  what now: " + whatNow
	}
	res := &sdk.CallToolResult{Meta: exitMeta(o.code), IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: text}}}
	if doc != nil {
		res.StructuredContent = json.RawMessage(bytes.TrimSpace(o.stdout))
	}
	return res, nil, nil
}

// ExitCodeMeta is the _meta key of every tool result that holds the exit code the CLI
// command would have given (CONTRACT.md section 3): 1 tells a refusal from bad input.
const ExitCodeMeta = "guard/exit_code"

func exitMeta(code int) sdk.Meta { return sdk.Meta{ExitCodeMeta: code} }

// badInputCode is the exit code of bad input.
func (sv *Server) badInputCode() int { return sv.o.ExitCode(guard.Explained(guard.BadInput)) }

// toolError is a tool result for input guard refuses before running anything (bad
// input).
func (sv *Server) toolError(format string, args ...any) (*sdk.CallToolResult, any, error) {
	return &sdk.CallToolResult{Meta: exitMeta(sv.badInputCode()), IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "guard: " + fmt.Sprintf(format, args...)}}}, nil, nil
}

// abs resolves a tool's path against the server's working directory (the project the
// client started it in).
func (sv *Server) abs(p string) string {
	if p == "" {
		return sv.o.Env.Dir
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(sv.o.Env.Dir, p)
	}
	return filepath.Clean(p)
}

// remember puts a claim the lock tool made into the journal of the owner and the
// client's session, which agent-release reads at that session's end
// (guard.RecordAgentClaim).
func (sv *Server) remember(lockJSON []byte, owner string) {
	var doc struct {
		Path string `json:"path"`
		Lock struct {
			Owner string `json:"owner"`
		} `json:"lock"`
	}
	if json.Unmarshal(lockJSON, &doc) != nil || doc.Path == "" {
		return
	}
	if owner == "" {
		owner = doc.Lock.Owner
	}
	session, _ := guard.ClientSession(sv.o.Env)
	_ = guard.RecordAgentClaim(sv.o.Env, owner, session, doc.Path)
	sv.claimsMu.Lock()
	defer sv.claimsMu.Unlock()
	if sv.claims == nil {
		sv.claims = map[string]string{}
	}
	sv.claims[doc.Path] = owner
}

// releaseClaims releases the claims this server made that are still their owner's
// (ReleaseOnExit), as agent-release would at the session's end.
func (sv *Server) releaseClaims(ctx context.Context) {
	env := sv.o.Env
	sv.claimsMu.Lock()
	defer sv.claimsMu.Unlock()
	for path, owner := range sv.claims {
		if found, err := guard.ReleaseHeld(ctx, env, path, owner); found || err != nil {
			continue
		}
		// Only the owner's own lock goes: one taken over or replaced since stays.
		_, _ = lockcore.Release(path, lockcore.ReleaseOptions{Owner: owner, Now: env.Clock.Now()})
	}
	sv.claims = nil
}
