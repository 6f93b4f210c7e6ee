package classify

// haskellTools upload Haskell packages to Hackage.
func haskellTools() map[string]tool {
	return map[string]tool{
		"cabal": hackageUploader,
		"stack": hackageUploader,
	}
}

// hackageUploader: cabal upload, stack upload (with the packages).
var hackageUploader = tool{uploads([]string{"upload"}, "-u", "--username", "-p", "--password", "-P", "--password-command", "--token", "--candidate"), nil}
