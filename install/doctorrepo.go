package install

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/gitrun"
	"github.com/guardlocks/guard/lockcore"
)

func examine(env *guard.Env, r gitrun.Repo) RepoReport {
	rep := RepoReport{Path: r.Top, HooksDir: r.Hooks, Hooks: []HookReport{}, StaleLocks: []lockcore.JSON{},
		Bypasses: []json.RawMessage{}, Problems: []string{}}
	if rep.Path == "" {
		rep.Path = r.CommonDir
	}
	problem := func(format string, args ...any) { rep.Problems = append(rep.Problems, fmt.Sprintf(format, args...)) }

	for _, name := range Hooks {
		h, more := hookState(env, r.Top, r.Hooks, name)
		switch st := h.State; {
		case st == "missing":
			problem("%s hook is not installed (run `guard install`)", name)
		case st == "foreign" && h.Manager != "":
			problem("%s hook %s is %s's, and it does not run guard: %s (see docs/hooks.md, \"With other hook managers\", or run `guard install`)", name, h.Path, h.Manager, h.Why)
		case st == "foreign":
			problem("%s hook %s was not written by guard, so guard does not run (run `guard install`)", name, h.Path)
		case st == "managed":
			if !executable(h.Path) {
				problem("%s hook %s is not executable, so git does not run it (run `%s` again)", name, h.Path, reinstallHint(h.Manager, name))
			}
			if !h.GuardOK {
				problem("%s hook: %s runs %s, which is not there: every %s is refused (install guard, or put it on PATH)", name, h.Manager, h.Guard, verb(name))
			}
		case st == "installed":
			if !executable(h.Path) {
				problem("%s hook %s is not executable, so git does not run it (run `guard install`)", name, h.Path)
			}
			if !h.GuardOK {
				problem("%s hook cannot find guard: %s is gone and none is on PATH (reinstall guard, then `guard install`)", name, h.Guard)
			}
		}
		for _, p := range more {
			problem("%s hook: %s", name, p)
		}
		rep.Hooks = append(rep.Hooks, h)
	}

	if r.Top != "" {
		if subject, err := guard.ResolveSubject(env, r.Top, guard.Identity{}); err != nil {
			rep.Config.Error = err.Error()
			problem("configuration: %v", err)
		} else {
			rep.Config.Path = subject.Config.Path
		}
		now := env.Clock.Now()
		for _, l := range staleLocks(r.Top, now) {
			rep.StaleLocks = append(rep.StaleLocks, l.ToJSON(now))
			problem("stale lock %s (owner %s) expired; `guard prune` removes it", l.Path, orNone(l.Owner))
		}
	}

	rep.BypassLog = r.BypassLogPath()
	entries, err := readBypassLog(rep.BypassLog)
	if err != nil {
		problem("bypass log: %v", err)
	}
	rep.Bypasses = append(rep.Bypasses, entries...)
	return rep
}

// hookState examines the hook name in the hooks folder dir of the working tree top;
// it also returns problems a hook manager's hook has besides not running guard.
func hookState(env *guard.Env, top, dir, name string) (HookReport, []string) {
	h := HookReport{Name: name, Path: filepath.Join(dir, name)}
	if _, err := os.Lstat(h.Path + BackupSuffix); err == nil {
		h.Kept = h.Path + BackupSuffix
	}
	data, err := os.ReadFile(h.Path)
	if err != nil {
		if _, lerr := os.Lstat(h.Path); lerr == nil {
			h.State = "foreign"
		} else {
			h.State = "missing"
		}
		return h, nil
	}
	if !IsGuardHook(data) {
		m := examineManaged(env, top, h.Path, name, data)
		h.State, h.Manager = "foreign", m.Manager
		if len(m.Via) == 0 {
			h.Why = m.Why
			return h, nil
		}
		h.State, h.Via = "managed", m.Via
		h.Guard, h.GuardOK, h.Fallback = m.Guard, m.GuardOK, m.Fallback
		if m.Legacy != "" {
			h.Kept = m.Legacy
		}
		return h, m.Problems
	}
	h.State = "installed"
	h.Guard, _ = RecordedExecutable(data)
	if executable(h.Guard) {
		h.GuardOK = true
	} else if p := lookPath(env, "guard"); p != "" {
		h.GuardOK, h.Fallback = true, p
	}
	return h, nil
}

// staleLocks returns the prunable locks in the working tree at top and in the
// directories above it (whose locks reach down into it).
func staleLocks(top string, now time.Time) []*lockcore.Lock {
	loc := now.Location()
	var stale []*lockcore.Lock
	_ = filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable corners are the policy's business, not doctor's
		}
		if d.IsDir() {
			if p != top && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !lockcore.IsLockName(d.Name()) || !d.Type().IsRegular() {
			return nil
		}
		if l, err := lockcore.ReadLock(p, loc); err == nil && l.Prunable(now) {
			stale = append(stale, l)
		}
		return nil
	})
	for d := filepath.Dir(top); ; d = filepath.Dir(d) {
		locks, _ := lockcore.ReadDir(d, loc)
		for _, l := range locks {
			if l.Prunable(now) {
				stale = append(stale, l)
			}
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return stale
}
