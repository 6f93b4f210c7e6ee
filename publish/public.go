package publish

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/atomicfile"
	"github.com/guardlocks/guard/internal/execpath"
	"github.com/guardlocks/guard/internal/filelock"
	"github.com/guardlocks/guard/internal/gitrun"
)

// shell runs PUBLIC.txt commands: `sh -c <command>` in dir with environ, output to
// out (guard's stderr, so that a wrapped command's stdout stays its own).
type shell struct {
	environ []string
	out     io.Writer
}

// run prints the command, then runs it, and returns its exit code (-1 when it could
// not be started) and any start error.
func (s shell) run(kind, command, dir, marker string) (int, error) {
	fmt.Fprintf(s.out, "guard: %s: %s\n       (in %s, from %s)\n", kind, command, dir, marker)
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir = dir
	cmd.Env = s.environ
	cmd.Stdout = s.out
	cmd.Stderr = s.out
	code, err := execpath.Status(cmd, cmd.Run())
	if err != nil {
		return -1, fmt.Errorf("%s %q in %s: %w", kind, command, dir, err)
	}
	return code, nil
}

// CheckResult is the outcome of one PUBLIC.txt check.
type CheckResult struct {
	Command  string `json:"command"`
	Dir      string `json:"dir"`
	Marker   string `json:"marker"`
	OK       bool   `json:"ok"`
	ExitCode int    `json:"exit_code"`
	Error    string `json:"error,omitempty"`
}

// runChecks runs the checks of every PUBLIC.txt (nearest first, each in file order)
// and stops at the first that fails: a check that did not pass must not be followed
// by the publication, and later checks would only add noise.
func runChecks(sh shell, public []*guard.Marker) (results []CheckResult, ok bool) {
	for _, m := range public {
		for _, c := range m.Checks {
			code, err := sh.run("check", c, m.Dir, m.Path)
			r := CheckResult{Command: c, Dir: m.Dir, Marker: m.Path, OK: code == 0 && err == nil, ExitCode: code}
			if err != nil {
				r.Error = err.Error()
			}
			results = append(results, r)
			if !r.OK {
				return results, false
			}
		}
	}
	return results, true
}

// ChoreRecord remembers which PUBLIC.txt chores succeeded, so each runs once. It
// lives outside the tracked files: in the repository's git directory
// (<git-common-dir>/guard/chores.json, shared by its worktrees), or beside
// PUBLIC.txt as .PUBLIC.txt.chores.json outside a repository.
type ChoreRecord struct {
	Path string      `json:"-"`
	Done []ChoreDone `json:"done"`
}

// ChoreDone is one chore that succeeded.
type ChoreDone struct {
	Public string    `json:"public"` // the PUBLIC.txt's absolute path
	Chore  string    `json:"chore"`
	At     time.Time `json:"at"`
}

// choreRecordPath is where the record for the PUBLIC.txt in dir lives.
func choreRecordPath(dir string, environ []string) string {
	if r, err := gitrun.OpenRepo(context.Background(), gitIn(dir, environ)); err == nil {
		return filepath.Join(r.GuardDir(), "chores.json")
	}
	return filepath.Join(dir, ".PUBLIC.txt.chores.json")
}

// gitIn runs git in dir with the allowlisted part of environ (the environment of the
// wrapped command).
func gitIn(dir string, environ []string) gitrun.Git {
	return gitrun.New(dir, func(k string) string { return execpath.Value(environ, k) })
}

// loadChoreRecord reads a record; a missing file is an empty record. A record that
// cannot be parsed is an error: guessing would run chores twice or not at all.
func loadChoreRecord(path string) (*ChoreRecord, error) {
	r := &ChoreRecord{Path: path}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// IsDone reports whether chore of the PUBLIC.txt at public already succeeded.
func (r *ChoreRecord) IsDone(public, chore string) bool {
	for _, d := range r.Done {
		if d.Public == public && d.Chore == chore {
			return true
		}
	}
	return false
}

// add records d. The record is read again under its mutex and written atomically,
// so that chores recorded meanwhile by a concurrent publish are kept.
func (r *ChoreRecord) add(d ChoreDone) error {
	if err := os.MkdirAll(filepath.Dir(r.Path), 0o755); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), recordWait)
	defer cancel()
	release, err := filelock.Beside(r.Path).Lock(ctx)
	if err != nil {
		return err
	}
	defer release()
	cur, err := loadChoreRecord(r.Path)
	if err != nil {
		return err
	}
	if !cur.IsDone(d.Public, d.Chore) {
		cur.Done = append(cur.Done, d)
	}
	data, err := json.MarshalIndent(cur, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(r.Path, append(data, '\n'), 0o600); err != nil {
		return err
	}
	r.Done = cur.Done
	return nil
}

// recordWait bounds the wait for another guard process updating the same record (a
// read and a write: milliseconds, unless that process is stopped).
const recordWait = 10 * time.Second

// ChoreResult is the outcome of one chore.
type ChoreResult struct {
	Command  string
	Marker   string
	Status   string // "ok", "failed", "done before"
	ExitCode int
	Err      error
}

// runChores runs every chore not recorded as done, each once, recording those that
// succeed; a failed chore does not stop the others (each is independent
// bookkeeping), and is run again by the next publish.
func runChores(sh shell, public []*guard.Marker, now time.Time) []ChoreResult {
	var results []ChoreResult
	for _, m := range public {
		if len(m.Chores) == 0 {
			continue
		}
		rec, err := loadChoreRecord(choreRecordPath(m.Dir, sh.environ))
		if err != nil {
			for _, c := range m.Chores {
				results = append(results, ChoreResult{Command: c, Marker: m.Path, Status: "failed", ExitCode: -1, Err: fmt.Errorf("reading the record of done chores: %w", err)})
			}
			continue
		}
		for _, c := range m.Chores {
			if rec.IsDone(m.Path, c) {
				fmt.Fprintf(sh.out, "guard: chore already done, skipped: %s\n", c)
				results = append(results, ChoreResult{Command: c, Marker: m.Path, Status: "done before"})
				continue
			}
			code, err := sh.run("chore", c, m.Dir, m.Path)
			r := ChoreResult{Command: c, Marker: m.Path, Status: "ok", ExitCode: code, Err: err}
			if code != 0 || err != nil {
				r.Status = "failed"
				results = append(results, r)
				continue
			}
			if err := rec.add(ChoreDone{Public: m.Path, Chore: c, At: now}); err != nil {
				r.Status, r.Err = "failed", fmt.Errorf("it ran, but recording it failed (it will run again): %w", err)
			}
			results = append(results, r)
		}
	}
	return results
}

// writeChoreSummary lists what ran and what failed.
func writeChoreSummary(w io.Writer, results []ChoreResult) (failed int) {
	for _, r := range results {
		if r.Status == "failed" {
			failed++
		}
	}
	if failed == 0 {
		return 0
	}
	fmt.Fprintf(w, "guard: %d of %d chore(s) failed; the publication itself succeeded:\n", failed, len(results))
	for _, r := range results {
		switch {
		case r.Status == "failed" && r.Err != nil:
			fmt.Fprintf(w, "  failed            %s (%v)\n", r.Command, r.Err)
		case r.Status == "failed":
			fmt.Fprintf(w, "  failed (exit %d)   %s\n", r.ExitCode, r.Command)
		default:
			fmt.Fprintf(w, "  %-17s %s\n", r.Status, r.Command)
		}
	}
	fmt.Fprintln(w, "  what now: fix the failed chores and run them by hand, or run the next publish (failed chores run again; done ones do not).")
	return failed
}
