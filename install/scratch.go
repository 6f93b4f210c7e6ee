package install

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/atomicfile"
	"github.com/guardlocks/guard/internal/filelock"
	"github.com/guardlocks/guard/internal/gitrun"
	"github.com/guardlocks/guard/internal/wait"
	"github.com/guardlocks/guard/lockcore"
)

// SweepAge is how old a scratch file must be before guard doctor calls it stranded
// and --sweep removes it (CONTRACT.md section 9: ten minutes). Every writer holds its
// scratch file for milliseconds, a waiter renews nothing in its ticket, so the age is
// a margin on top of the real test, which is that no live process holds the file.
const SweepAge = 10 * time.Minute

// ScratchReport is one scratch file guard doctor found: a temporary file of an atomic
// write (kind "temp"), a mutex file ("mutex") or a waiter's queue ticket ("ticket").
type ScratchReport struct {
	Path       string `json:"path"`
	Kind       string `json:"kind"`
	Modified   string `json:"modified"`
	AgeSeconds int64  `json:"age_seconds"`
	// Held: a live process holds the file's OS lock (it is in use).
	Held bool `json:"held"`
	// PID is the process a ticket names; PIDAlive whether it still runs.
	PID      int   `json:"pid,omitempty"`
	PIDAlive *bool `json:"pid_alive,omitempty"`
	// Stranded: older than SweepAge, held by nobody, and its process (where one is
	// named) gone: left by a process that was killed.
	Stranded bool   `json:"stranded"`
	Removed  bool   `json:"removed"`
	Error    string `json:"error,omitempty"`
}

// scratchPlaces are the folders where guard leaves scratch files, and which names in
// each are guard's.
type scratchPlace struct {
	dir  string
	tree bool // the folders below too
	// anyTemp: every atomic-write temporary file here is guard's (a folder only guard
	// writes); otherwise only those of lockcore's names and of agentTargets.
	anyTemp bool
	// mutexes are further transient mutex names here (besides lockcore's).
	mutexes []string
	// anyMutex: every ".<name>.mutex" here is guard's (guard's part of the git dir).
	anyMutex bool
}

// agentTargets are the agent settings files guard writes atomically in a project.
var agentTargets = []string{"settings.json", "settings.local.json", "hooks.json"}

// examineScratch finds the scratch files of the repositories and of guard's state
// directory and, with sweep, removes the stranded ones.
func examineScratch(o DoctorOptions, repos []gitrun.Repo) []ScratchReport {
	var places []scratchPlace
	for _, r := range repos {
		if r.Top != "" {
			places = append(places, scratchPlace{dir: r.Top, tree: true})
		}
		if r.Hooks != "" {
			places = append(places, scratchPlace{dir: r.Hooks, anyTemp: true})
		}
		if r.CommonDir != "" {
			places = append(places, scratchPlace{dir: filepath.Join(r.CommonDir, "guard"), tree: true, anyTemp: true, anyMutex: true})
		}
	}
	state, stateErr := guard.StateDir(o.Env)
	if stateErr == nil {
		places = append(places, scratchPlace{dir: state, tree: true, anyTemp: true, mutexes: o.StateMutexes})
	}
	now := o.Env.Clock.Now()
	seen := map[string]bool{}
	out := []ScratchReport{}
	add := func(p, kind string, pid int) {
		if seen[p] {
			return
		}
		seen[p] = true
		out = append(out, judgeScratch(p, kind, pid, now))
	}
	for _, pl := range places {
		walkScratch(pl, add)
	}
	if stateErr == nil {
		for _, t := range wait.Tickets(filepath.Join(state, "queue")) {
			add(t.Path, "ticket", t.PID)
		}
	}
	slices.SortFunc(out, func(a, b ScratchReport) int { return strings.Compare(a.Path, b.Path) })
	if o.Sweep {
		for i := range out {
			if out[i].Stranded {
				sweepScratch(&out[i], now)
			}
		}
	}
	return out
}

