package classify

import (
	"fmt"
	"path/filepath"
	"strings"
)

// pythonTools are the Python packaging tools that upload to a package index, and
// the conda ones that upload to a channel.
func pythonTools() map[string]tool {
	return map[string]tool{
		"twine":         {uploads([]string{"upload", "register"}, "-r", "--repository", "--repository-url", "-u", "--username", "-p", "--password", "-c", "--comment", "--config-file", "-i", "--identity", "--sign-with", "--cert", "--client-cert", "--attestations"), helpAnywhere},
		"poetry":        {withoutProg(poetryPublish.classify), helpAnywhere},
		"uv":            {withoutProg(uvPublish.classify), helpAnywhere},
		"hatch":         pypiUploader,
		"maturin":       pypiUploader,
		"rye":           pypiUploader,
		"flit":          pypiPublisher,
		"pdm":           pypiPublisher,
		"python":        {classifySetupPy, nil},
		"python2":       {classifySetupPy, nil},
		"python3":       {classifySetupPy, nil},
		"py":            {classifySetupPy, nil},
		"anaconda":      condaUploader,
		"pixi":          condaUploader,
		"rattler-build": condaUploader,
	}
}

var (
	// pypiUploader: hatch publish, maturin upload, rye publish (with the files).
	pypiUploader = tool{uploads([]string{"publish", "upload"}, "-r", "--repository", "--repo", "--pypirc", "-u", "--user", "--username", "-a", "--auth", "--password", "--token", "--repository-url", "--ca-certs", "--client-cert", "--format", "-p", "--project", "--directory", "--interpreter", "-i", "-m", "--manifest-path", "-e", "--env", "--cache-dir", "--data-dir", "--config", "-o", "--option", "--skip-existing", "--sign-with", "--identity"), helpAnywhere}
	// pypiPublisher: flit publish, pdm publish.
	pypiPublisher = tool{subcommands(map[string]string{"publish": OpRegistryUpload, "upload": OpRegistryUpload}, "-r", "--repository", "--repo", "--pypirc", "-u", "--user", "--username", "--password", "--repository-url", "--ca-certs", "--client-cert", "--format", "-p", "--project", "-c", "--config", "-i", "--identity", "--comment"), helpAnywhere}
	// condaUploader: anaconda upload, pixi upload, rattler-build upload.
	condaUploader = tool{uploads([]string{"upload"}, "-t", "--token", "-u", "--user", "-c", "--channel", "-l", "--label", "--package-type", "-s", "--site", "--host", "--api-key"), nil}
)

// publishSubcommand describes a tool whose only publishing form is `<tool> publish`,
// rehearsed by --dry-run, with options that name the project directory.
type publishSubcommand struct {
	tool       string
	why        string   // what `<tool> publish` does, for people
	dirFlags   []string // options whose value is the project directory
	valueFlags []string // every option that takes a value (dirFlags included)
}

var (
	poetryPublish = publishSubcommand{tool: "poetry", why: "poetry publish uploads the package to the registry",
		dirFlags:   []string{"-C", "--directory", "-P", "--project"},
		valueFlags: []string{"-C", "--directory", "-P", "--project", "-r", "--repository", "-u", "--username", "-p", "--password", "--cert", "--client-cert", "--dist-dir"}}
	uvPublish = publishSubcommand{tool: "uv", why: "uv publish uploads the distributions to the index",
		dirFlags:   []string{"--directory", "--project"},
		valueFlags: []string{"--directory", "--project", "--index", "--publish-url", "--check-url", "-u", "--username", "-p", "--password", "-t", "--token", "--trusted-publishing", "--keyring-provider", "--config-file", "--cache-dir", "--python"}}
)

func (p publishSubcommand) classify(rest []string, dir string) Classification {
	a := newArgs(rest, p.valueFlags...)
	pos := a.positionals()
	base := a.dirFlag(dir, p.dirFlags...)
	if len(pos) > 0 && pos[0] == "publish" {
		c := known(OpRegistryUpload, p.why, base, p.tool, "publish")
		if a.flag("--dry-run") {
			c.DryRun, c.Why = true, p.tool+" publish --dry-run uploads nothing"
		}
		// The files it uploads (uv publish ../priv/dist/*), or the folder they
		// are taken from (poetry publish --dist-dir ../priv/dist).
		files := pos[1:]
		for _, d := range a.values("--dist-dir") {
			files = append(files, filepath.Join(d, "x"))
		}
		return withArtifacts(c, base, files, true)
	}
	return otherSubcommand(base, p.tool, pos)
}

// classifySetupPy: python setup.py ... upload (register, upload_docs) is the old way
// to upload to PyPI. Any other python command is a program guard does not know.
func classifySetupPy(prog string, rest []string, dir string) Classification {
	for i, w := range rest {
		if strings.HasPrefix(w, "-") {
			continue
		}
		if programName(w) != "setup.py" {
			break
		}
		for _, cmd := range rest[i+1:] {
			if cmd == "upload" || cmd == "register" || cmd == "upload_docs" {
				return known(OpRegistryUpload, "setup.py "+cmd+" uploads to the package index", dir, prog, "setup.py", cmd)
			}
		}
		return nothing(dir, "setup.py uploads only with upload, register or upload_docs", prog, "setup.py")
	}
	return Classification{ProjectDir: dir, Why: fmt.Sprintf("guard does not know whether %q publishes anything", prog), Words: commandWords(append([]string{prog}, rest...))}
}
