package classify

import (
	"fmt"
	"slices"
	"strings"
)

// containerTools push images and charts to registries.
func containerTools() map[string]tool {
	return map[string]tool{
		"docker":         {classifyDocker, helpLong},
		"podman":         {classifyDocker, helpLong},
		"buildah":        {classifyDocker, helpLong},
		"nerdctl":        {classifyDocker, helpLong},
		"docker-compose": {classifyCompose, helpLong},
		"podman-compose": {classifyCompose, nil},
		"helm":           {withoutProg(classifyHelm), helpAnywhere},
		"ko":             {withoutProg(classifyKo), helpAnywhere},
		"crane":          {withoutProg(classifyCrane), helpAnywhere},
		"skopeo":         {withoutProg(classifySkopeo), helpAnywhere},
		"oras":           {withoutProg(classifyOras), helpAnywhere},
		"jib":            {withoutProg(classifyJib), helpLong},
	}
}

// classifyCompose: docker-compose and podman-compose are `docker compose`.
func classifyCompose(prog string, rest []string, dir string) Classification {
	return classifyDocker(prog, append([]string{"compose"}, rest...), dir)
}

// Container images and charts are published by pushing them to a registry: docker
// push, docker compose build --push, docker buildx build --push, ko build (which
// pushes unless told not to), crane, skopeo, oras, jib, helm push.

// dockerValued are the options of docker, podman, buildah and nerdctl (and their
// build, compose and buildx subcommands) that take a value.
var dockerValued = []string{"-H", "--host", "--context", "-c", "--config", "-l", "--log-level", "-f", "--file", "-t", "--tag", "-p", "--project-name", "--build-arg", "--platform", "--target", "--builder", "-o", "--output", "--cache-from", "--cache-to", "--label", "--secret", "--ssh", "--progress", "--env-file", "--profile", "--project-directory", "--set", "--tlscacert", "--tlscert", "--tlskey", "--metadata-file", "--attest", "--sbom", "--provenance", "--annotation", "--network", "--add-host", "--iidfile", "--shm-size", "--ulimit", "-m", "--memory", "--allow", "--build-context", "--authfile", "--creds", "--format", "--digestfile", "--sign-by", "--compression-format", "--retry", "--ansi", "--parallel", "--arch", "--os", "--variant", "--signature-policy", "--cert-dir"}

func classifyDocker(prog string, rest []string, dir string) Classification {
	a := newArgs(rest, dockerValued...)
	pos := a.positionals()
	if len(pos) == 0 {
		return nothing(dir, prog+" without a subcommand publishes nothing", prog)
	}
	push := func(words ...string) Classification {
		return known(OpRegistryUpload, strings.Join(words, " ")+" uploads images to a registry", dir, words...)
	}
	sub := func(i int) string {
		if i < len(pos) {
			return pos[i]
		}
		return ""
	}
	switch {
	case pos[0] == "push":
		return push(prog, "push")
	case slices.Contains([]string{"image", "manifest", "compose", "artifact", "plugin"}, pos[0]) && sub(1) == "push":
		return push(prog, pos[0], "push")
	case pos[0] == "compose" && (sub(1) == "publish" || sub(1) == "alpha" && sub(2) == "publish"):
		// docker compose publish uploads the compose application as an OCI artifact.
		return push(prog, "compose", "publish")
	case pos[0] == "compose" && sub(1) == "build" && a.anySet("--push"):
		return push(prog, "compose", "build", "--push")
	case pos[0] == "trust" && sub(1) == "sign":
		return push(prog, "trust", "sign")
	case (pos[0] == "build" || pos[0] == "bud" || pos[0] == "buildx" && (sub(1) == "build" || sub(1) == "b" || sub(1) == "bake")) && (a.anySet("--push") || outputPushes(a)):
		return push(prog, pos[0], "--push")
	case pos[0] == "buildx" && sub(1) == "imagetools" && sub(2) == "create" && !a.flag("--dry-run"):
		return push(prog, "buildx", "imagetools", "create")
	}
	return nothing(dir, fmt.Sprintf("%s %s publishes nothing", prog, pos[0]), prog, pos[0])
}

// outputPushes reports a build output that goes to a registry: --output
// type=registry or push=true, or bake's --set *.output=... / *.push=true.
func outputPushes(a args) bool {
	for _, v := range append(a.values("-o", "--output"), a.values("--set")...) {
		lv := strings.ToLower(strings.ReplaceAll(v, " ", ""))
		if strings.Contains(lv, "type=registry") || strings.Contains(lv, "push=true") || strings.HasSuffix(lv, ".push") {
			return true
		}
	}
	return false
}

