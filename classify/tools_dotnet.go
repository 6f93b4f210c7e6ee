package classify

// dotnetTools push NuGet packages (dotnet nuget push, nuget, choco, paket).
func dotnetTools() map[string]tool {
	return map[string]tool{
		"dotnet": {withoutProg(classifyDotnet), helpAnywhere},
		"nuget":  nugetPusher,
		"choco":  nugetPusher,
		"paket":  nugetPusher,
	}
}

// nugetPusher: nuget push, choco push, paket push (with the packages).
var nugetPusher = tool{uploads([]string{"push"}, "-Source", "-source", "-s", "-ApiKey", "-apikey", "-k", "--source", "--api-key", "--key", "--url", "--endpoint", "-Timeout", "-ConfigFile"), nil}

// classifyDotnet: dotnet publishes to a feed only with dotnet nuget push.
func classifyDotnet(rest []string, dir string) Classification {
	pos := newArgs(rest, "-s", "--source", "-k", "--api-key", "-ss", "--symbol-source", "-sk", "--symbol-api-key", "-t", "--timeout", "--configfile").positionals()
	if len(pos) >= 2 && pos[0] == "nuget" && pos[1] == "push" {
		c := known(OpRegistryUpload, "dotnet nuget push uploads a package to a NuGet feed", dir, "dotnet", "nuget", "push")
		return withArtifacts(c, dir, pos[2:min(3, len(pos))], true)
	}
	return nothing(dir, "dotnet publishes to a registry only with `dotnet nuget push`", "dotnet")
}
