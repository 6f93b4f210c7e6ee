package classify

import (
	"path/filepath"
	"slices"
	"strings"
)

// An artifact uploaded by path (npm publish ../priv/pkg.tgz, gem push x.gem, twine
// upload ../priv/dist/*, gh release create v1 ../priv/dist/app.zip) publishes the
// project it was built in, wherever the command runs: that project's markers and
// locks decide, as well as those of the project the command acts on.

// buildOutputs are the folders tools write their artifacts into; an artifact inside
// one belongs to the project above it.
var buildOutputs = []string{"dist", "dist-newstyle", "wheelhouse", "target", "bin", "build", "artifacts"}

// artifactProject is the project an artifact path (relative to dir) belongs to: the
// folder above the build-output folder it lies in (dist/, target/wheels/,
// bin/Release/: within its last three folders), else the folder that holds it; a
// folder is its own project.
// Markers and locks above it apply too, so the folder alone already sees a
// PRIVATE.txt of the project; the project folder makes the locks inside it count.
//
// An artifact inside the working directory never makes a folder above it the
// project (a working directory /src/build/app holding app.tgz is the project).
func artifactProject(dir, file string) string {
	if isDir(Resolve(dir, file)) {
		return Resolve(dir, file)
	}
	folder := filepath.Dir(Resolve(dir, file))
	parts := strings.Split(filepath.ToSlash(folder), "/")
	for i := len(parts) - 1; i >= 1 && i >= len(parts)-3; i-- {
		if slices.Contains(buildOutputs, parts[i]) {
			project := filepath.FromSlash(strings.Join(parts[:i], "/"))
			if project == "" {
				project = string(filepath.Separator)
			}
			if within(folder, dir) && !within(project, dir) {
				return dir
			}
			return project
		}
	}
	return folder
}

// within reports whether p is root or lies inside it.
func within(p, root string) bool {
	return p == root || strings.HasPrefix(p, strings.TrimSuffix(root, string(filepath.Separator))+string(filepath.Separator))
}

// artifactProjects are the projects of the artifact paths files (relative to dir),
// in order and without repeats. A pattern the shell did not expand (the agent hook
// sees the command line as written) counts as every file it matches, and as the
// folder before its first pattern character when it matches none.
func artifactProjects(dir string, files []string) []string {
	var out []string
	add := func(p string) {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	for _, f := range files {
		if f == "" || f == "-" {
			continue
		}
		if !strings.ContainsAny(f, "*?[") {
			add(artifactProject(dir, f))
			continue
		}
		matches, _ := filepath.Glob(Resolve(dir, f))
		for _, m := range matches {
			add(artifactProject(dir, m))
		}
		if len(matches) == 0 {
			prefix := f[:strings.IndexAny(f, "*?[")]
			add(artifactProject(dir, prefix+"x"))
		}
	}
	return out
}

// withArtifacts sets c's projects: the project the command acts on (c.ProjectDir)
// and those of the artifacts it uploads. primary makes the first artifact's project
// the one the command acts on (npm publish ../priv/pkg.tgz publishes that package;
// gh release create v1 ../priv/app.zip still releases the working directory's
// repository).
func withArtifacts(c Classification, dir string, files []string, primary bool) Classification {
	ps := artifactProjects(dir, files)
	if len(ps) == 0 {
		return c
	}
	if primary {
		c.ProjectDir = ps[0]
		c.Projects = ps
		return c
	}
	c.Projects = append([]string{c.ProjectDir}, slices.DeleteFunc(ps, func(p string) bool { return p == c.ProjectDir })...)
	return c
}

// isArtifactPath reports whether a positional word names a file to upload rather
// than a package spec or a name: it has a path separator or a package suffix.
func isArtifactPath(w string, suffixes ...string) bool {
	if strings.ContainsAny(w, `/\`) || strings.HasPrefix(w, ".") {
		return true
	}
	for _, s := range suffixes {
		if strings.HasSuffix(strings.ToLower(w), s) {
			return true
		}
	}
	return false
}