func classifyHelm(rest []string, dir string) Classification {
	a := newArgs(rest, "--kube-context", "--namespace", "-n", "--registry-config", "--repository-config", "--repository-cache", "--cert-file", "--key-file", "--ca-file", "--username", "--password", "--context-path", "--version", "--kubeconfig", "--burst-limit", "--qps", "--kube-apiserver", "--kube-as-user", "--kube-as-group", "--kube-token")
	pos := a.positionals()
	if len(pos) > 0 && (pos[0] == "push" || pos[0] == "cm-push" || pos[0] == "s3" && len(pos) > 1 && pos[1] == "push") {
		c := known(OpRegistryUpload, "helm "+pos[0]+" uploads the chart to a registry", dir, "helm", pos[0])
		at := 1
		if pos[0] == "s3" {
			at = 2
		}
		if len(pos) > at {
			c = withArtifacts(c, dir, pos[at:at+1], true)
		}
		return c
	}
	if len(pos) == 0 {
		return nothing(dir, "helm without a subcommand publishes nothing", "helm")
	}
	return nothing(dir, fmt.Sprintf("helm %s publishes nothing", pos[0]), "helm", pos[0])
}

// classifyKo: ko build (publish), resolve, apply, create and run push the images
// they build unless --local (-L) or --push=false says not to.
func classifyKo(rest []string, dir string) Classification {
	a := newArgs(rest, "-t", "--tags", "--platform", "--image-refs", "--image-label", "--image-annotation", "--image-user", "--sbom", "--sbom-dir", "-j", "--jobs", "-f", "--filename", "-l", "--selector", "--tag-only", "--debug", "--context", "-n", "--namespace", "--kubeconfig")
	pos := a.positionals()
	if len(pos) == 0 {
		return nothing(dir, "ko without a subcommand publishes nothing", "ko")
	}
	switch pos[0] {
	case "build", "publish", "resolve", "apply", "create", "run":
		c := known(OpRegistryUpload, "ko "+pos[0]+" pushes the images it builds", dir, "ko", pos[0])
		if a.flag("--local", "-L") || pushOff(a) {
			c.DryRun, c.Why = true, "ko "+pos[0]+" --local / --push=false keeps the images local"
		}
		return c
	}
	return nothing(dir, "ko "+pos[0]+" publishes nothing", "ko", pos[0])
}

// pushOff reports that the last --push says false (ko and jib push by default).
func pushOff(a args) bool {
	off := false
	for _, w := range a.words {
		if w == "--" {
			break
		}
		if v, ok := strings.CutPrefix(w, "--push="); ok {
			off = isFalse(v)
		} else if w == "--push" {
			off = false
		}
	}
	return off
}

// classifyCrane: crane writes to registries with push, copy, append, mutate, tag,
// rebase, flatten, delete... (every write is treated as an upload) and reads with
// the rest.
func classifyCrane(rest []string, dir string) Classification {
	a := newArgs(rest, "--platform", "-t", "--tag", "-o", "--output", "-f", "--base", "--new_layer", "--annotation", "-a", "--label", "-l", "--cmd", "--entrypoint", "--env", "-e", "--exposed-ports", "--user", "--workdir", "--new_tag", "--new_base", "--old_base", "--image-refs", "--repo")
	pos := a.positionals()
	if len(pos) == 0 {
		return nothing(dir, "crane without a subcommand publishes nothing", "crane")
	}
	switch pos[0] {
	case "push":
		c := known(OpRegistryUpload, "crane push uploads an image to a registry", dir, "crane", "push")
		if len(pos) > 1 {
			c = withArtifacts(c, dir, pos[1:2], true)
		}
		return c
	case "copy", "cp", "append", "mutate", "tag", "rebase", "flatten", "edit", "index":
		return known(OpRegistryUpload, "crane "+pos[0]+" writes an image to a registry", dir, "crane", pos[0])
	}
	return nothing(dir, "crane "+pos[0]+" publishes nothing", "crane", pos[0])
}

// skopeoLocal are the transports of images on this machine: a copy into one
// publishes nothing; a copy from one of those with a path uploads that path.
var skopeoLocal = []string{"dir:", "oci:", "oci-archive:", "docker-archive:", "docker-daemon:", "containers-storage:"}

