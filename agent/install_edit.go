package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/guardlocks/guard/internal/atomicfile"
)

// editSettings adds (or removes) guard's entries in the settings object: the pre-tool
// hook, and the session-end release where the client has that event. It returns the
// file's action: installed when the pre-tool hook is new, updated when any entry
// changed, unchanged; removed or absent.
func editSettings(root *object, opts InstallOptions, res InstallResult, add bool) (string, error) {
	if !add {
		a, err := removeHook(root, opts.Agent)
		if err != nil {
			return "", err
		}
		b, err := removeRelease(root, opts.Agent)
		if err != nil {
			return "", err
		}
		return combineActions(false, a, b), nil
	}
	a, err := addHook(root, opts.Agent, res.Command)
	if err != nil {
		return "", err
	}
	if res.Release == "" {
		return a, nil
	}
	b, err := addRelease(root, opts.Agent, res.Release)
	if err != nil {
		return "", err
	}
	return combineActions(true, a, b), nil
}

// combineActions folds the actions of a file's parts into the file's: the first
// part's when it changed the file, else updated when any other part changed it.
func combineActions(add bool, first string, rest ...string) string {
	if first == "installed" || first == "removed" {
		return first
	}
	for _, a := range rest {
		switch a {
		case "installed", "updated":
			return "updated"
		case "removed":
			return "removed"
		}
	}
	_ = add
	return first
}

// hookGroup is one entry of an event's list in the settings: a matcher and its hooks.
// Groups are edited as ordered objects so that keys guard does not know survive.

// eventGroups reads the settings' "hooks" object (empty when there is none) and its
// list of groups for event.
func eventGroups(root *object, event string) (*object, []json.RawMessage, error) {
	hooks, err := root.childObject("hooks")
	if err != nil {
		return nil, nil, err
	}
	groups, err := hooks.childArray(event)
	if err != nil {
		return nil, nil, fmt.Errorf("hooks.%s: %w", event, err)
	}
	return hooks, groups, nil
}

// addHook makes sure the agent's pre-tool event list has exactly one guard entry
// running command. It returns installed, updated or unchanged.
func addHook(root *object, agent, command string) (string, error) {
	spec := hookSpecs[agent]
	return addEntry(root, agent, spec.event, spec.matcher, func(cmd string) bool { return isGuardHook(cmd, agent) }, command)
}

// addRelease makes sure the agent's session-end event list has exactly one guard
// entry running command (agent-release).
func addRelease(root *object, agent, command string) (string, error) {
	return addEntry(root, agent, hookSpecs[agent].endEvent, "", func(cmd string) bool { return isGuardRelease(cmd, agent) }, command)
}

// addEntry makes sure event's list has exactly one entry that ours recognises, running
// command, in a group with matcher ("" for none: events without tools).
func addEntry(root *object, agent, event, matcher string, ours func(string) bool, command string) (string, error) {
	hooks, groups, err := eventGroups(root, event)
	if err != nil {
		return "", err
	}
	found, action := false, "unchanged"
	for gi, graw := range groups {
		g, err := parseObject(graw)
		if err != nil {
			continue // not ours to judge; kept as it is
		}
		list, err := g.childArray("hooks")
		if err != nil {
			continue
		}
		var kept []json.RawMessage
		groupChanged := false
		for _, hraw := range list {
			h, err := parseObject(hraw)
			cmd := ""
			if err == nil {
				if c, ok := h.get("command"); ok {
					_ = json.Unmarshal(c, &cmd)
				}
			}
			if err != nil || !ours(cmd) {
				kept = append(kept, hraw)
				continue
			}
			if found {
				groupChanged, action = true, "updated" // a duplicate: dropped
				continue
			}
			found = true
			if cmd != command {
				if err := h.setValue("command", command); err != nil {
					return "", err
				}
				hraw, err = h.MarshalJSON()
				if err != nil {
					return "", err
				}
				groupChanged, action = true, "updated"
			}
			kept = append(kept, hraw)
		}
		if groupChanged {
			if err := g.setValue("hooks", nonNil(kept)); err != nil {
				return "", err
			}
			if groups[gi], err = g.MarshalJSON(); err != nil {
				return "", err
			}
		}
	}
	if !found {
		entry := newObject()
		if err := entry.setValue("type", "command"); err != nil {
			return "", err
		}
		if err := entry.setValue("command", command); err != nil {
			return "", err
		}
		if agent == Gemini && event == hookSpecs[agent].endEvent {
			_ = entry.setValue("name", "guard-release")
			_ = entry.setValue("description", "releases the session's claims (guard agent-release)")
		} else if agent == Gemini {
			_ = entry.setValue("name", "guard")
			_ = entry.setValue("description", "LOCK-SYSTEM locks and LOCK.permissions.json (guard agent-hook)")
		}
		g := newObject()
		if matcher != "" {
			_ = g.setValue("matcher", matcher)
		}
		_ = g.setValue("hooks", []*object{entry})
		raw, err := g.MarshalJSON()
		if err != nil {
			return "", err
		}
		groups = append(groups, raw)
		action = "installed"
	}
	if action == "unchanged" {
		return action, nil
	}
	if err := hooks.setValue(event, groups); err != nil {
		return "", err
	}
	if err := root.setValue("hooks", hooks); err != nil {
		return "", err
	}
	return action, nil
}

