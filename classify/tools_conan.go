package classify

// conanTools upload C and C++ packages (Conan).
func conanTools() map[string]tool {
	return map[string]tool{
		"conan": {classifyConan, nil},
	}
}

// classifyConan: conan upload uploads to a remote, --dry-run rehearses.
func classifyConan(prog string, rest []string, dir string) Classification {
	valued := []string{"-r", "--remote", "-p", "--package-query", "-l", "--list", "-f", "--format"}
	c := subcommandTool(prog, rest, dir, map[string]string{"upload": OpRegistryUpload}, valued...)
	if c.Op != "" && newArgs(rest, valued...).flag("--dry-run") {
		c.DryRun, c.Why = true, "conan upload --dry-run uploads nothing"
	}
	return c
}
