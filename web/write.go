package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/guardlocks/guard/command"
	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/lockcore"
)

// decode reads a small JSON object body strictly: unknown fields and wrong types are
// 400, so "commit": "false" is an error and never a commit.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		writeError(w, http.StatusBadRequest, "request body: "+err.Error())
		return false
	}
	return true
}

// run runs one of guard's own command functions as the web's person: a copy of the
// server's environment in dir, output captured, events recorded with actor "web".
// It answers the command's JSON, or the refusal with its exit code.
func (s *Server) run(w http.ResponseWriter, dir string, f func(env *guard.Env) error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	env := *s.o.Env
	var out, errb bytes.Buffer
	env.Stdout, env.Stderr, env.Stdin = &out, &errb, strings.NewReader("")
	if dir != "" {
		env.Dir = dir
	}
	base := s.o.Env
	env.Recorder = func(ev guard.Event) {
		ev.Actor = "web"
		base.Record(ev)
	}
	err := f(&env)
	if err != nil {
		status := http.StatusBadRequest
		if o := guard.OutcomeOf(err); o.IsRefusal() || o == guard.ContestLost {
			status = http.StatusConflict
		}
		msg := err.Error()
		if guard.IsExplained(err) {
			msg = strings.TrimSpace(errb.String())
		}
		writeJSON(w, status, apiError{Error: msg, Exit: s.o.ExitCode(err), Stderr: errb.String()})
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	var compact bytes.Buffer
	if err := json.Compact(&compact, out.Bytes()); err != nil || compact.Len() == 0 {
		compact.Reset()
		compact.WriteString("{}")
	}
	compact.WriteByte('\n')
	_, _ = w.Write(compact.Bytes())
}

type claimIn struct {
	Dir              string `json:"dir"`
	Scope            string `json:"scope"`
	Team             string `json:"team"`
	User             bool   `json:"user"`
	Condition        bool   `json:"condition"`
	ReleaseCondition string `json:"release_condition"`
	Owner            string `json:"owner"`
	Expires          string `json:"expires"`
	Mode             string `json:"mode"`
	Purpose          string `json:"purpose"`
	Operations       string `json:"operations"`
}

func (s *Server) postLock(w http.ResponseWriter, r *http.Request) {
	var in claimIn
	if !decode(w, r, &in) {
		return
	}
	dir, ok := s.inRoots(in.Dir)
	if !ok {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("dir %q is outside the roots guard serve watches (give an absolute folder inside one of them)", in.Dir))
		return
	}
	s.run(w, dir, func(env *guard.Env) error {
		return command.RunLock(r.Context(), command.LockOptions{
			Env: env, Dir: dir, JSON: true,
			LockNaming: command.LockNaming{Scope: in.Scope, Team: in.Team, User: in.User, Condition: in.Condition},
			Owner:      in.Owner, Expires: in.Expires, Mode: in.Mode, Purpose: in.Purpose,
			ReleaseCondition: in.ReleaseCondition, Operations: in.Operations,
		})
	})
}

func (s *Server) deleteLock(w http.ResponseWriter, r *http.Request) {
	l := s.findLock(r.Context(), r.PathValue("id"))
	if l == nil {
		writeError(w, http.StatusNotFound, "no lock with id "+r.PathValue("id")+" under the roots (released already?)")
		return
	}
	force := r.URL.Query().Get("force") == "true"
	owner := r.URL.Query().Get("owner")
	s.run(w, filepath.Dir(l.Path), func(env *guard.Env) error {
		if l.Kind == lockcore.User {
			// The page is the person's channel (CONTRACT.md section 9): a user lock is
			// removed here as by guard unlock --force at a terminal.
			env.StdinTTY, force = true, true
		}
		return command.RunUnlock(r.Context(), command.UnlockOptions{Env: env, Target: l.Path, Owner: owner, Force: force, JSON: true})
	})
}

// renewIn is POST /api/locks/{id}/renew's body: {} keeps the lock's lifetime,
// {"expires": "2h"} also replaces it (guard renew --expires).
type renewIn struct {
	Expires string `json:"expires"`
}

// postRenew is the page's Extend: guard renew on the lock, as the identity guard serve
// acts as in its folder. It is judged as guard renew judges it (the lock must be the
// caller's own and live: 409 otherwise, the CLI's exit 1); there is no owner to name
// and no force, so the page extends its person's own locks only.
func (s *Server) postRenew(w http.ResponseWriter, r *http.Request) {
	var in renewIn
	if !decode(w, r, &in) {
		return
	}
	if in.Expires != "" {
		if p := lockcore.ExpiresProblem(in.Expires); p != "" {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("expires %q %s", in.Expires, p))
			return
		}
	}
	l := s.findLock(r.Context(), r.PathValue("id"))
	if l == nil {
		writeError(w, http.StatusNotFound, "no lock with id "+r.PathValue("id")+" under the roots (released, or never there)")
		return
	}
	s.run(w, filepath.Dir(l.Path), func(env *guard.Env) error {
		return command.RunRenew(r.Context(), command.RenewOptions{Env: env, Target: l.Path, Expires: in.Expires, JSON: true})
	})
}

func (s *Server) rootPaths() []string {
	out := make([]string, len(s.o.Roots))
	for i, r := range s.o.Roots {
		out[i] = r.Path
	}
	return out
}

func (s *Server) postPrune(w http.ResponseWriter, r *http.Request) {
	var in struct {
		DryRun *bool `json:"dry_run"`
	}
	if !decode(w, r, &in) {
		return
	}
	dry := in.DryRun == nil || *in.DryRun // a body without dry_run only previews
	s.run(w, "", func(env *guard.Env) error {
		return command.RunPrune(r.Context(), command.PruneOptions{Env: env, RootsInput: command.RootsInput{Roots: s.rootPaths()}, DryRun: dry, JSON: true})
	})
}

type lockdownIn struct {
	Commit bool   `json:"commit"`
	Owner  string `json:"owner"`
	Reason string `json:"reason"`
}

func (s *Server) postLockdown(w http.ResponseWriter, r *http.Request) {
	var in lockdownIn
	if !decode(w, r, &in) {
		return
	}
	s.run(w, "", func(env *guard.Env) error {
		return command.RunLockdown(command.LockdownOptions{Env: env, Roots: s.rootPaths(), Owner: in.Owner, Reason: in.Reason, Commit: in.Commit, JSON: true})
	})
}

func (s *Server) postLockdownUndo(w http.ResponseWriter, r *http.Request) {
	var in lockdownIn
	if !decode(w, r, &in) {
		return
	}
	s.run(w, "", func(env *guard.Env) error {
		return command.RunLockdown(command.LockdownOptions{Env: env, Roots: s.rootPaths(), Commit: in.Commit, Undo: true, JSON: true})
	})
}
