package web

import (
	"fmt"
	"net/http"
	"path/filepath"

	"github.com/guardlocks/guard/command"
	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/lockcore"
)

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
	l := s.findLock(r.PathValue("id"))
	if l == nil {
		writeError(w, http.StatusNotFound, "no lock with id "+r.PathValue("id")+" under the roots (released, or never there)")
		return
	}
	s.run(w, filepath.Dir(l.Path), func(env *guard.Env) error {
		return command.RunRenew(command.RenewOptions{Env: env, Target: l.Path, Expires: in.Expires, JSON: true})
	})
}