// walkScratch hands add every scratch file of pl.
func walkScratch(pl scratchPlace, add func(p, kind string, pid int)) {
	visit := func(dir string) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		inAgentDir := slices.Contains([]string{".claude", ".gemini", ".codex"}, filepath.Base(dir))
		for _, e := range entries {
			if !e.Type().IsRegular() {
				continue
			}
			name, p := e.Name(), filepath.Join(dir, e.Name())
			if lockcore.IsLockName(name) {
				continue // a lock is never scratch
			}
			if kind := lockcore.ScratchKind(name); kind != "" {
				add(p, kind, 0)
				continue
			}
			if target, ok := atomicfile.IsTempName(name); ok && (pl.anyTemp || inAgentDir && slices.Contains(agentTargets, target)) {
				add(p, "temp", 0)
				continue
			}
			if slices.Contains(pl.mutexes, name) || pl.anyMutex && strings.HasPrefix(name, ".") && strings.HasSuffix(name, ".mutex") {
				add(p, "mutex", 0)
			}
		}
	}
	if !pl.tree {
		visit(pl.dir)
		return
	}
	_ = filepath.WalkDir(pl.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if p != pl.dir && skipDir(d.Name()) {
			return filepath.SkipDir
		}
		visit(p)
		return nil
	})
}

// judgeScratch looks at one scratch file without changing it.
func judgeScratch(p, kind string, pid int, now time.Time) ScratchReport {
	r := ScratchReport{Path: p, Kind: kind, PID: pid}
	st, err := os.Lstat(p)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	r.Modified = st.ModTime().Format(time.RFC3339)
	age := now.Sub(st.ModTime())
	r.AgeSeconds = int64(age / time.Second)
	held, err := filelock.Held(p)
	if err != nil {
		// Cannot tell whether it is in use (no file locking here): not stranded.
		r.Error = err.Error()
		return r
	}
	r.Held = held
	gone := true
	if pid > 0 {
		alive := processAlive(pid)
		r.PIDAlive = &alive
		gone = !alive
	}
	r.Stranded = !held && gone && age >= SweepAge
	return r
}

// sweepScratch removes a stranded scratch file, deciding again at the moment of
// removal: under the file's own lock (held by nobody, still old enough), a ticket
// under its queue's lock, and only while its process is still gone.
func sweepScratch(r *ScratchReport, now time.Time) {
	if r.PID > 0 && processAlive(r.PID) {
		r.Stranded = false
		return
	}
	var removed bool
	var err error
	if r.Kind == "ticket" {
		removed, err = wait.RemoveDeadTicket(r.Path)
	} else {
		removed, err = filelock.RemoveUnheld(r.Path, func(st fs.FileInfo) bool { return now.Sub(st.ModTime()) >= SweepAge })
	}
	if errors.Is(err, fs.ErrNotExist) {
		removed, err = true, nil // gone already: its owner, or another sweep, took it
	}
	if err != nil {
		r.Error = err.Error()
	}
	r.Removed = removed
}

// scratchProblems are the doctor's problems among the scratch files: the stranded
// ones that are still there.
func scratchProblems(list []ScratchReport) []string {
	var out []string
	for _, r := range list {
		switch {
		case r.Stranded && !r.Removed && r.Error != "":
			out = append(out, fmt.Sprintf("stranded scratch file %s could not be removed: %s", r.Path, r.Error))
		case r.Stranded && !r.Removed:
			out = append(out, fmt.Sprintf("stranded scratch file %s (%s, %s old, held by no process): `guard doctor --sweep` removes it", r.Path, r.Kind, age(r.AgeSeconds)))
		}
	}
	return out
}

func writeScratch(w io.Writer, list []ScratchReport) {
	if len(list) == 0 {
		fmt.Fprintln(w, "scratch files: none")
		return
	}
	fmt.Fprintf(w, "scratch files: %d\n", len(list))
	for _, r := range list {
		state := "recent, nobody holds it"
		switch {
		case r.Removed:
			state = "stranded: removed"
		case r.Stranded:
			state = "stranded (guard doctor --sweep removes it)"
		case r.Held:
			state = "in use"
		case r.PIDAlive != nil && *r.PIDAlive:
			state = "its process still runs"
		case r.Error != "":
			state = "cannot tell whether it is in use: " + r.Error
		}
		pid := ""
		if r.PID > 0 {
			pid = fmt.Sprintf(" pid %d", r.PID)
			if r.PIDAlive != nil && !*r.PIDAlive {
				pid += " (gone)"
			}
		}
		fmt.Fprintf(w, "  %-6s %8s  %s%s: %s\n", r.Kind, age(r.AgeSeconds), r.Path, pid, state)
	}
}

// age is a duration for people: 45s, 12m, 3h20m, 2d4h.
func age(secs int64) string {
	d := time.Duration(secs) * time.Second
	switch {
	case d < 0:
		return "0s"
	case d < time.Minute:
		return fmt.Sprintf("%ds", secs)
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd%dh", int(d.Hours())/24, int(d.Hours())%24)
}
