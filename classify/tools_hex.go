package classify

import (
	"strings"
)

// hexTools upload Elixir and Erlang packages to hex.pm.
func hexTools() map[string]tool {
	return map[string]tool{
		"mix": {func(prog string, rest []string, dir string) Classification {
			return hexPublish(prog, rest, dir, "hex.publish")
		}, nil},
		"rebar3": {func(prog string, rest []string, dir string) Classification { return hexPublish(prog, rest, dir, "hex") }, nil},
	}
}

// hexPublish: mix hex.publish and rebar3 hex publish (or cut) upload to hex.pm.
func hexPublish(prog string, rest []string, dir, task string) Classification {
	a := newArgs(rest, "-r", "--repo", "--organization", "--revert", "--app", "-a")
	pos := a.positionals()
	publishes := len(pos) > 0 && pos[0] == task && (prog == "mix" || len(pos) > 1 && (pos[1] == "publish" || pos[1] == "cut"))
	if !publishes {
		return nothing(dir, prog+" publishes only with "+task+" publish", prog)
	}
	c := known(OpRegistryUpload, prog+" "+strings.Join(pos[:min(2, len(pos))], " ")+" uploads the package to hex.pm", dir, prog, task)
	if a.flag("--dry-run") {
		c.DryRun, c.Why = true, prog+" "+task+" --dry-run uploads nothing"
	}
	return c
}
