package classify

import (
	"strings"
)

// rubyTools are RubyGems' gem and Bundler's rake release.
func rubyTools() map[string]tool {
	return map[string]tool{
		"gem":  {uploads([]string{"push"}, "--host", "-k", "--key", "--otp", "-p", "--http-proxy", "--attestation"), helpAnywhere},
		"rake": {withoutProg(classifyRake), helpLong},
	}
}

func classifyRake(rest []string, dir string) Classification {
	a := newArgs(rest, "-f", "--rakefile", "-C", "--directory", "-I", "--libdir", "-r", "--require")
	base := a.dirFlag(dir, "-C", "--directory")
	for _, t := range a.positionals() {
		name := t
		if i := strings.IndexByte(name, '['); i >= 0 {
			name = name[:i]
		}
		if name == "release" || strings.HasPrefix(name, "release:") {
			return known(OpRegistryUpload, "rake release (Bundler's gem tasks) pushes the gem to the registry", base, "rake", "release")
		}
	}
	return nothing(base, "rake publishes only with a release task", "rake")
}
