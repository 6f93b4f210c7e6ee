package classify

// httpClientTools are HTTP clients: not known publishers, but a call to GitHub's
// API that makes a repository public or publishes a release is recognised, as gh
// api's is.
func httpClientTools() map[string]tool {
	return map[string]tool{
		"curl":  {classifyHTTPClient, nil},
		"wget":  {classifyHTTPClient, nil},
		"http":  {classifyHTTPClient, nil},
		"https": {classifyHTTPClient, nil},
		"xh":    {classifyHTTPClient, nil},
	}
}

// classifyHTTPClient is a GitHub API call that publishes, or an unknown program.
func classifyHTTPClient(prog string, rest []string, dir string) Classification {
	if c := httpGitHubCall(prog, rest, dir); c.Op != "" {
		return c
	}
	return unknownProgram(prog, rest, dir)
}
