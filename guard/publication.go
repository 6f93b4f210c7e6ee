package guard

import (
	"fmt"
	"io"
	"strings"

	"github.com/guardlocks/guard/lockcore"
)

// PublicationDecision is the answer to "may this project be published by op now?":
// the publication markers and the locks together. It is the one decision that
// guard publish, guard preflight, guard ci and the agent hook share.
type PublicationDecision struct {
	// Op is the publication operation; Dir the project directory (absolute).
	Op  string
	Dir string
	// Markers are the PRIVATE.txt and PUBLIC.txt files governing Dir.
	Markers *Markers
	// Locks is the lock policy's answer for Op on Dir and everything inside it.
	Locks *Decision
	// Allowed is true when neither a marker nor a lock refuses.
	Allowed bool
	// Refusals explain what the markers (or the configuration) refuse, for people:
	// which file, why, and how to proceed. Lock refusals are in Locks.
	Refusals []string
	// Warnings never refuse (no marker approved the publication, soft locks).
	Warnings []string
	// Actor is the owner the policy judged (CheckPublication's policy); "" from
	// CheckMarkers, which judges no one.
	Actor string
}

// CheckPublication decides whether op may publish the project in dir (absolute):
//
//   - PRIVATE.txt in dir or any directory above it refuses, showing its content as
//     the conditions for lifting it; with a PUBLIC.txt also present guard fails
//     closed (PRIVATE.txt wins) and says that both are present;
//   - a PUBLIC.txt that cannot be read in full does not approve (fail closed);
//   - no marker at all allows with a warning, or refuses when cfg's
//     [publish] require_public is set;
//   - every lock covering dir, above it or inside it that blocks op refuses, as
//     p.Check explains.
//
// cfg may be nil: the .guard.toml governing dir is read then (a malformed one is an
// error). The PUBLIC.txt checks are not run here; the caller runs
// Markers.Public[i].Checks when the decision allows.
func CheckPublication(p *Policy, dir, op string, cfg *Config) (*PublicationDecision, error) {
	if cfg == nil {
		c, err := FindConfig(dir)
		if err != nil {
			return nil, err
		}
		cfg = c
	}
	locks, err := p.Check(Request{Ops: []string{op}, Paths: []string{dir}, Descend: true})
	if err != nil {
		return nil, err
	}
	d := CheckMarkers(dir, op, cfg)
	d.Locks = locks
	d.Warnings = append(append([]string(nil), locks.Warnings...), d.Warnings...)
	d.Allowed = len(d.Refusals) == 0 && locks.Allowed
	d.Actor = p.id.Owner
	return d, nil
}

// CheckMarkers is the markers' part of CheckPublication alone (cfg must not be nil):
// Markers, Refusals and Warnings are set, Locks is an empty decision, and Allowed says
// whether the markers allow. A caller that has judged the locks already (guard check)
// asks it instead of walking the project's locks again.
func CheckMarkers(dir, op string, cfg *Config) *PublicationDecision {
	d := &PublicationDecision{Op: op, Dir: dir, Markers: FindMarkers(dir), Locks: &Decision{Ops: []string{op}, Allowed: true}}
	ms := d.Markers
	switch ms.State() {
	case "both":
		d.Refusals = append(d.Refusals, bothRefusal(op, dir, ms))
	case "private":
		for _, m := range ms.Private {
			d.Refusals = append(d.Refusals, privateRefusal(op, dir, m))
		}
	case "public":
		for _, m := range ms.Public {
			if m.ReadErr != nil {
				d.Refusals = append(d.Refusals, fmt.Sprintf(
					"refused %s of %s: %s could not be read in full (%v), so it cannot approve the publication or list all its checks.\n  what now: make it a readable regular file under %d bytes.",
					op, dir, m.Path, m.ReadErr, MaxMarkerSize))
			}
		}
	case "none":
		if cfg.Publish.RequirePublic {
			d.Refusals = append(d.Refusals, fmt.Sprintf(
				"refused %s of %s: no PUBLIC.txt approves publishing it (none in it or in any directory above it), and %s says [publish] require_public = true.\n  what now: whoever may approve publication writes PUBLIC.txt in the project root (it is never committed).",
				op, dir, orConfigName(cfg)))
		} else {
			d.Warnings = append(d.Warnings, fmt.Sprintf(
				"nothing approved publishing %s: there is no PUBLIC.txt (or PRIVATE.txt) in it or above it. Add PUBLIC.txt to approve publication, PRIVATE.txt to forbid it; [publish] require_public = true in .guard.toml makes this a refusal.",
				dir))
		}
	}
	d.Allowed = len(d.Refusals) == 0
	return d
}

func orConfigName(cfg *Config) string {
	if cfg.Path != "" {
		return cfg.Path
	}
	return ConfigFileName
}

// privateRefusal explains one PRIVATE.txt.
func privateRefusal(op, dir string, m *Marker) string {
	var b strings.Builder
	fmt.Fprintf(&b, "refused %s of %s: %s marks this project private; guard never publishes a project under PRIVATE.txt.\n", op, dir, m.Path)
	writeConditions(&b, m)
	if strings.TrimSpace(m.Content) == "" {
		b.WriteString("  what now: do not publish; ask whoever placed PRIVATE.txt. Only a person who may approve publication replaces it with PUBLIC.txt.")
	} else {
		b.WriteString("  what now: do not publish. Once those conditions are met, a person who may approve publication replaces PRIVATE.txt with PUBLIC.txt.")
	}
	return b.String()
}

