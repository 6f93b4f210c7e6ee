package web

import (
	"net/http"
)

// sessionPath is where the page trades a one-time code (from guard serve --open) for
// the token. It needs no token, only a same-origin Origin (the gate checks it) and a
// code that is good: each code works once, for CodeLife.
const sessionPath = "/api/session"

// postSession answers {"code": "..."} with {"token": "..."} when the code is good, 401
// otherwise. No CORS header is sent, so only the page itself can read the answer.
func (s *Server) postSession(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Code string `json:"code"`
	}
	if !decode(w, r, &in) {
		return
	}
	if !s.codes.redeem(in.Code, s.o.Env.Clock.Now()) {
		writeError(w, http.StatusUnauthorized, "the one-time code is wrong, used or expired (it is good once, for 60 s): open the URL guard serve printed, with its #token=")
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"token": s.token})
}