func classifySkopeo(rest []string, dir string) Classification {
	a := newArgs(rest, "--authfile", "--src-authfile", "--dest-authfile", "--src-creds", "--dest-creds", "--src-cert-dir", "--dest-cert-dir", "--format", "-f", "--sign-by", "--src", "-s", "--dest", "-d", "--override-arch", "--override-os", "--override-variant", "--retry-times", "--multi-arch", "--registries.d", "--policy", "--command-timeout", "--tmpdir", "--src-registry-token", "--dest-registry-token", "--dest-compress-format", "--encryption-key", "--decryption-key", "--scoped", "--digestfile", "--additional-tag", "--dest-shared-blob-dir", "--src-shared-blob-dir", "--preserve-digests")
	pos := a.positionals()
	if len(pos) == 0 {
		return nothing(dir, "skopeo without a subcommand publishes nothing", "skopeo")
	}
	isLocal := func(ref string) bool {
		return slices.ContainsFunc(skopeoLocal, func(t string) bool { return strings.HasPrefix(ref, t) })
	}
	switch pos[0] {
	case "copy":
		if len(pos) >= 3 && isLocal(pos[2]) {
			return nothing(dir, "skopeo copy into a local image publishes nothing", "skopeo", "copy")
		}
		c := known(OpRegistryUpload, "skopeo copy uploads an image to a registry", dir, "skopeo", "copy")
		if len(pos) >= 2 && isLocal(pos[1]) {
			if _, p, ok := strings.Cut(pos[1], ":"); ok && p != "" && !strings.HasPrefix(pos[1], "docker-daemon:") && !strings.HasPrefix(pos[1], "containers-storage:") {
				path, _, _ := strings.Cut(p, ":")
				c = withArtifacts(c, dir, []string{path}, true)
			}
		}
		return c
	case "sync":
		if d, _ := a.value("--dest", "-d"); d != "" && d != "docker" {
			return nothing(dir, "skopeo sync into a local folder publishes nothing", "skopeo", "sync")
		}
		return known(OpRegistryUpload, "skopeo sync uploads images to a registry", dir, "skopeo", "sync")
	case "delete":
		return nothing(dir, "skopeo delete publishes nothing", "skopeo", "delete")
	}
	return nothing(dir, "skopeo "+pos[0]+" publishes nothing", "skopeo", pos[0])
}

// classifyOras: oras push uploads files as an artifact; copy, attach, tag and the
// manifest and blob pushes write to a registry too.
func classifyOras(rest []string, dir string) Classification {
	a := newArgs(rest, "-u", "--username", "-p", "--password", "--registry-config", "--artifact-type", "-a", "--annotation", "--annotation-file", "--config", "--export-manifest", "--concurrency", "--format", "--platform", "--from-oci-layout-path", "--oci-layout-path", "--resolve", "--ca-file", "--cert-file", "--key-file")
	pos := a.positionals()
	if len(pos) == 0 {
		return nothing(dir, "oras without a subcommand publishes nothing", "oras")
	}
	switch {
	case pos[0] == "push":
		c := known(OpRegistryUpload, "oras push uploads files to a registry", dir, "oras", "push")
		var files []string
		for _, f := range pos[min(2, len(pos)):] {
			path, _, _ := strings.Cut(f, ":")
			files = append(files, path)
		}
		return withArtifacts(c, dir, files, true)
	case slices.Contains([]string{"copy", "cp", "attach", "tag"}, pos[0]), (pos[0] == "manifest" || pos[0] == "blob") && len(pos) > 1 && pos[1] == "push":
		return known(OpRegistryUpload, "oras "+pos[0]+" writes to a registry", dir, "oras", pos[0])
	}
	return nothing(dir, "oras "+pos[0]+" publishes nothing", "oras", pos[0])
}

// classifyJib: the jib CLI's build pushes to a registry unless its target is the
// local Docker daemon or a tarball.
func classifyJib(rest []string, dir string) Classification {
	a := newArgs(rest, "-t", "--target", "-b", "--build-file", "-c", "--context", "--from", "--jar", "--war", "-p", "--parameter", "--name", "--image-metadata-out", "--credential-helper", "--to-credential-helper")
	pos := a.positionals()
	if len(pos) == 0 || pos[0] != "build" && pos[0] != "jar" && pos[0] != "war" {
		return nothing(dir, "jib publishes only with build, jar or war", "jib")
	}
	t, _ := a.value("-t", "--target")
	if strings.HasPrefix(t, "docker://") || strings.HasPrefix(t, "tar://") {
		return nothing(dir, "jib "+pos[0]+" into the local Docker daemon or a tarball publishes nothing", "jib", pos[0])
	}
	return known(OpRegistryUpload, "jib "+pos[0]+" pushes the image to a registry", dir, "jib", pos[0])
}
