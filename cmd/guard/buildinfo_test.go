package main

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWithModuleInfo(t *testing.T) {
	unset := buildInfo{"dev", "none", "unknown"}
	vcs := []debug.BuildSetting{
		{Key: "vcs.revision", Value: "f3f892a5ba4e7656dc2d2aa1d485615fa4e5bd9d"},
		{Key: "vcs.time", Value: "2026-11-29T11:00:13Z"},
		{Key: "vcs.modified", Value: "false"},
	}
	for _, tc := range []struct {
		name string
		bi   buildInfo
		mod  *debug.BuildInfo
		want buildInfo
	}{
		{"no build info", unset, nil, unset},
		{"go install of a tagged module", unset,
			&debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}},
			buildInfo{"1.4.0", "none", "unknown"}},
		{"go build in a checkout", unset,
			&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs},
			buildInfo{"dev", "f3f892a5ba4e", "2026-11-29T11:00:13Z"}},
		{"a checkout with local changes", unset,
			&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: append(vcs[:2:2], debug.BuildSetting{Key: "vcs.modified", Value: "true"})},
			buildInfo{"dev", "f3f892a5ba4e-dirty", "2026-11-29T11:00:13Z"}},
		{"the linker's values win", buildInfo{"1.2.3", "abc1234", "2026-11-29"},
			&debug.BuildInfo{Main: debug.Module{Version: "v9.9.9"}, Settings: vcs},
			buildInfo{"1.2.3", "abc1234", "2026-11-29"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, withModuleInfo(tc.bi, tc.mod))
		})
	}
}

func TestVersionFlagAnswersLikeTheVersionCommand(t *testing.T) {
	out, _, code := runGuard(t, t.TempDir(), nil, "--version")
	assert.Equal(t, 0, code)
	assert.Equal(t, "guard 1.2.3 (commit abc1234, built 2026-11-29)\n", out)
}
