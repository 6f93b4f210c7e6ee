package lockcore

import "time"

// JSON is the lock object of guard's --json output (CONTRACT.md section 4).
type JSON struct {
	Path             string   `json:"path"`
	Name             string   `json:"name"`
	Kind             Kind     `json:"kind"`
	Scope            string   `json:"scope"`
	Host             string   `json:"host"`
	Owner            string   `json:"owner"`
	Created          string   `json:"created"`
	CreatedSource    string   `json:"created_source"`
	ExpiresAt        *string  `json:"expires_at"`
	Expired          bool     `json:"expired"`
	Mode             string   `json:"mode"`
	Operations       []string `json:"operations"`
	ReleaseCondition string   `json:"release_condition"`
	Purpose          string   `json:"purpose"`
	// Resource is the URI of a resource lock (null for folder locks).
	Resource *string `json:"resource"`
	// Remaining is the reference's "remaining" column (see Lock.Remaining).
	Remaining string `json:"remaining"`
	// RemainingSeconds is the time left in whole seconds (0 once expired; null for a
	// lock that never expires by time).
	RemainingSeconds *int64            `json:"remaining_seconds"`
	Protected        bool              `json:"protected"`
	Ambiguous        bool              `json:"ambiguous"`
	Fence            *int64            `json:"fence,omitempty"`
	Fields           map[string]string `json:"fields"`
	ReadError        string            `json:"read_error,omitempty"`
	// HeldIn names the lock backend that holds the lock (omitted for a lock known
	// from its file alone).
	HeldIn string `json:"held_in,omitempty"`
}

// ToJSON renders the lock as guard's JSON lock object at now.
func (l *Lock) ToJSON(now time.Time) JSON {
	j := JSON{
		HeldIn: l.HeldIn,
		Path:   l.Path, Name: l.File, Kind: l.Kind, Scope: l.Scope, Host: l.Name.Host,
		Owner: l.Owner, Created: l.Created.Format(time.RFC3339), CreatedSource: l.CreatedSource,
		Expired: l.Expired(now), Mode: l.Mode, Operations: l.Operations,
		ReleaseCondition: l.ReleaseCondition, Purpose: l.Purpose, Remaining: l.Remaining(now),
		Protected: l.Protected(), Ambiguous: l.Ambiguous, Fields: l.Fields.Values,
	}
	if j.Host == "" {
		j.Host = l.Host
	}
	if l.Resource != "" {
		r := l.Resource
		j.Resource = &r
	}
	if j.Operations == nil {
		j.Operations = []string{}
	}
	if at, ok := l.ExpiresAt(); ok {
		s := at.Format(time.RFC3339)
		j.ExpiresAt = &s
		left := int64(max(at.Sub(now), 0) / time.Second)
		j.RemainingSeconds = &left
	}
	if f, ok := l.Fence(); ok {
		j.Fence = &f
	}
	if l.ReadErr != nil {
		j.ReadError = l.ReadErr.Error()
	}
	return j
}
