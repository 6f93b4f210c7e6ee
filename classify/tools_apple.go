package classify

// appleTools publish Swift packages and CocoaPods.
func appleTools() map[string]tool {
	return map[string]tool{
		"pod":   {withoutProg(classifyPod), nil},
		"swift": {withoutProg(classifySwift), nil},
	}
}

// classifyPod: pod trunk push and pod repo push upload the pod's spec.
func classifyPod(rest []string, dir string) Classification {
	pos := newArgs(rest, "--sources", "--spec-repo").positionals()
	if len(pos) >= 2 && (pos[0] == "trunk" || pos[0] == "repo") && pos[1] == "push" {
		return known(OpRegistryUpload, "pod "+pos[0]+" push uploads the pod's spec", dir, "pod", pos[0], "push")
	}
	return nothing(dir, "pod publishes only with trunk push or repo push", "pod")
}

// classifySwift: swift package-registry publish uploads the package.
func classifySwift(rest []string, dir string) Classification {
	a := newArgs(rest, "--package-path", "--scratch-path", "--url", "--metadata-path", "--signing-identity", "--private-key-path", "--cert-chain-paths")
	pos := a.positionals()
	if len(pos) >= 2 && pos[0] == "package-registry" && pos[1] == "publish" {
		c := known(OpRegistryUpload, "swift package-registry publish uploads the package", dir, "swift", "package-registry", "publish")
		if a.flag("--dry-run") {
			c.DryRun, c.Why = true, "swift package-registry publish --dry-run uploads nothing"
		}
		return c
	}
	return nothing(dir, "swift publishes only with package-registry publish", "swift")
}