func bothRefusal(op, dir string, ms *Markers) string {
	var b strings.Builder
	fmt.Fprintf(&b, "refused %s of %s: both PRIVATE.txt and PUBLIC.txt are present, so guard fails closed and PRIVATE.txt wins.\n", op, dir)
	for _, m := range ms.Private {
		fmt.Fprintf(&b, "  private: %s\n", m.Path)
	}
	for _, m := range ms.Public {
		fmt.Fprintf(&b, "  public:  %s\n", m.Path)
	}
	for _, m := range ms.Private {
		writeConditions(&b, m)
	}
	b.WriteString("  what now: find out which one is right; whoever may approve publication removes the wrong one.")
	return b.String()
}

// writeConditions shows a PRIVATE.txt's content: the conditions for lifting it.
func writeConditions(b *strings.Builder, m *Marker) {
	switch {
	case m.ReadErr != nil && m.Content == "":
		fmt.Fprintf(b, "  %s could not be read (%v); it still refuses.\n", m.Path, m.ReadErr)
	case strings.TrimSpace(m.Content) == "":
		fmt.Fprintf(b, "  %s is empty: it states no conditions; ask whoever placed it.\n", m.Path)
	default:
		fmt.Fprintf(b, "  conditions for lifting it (%s):\n", m.Path)
		for _, line := range strings.Split(strings.TrimRight(m.Content, "\n"), "\n") {
			fmt.Fprintf(b, "    | %s\n", strings.TrimRight(line, "\r"))
		}
	}
}

// Explain writes the warnings, then every refusal (markers first, then locks), for
// the person or agent who asked.
func (d *PublicationDecision) Explain(w io.Writer) {
	writeWarnings(w, d.Warnings)
	d.ExplainRefusal(w)
}

// ExplainRefusal writes what Explain writes but the warnings, for callers that show
// those apart (the agent hook): nothing when the decision allows.
func (d *PublicationDecision) ExplainRefusal(w io.Writer) { d.ExplainRefusalWith(w, WayOut) }

// ExplainRefusalWith is ExplainRefusal with each lock's "what now" from wayOut (see
// Decision.ExplainRefusalWith).
func (d *PublicationDecision) ExplainRefusalWith(w io.Writer, wayOut func(*lockcore.Lock) string) {
	for _, r := range d.Refusals {
		fmt.Fprintf(w, "guard: %s\n", r)
	}
	// The lock policy's warnings are among d.Warnings already.
	d.Locks.ExplainRefusalWith(w, wayOut)
}

// Reason is a one-paragraph summary of why the decision refuses ("" when allowed),
// for callers that answer in a single message (the agent hook).
func (d *PublicationDecision) Reason() string {
	if d.Allowed {
		return ""
	}
	var b strings.Builder
	d.Explain(&b)
	return strings.TrimSpace(b.String())
}

// MarkerJSON is one marker in JSON.
type MarkerJSON struct {
	Path    string   `json:"path"`
	Content string   `json:"content"`
	Error   string   `json:"error,omitempty"`
	Checks  []string `json:"checks,omitempty"`
	Chores  []string `json:"chores,omitempty"`
	Notes   []string `json:"notes,omitempty"`
}

// MarkersJSON is the markers governing a directory in JSON.
type MarkersJSON struct {
	State   string       `json:"state"`
	Private []MarkerJSON `json:"private"`
	Public  []MarkerJSON `json:"public"`
}

// ToJSON renders the markers.
func (m *Markers) ToJSON() MarkersJSON {
	j := MarkersJSON{State: m.State(), Private: []MarkerJSON{}, Public: []MarkerJSON{}}
	conv := func(x *Marker) MarkerJSON {
		mj := MarkerJSON{Path: x.Path, Content: x.Content, Checks: x.Checks, Chores: x.Chores, Notes: x.Notes}
		if x.ReadErr != nil {
			mj.Error = x.ReadErr.Error()
		}
		return mj
	}
	for _, x := range m.Private {
		j.Private = append(j.Private, conv(x))
	}
	for _, x := range m.Public {
		j.Public = append(j.Public, conv(x))
	}
	return j
}

// PublicationJSON is a publication decision in JSON.
type PublicationJSON struct {
	Op      string `json:"op"`
	Dir     string `json:"dir"`
	Allowed bool   `json:"allowed"`
	// OK is the verdict key every command's JSON shares (here: Allowed).
	OK       bool         `json:"ok"`
	Markers  MarkersJSON  `json:"markers"`
	Refusals []string     `json:"refusals"`
	Warnings []string     `json:"warnings"`
	Locks    DecisionJSON `json:"locks"`
}

// ToJSON renders the decision.
func (d *PublicationDecision) ToJSON() PublicationJSON {
	j := PublicationJSON{Op: d.Op, Dir: d.Dir, Allowed: d.Allowed, OK: d.Allowed, Markers: d.Markers.ToJSON(),
		Refusals: d.Refusals, Warnings: d.Warnings, Locks: d.Locks.ToJSON()}
	if j.Refusals == nil {
		j.Refusals = []string{}
	}
	if j.Warnings == nil {
		j.Warnings = []string{}
	}
	return j
}