func nonNil(list []json.RawMessage) []json.RawMessage {
	if list == nil {
		return []json.RawMessage{}
	}
	return list
}

// removeHook deletes guard's pre-tool entries; a group, event list or hooks object
// left empty by that goes too. It returns removed or absent.
func removeHook(root *object, agent string) (string, error) {
	return removeEntries(root, hookSpecs[agent].event, func(cmd string) bool { return isGuardHook(cmd, agent) })
}

// removeRelease deletes guard's session-end entries.
func removeRelease(root *object, agent string) (string, error) {
	if hookSpecs[agent].endEvent == "" {
		return "absent", nil
	}
	return removeEntries(root, hookSpecs[agent].endEvent, func(cmd string) bool { return isGuardRelease(cmd, agent) })
}

// removeEntries deletes the entries of event that ours recognises.
func removeEntries(root *object, event string, ours func(string) bool) (string, error) {
	if _, ok := root.get("hooks"); !ok {
		return "absent", nil
	}
	hooks, groups, err := eventGroups(root, event)
	if err != nil {
		return "", err
	}
	removed := false
	var keptGroups []json.RawMessage
	for _, graw := range groups {
		g, err := parseObject(graw)
		if err != nil {
			keptGroups = append(keptGroups, graw)
			continue
		}
		list, err := g.childArray("hooks")
		if err != nil {
			keptGroups = append(keptGroups, graw)
			continue
		}
		var kept []json.RawMessage
		for _, hraw := range list {
			var h struct {
				Command string `json:"command"`
			}
			if json.Unmarshal(hraw, &h) == nil && ours(h.Command) {
				removed = true
				continue
			}
			kept = append(kept, hraw)
		}
		if len(kept) == len(list) {
			keptGroups = append(keptGroups, graw)
			continue
		}
		if len(kept) == 0 {
			continue
		}
		if err := g.setValue("hooks", kept); err != nil {
			return "", err
		}
		raw, err := g.MarshalJSON()
		if err != nil {
			return "", err
		}
		keptGroups = append(keptGroups, raw)
	}
	if !removed {
		return "absent", nil
	}
	if len(keptGroups) == 0 {
		hooks.del(event)
	} else if err := hooks.setValue(event, keptGroups); err != nil {
		return "", err
	}
	if len(hooks.keys) == 0 {
		root.del("hooks")
	} else if err := root.setValue("hooks", hooks); err != nil {
		return "", err
	}
	return "removed", nil
}

// detectIndent returns the indentation of the first indented line of a JSON text
// (two spaces when there is none), so that an edited file keeps its style.
func detectIndent(data []byte) string {
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimLeft(line, " \t")
		if trimmed != "" && len(trimmed) < len(line) {
			return line[:len(line)-len(trimmed)]
		}
	}
	return "  "
}

func reindent(data []byte, indent string) []byte {
	if indent == "  " {
		return data
	}
	var b bytes.Buffer
	if err := json.Indent(&b, bytes.TrimSpace(data), "", indent); err != nil {
		return data
	}
	b.WriteByte('\n')
	return b.Bytes()
}

func fileMode(path string) fs.FileMode {
	if st, err := os.Stat(path); err == nil {
		return st.Mode().Perm()
	}
	return 0o644
}

// writeFileAtomic replaces path with data atomically, creating its folder, so that
// an agent reading its settings never sees half a file.
func writeFileAtomic(path string, data []byte, mode fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, data, mode)
}
