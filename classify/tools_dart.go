package classify

// dartTools upload to pub.dev.
func dartTools() map[string]tool {
	return map[string]tool{
		"dart":    {classifyPub, helpAnywhere},
		"flutter": {classifyPub, helpAnywhere},
		"pub":     {classifyPub, helpLong},
	}
}

// classifyPub: dart pub publish, flutter pub publish and pub publish (lish and lush
// are pub's own aliases), rehearsed with --dry-run or -n.
func classifyPub(prog string, rest []string, dir string) Classification {
	a := newArgs(rest, "-C", "--directory", "--server", "--ignore-warnings")
	pos := a.positionals()
	if prog != "pub" {
		if len(pos) == 0 || pos[0] != "pub" {
			return nothing(dir, prog+" publishes only with pub publish", prog)
		}
		pos = pos[1:]
	}
	if len(pos) == 0 || pos[0] != "publish" && pos[0] != "lish" && pos[0] != "lush" {
		return nothing(dir, prog+" publishes only with pub publish", prog)
	}
	base := a.dirFlag(dir, "-C", "--directory")
	c := known(OpRegistryUpload, prog+" pub publish uploads the package to pub.dev", base, prog, "pub", "publish")
	if a.flag("--dry-run", "-n") {
		c.DryRun, c.Why = true, prog+" pub publish --dry-run uploads nothing"
	}
	return c
}
