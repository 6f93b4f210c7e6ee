package main

import (
	"runtime/debug"
	"strings"
)

type buildInfo struct{ version, commit, date string }

// withModuleInfo fills what the linker did not inject (a `go install` or `go build`
// without goreleaser's -X flags) from what Go embeds in every binary: the module
// version (`go install ...@v1.2.3`) and the VCS stamp of a build from a checkout
// (vcs.revision, vcs.time, vcs.modified). Without this every such build printed
// "guard dev (commit none, built unknown)", which tells a bug report nothing.
func withModuleInfo(bi buildInfo, mod *debug.BuildInfo) buildInfo {
	if mod == nil {
		return bi
	}
	if bi.version == "dev" && mod.Main.Version != "" && mod.Main.Version != "(devel)" {
		bi.version = strings.TrimPrefix(mod.Main.Version, "v")
	}
	var rev, at string
	var dirty bool
	for _, s := range mod.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if bi.commit == "none" && rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if dirty {
			rev += "-dirty"
		}
		bi.commit = rev
	}
	if bi.date == "unknown" && at != "" {
		bi.date = at
	}
	return bi
}
