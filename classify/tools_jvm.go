package classify

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"
)

// jvmTools are the JVM's build tools that deploy to a repository.
func jvmTools() map[string]tool {
	return map[string]tool{
		"mvn":     {classifyMaven, helpAnywhere},
		"mvnw":    {classifyMaven, helpAnywhere},
		"mvnd":    {classifyMaven, helpAnywhere},
		"gradle":  {classifyGradle, helpAnywhere},
		"gradlew": {classifyGradle, helpAnywhere},
		"sbt":     {withoutProg(classifySbt), nil},
		"sbtn":    {withoutProg(classifySbt), nil},
		"lein":    {subcommands(map[string]string{"deploy": OpRegistryUpload, "release": OpPublishRelease}, "-o", "-U", "with-profile"), nil},
	}
}

// The JVM build tools publish through goals and tasks (mvn deploy, mvn jib:build,
// gradle publishToMavenCentral, sbt publishSigned) and hold back through properties
// that the last definition sets (-Dmaven.deploy.skip=true -Dmaven.deploy.skip=false
// deploys).

// mavenValued are Maven's options that take a value.
var mavenValued = []string{"-f", "--file", "-pl", "--projects", "-s", "--settings", "-gs", "--global-settings", "-P", "--activate-profiles", "-rf", "--resume-from", "-T", "--threads", "-D", "--define", "-l", "--log-file", "-t", "--toolchains", "-gt", "--global-toolchains", "-b", "--builder", "-amd", "--color"}

// mavenGoal is a Maven goal that publishes.
type mavenGoal struct {
	op, why string
	// skip is the property that holds it back when true (-Dmaven.deploy.skip).
	skip string
}

// mavenPublishing tells whether a goal or phase publishes, and how. Goals are
// prefix:goal or groupId:artifactId[:version]:goal.
func mavenPublishing(goal string, a args) (mavenGoal, bool) {
	g := strings.ToLower(goal)
	last := g[strings.LastIndexByte(g, ':')+1:]
	plugin := ""
	if i := strings.LastIndexByte(g, ':'); i >= 0 {
		plugin = g[:i]
	}
	isPlugin := func(names ...string) bool {
		for _, n := range names {
			if plugin == n || strings.Contains(plugin, n+"-maven-plugin") || strings.Contains(plugin, "maven-"+n+"-plugin") || strings.HasSuffix(plugin, ":"+n) {
				return true
			}
		}
		return false
	}
	switch {
	case g == "deploy" || last == "deploy" && isPlugin("deploy"):
		return mavenGoal{OpRegistryUpload, "mvn deploy uploads artifacts to the remote repository", "maven.deploy.skip"}, true
	case strings.HasSuffix(last, "deploy-file"):
		return mavenGoal{OpRegistryUpload, "mvn " + goal + " uploads a file to a remote repository", ""}, true
	case last == "perform" && isPlugin("release"):
		return mavenGoal{OpPublishRelease, "mvn release:perform deploys the tagged release", ""}, true
	case isPlugin("jib") && last == "build":
		return mavenGoal{OpRegistryUpload, "mvn jib:build pushes the image to a registry", "jib.skip"}, true
	case isPlugin("dockerfile", "docker", "k8s", "oc") && last == "push":
		return mavenGoal{OpRegistryUpload, "mvn " + goal + " pushes an image to a registry", "docker.skip"}, true
	case isPlugin("nexus-staging") && (last == "deploy" || last == "release" || last == "deploy-staged" || last == "rc-release" || last == "deploy-staged-repository"):
		return mavenGoal{OpRegistryUpload, "mvn " + goal + " uploads or releases a staging repository", "skipNexusStagingDeployMojo"}, true
	case isPlugin("central-publishing") && last == "publish":
		return mavenGoal{OpRegistryUpload, "mvn central-publishing:publish uploads to Maven Central", ""}, true
	case isPlugin("jreleaser") && (last == "full-release" || last == "release" || last == "deploy" || last == "publish" || last == "upload"):
		return mavenGoal{OpPublishRelease, "mvn " + goal + " releases and publishes the project", ""}, true
	case g == "site-deploy" || isPlugin("site") && (last == "deploy" || last == "stage-deploy"):
		return mavenGoal{OpRegistryUpload, "mvn " + goal + " uploads the project's site", ""}, true
	case isPlugin("scm-publish") && last == "publish-scm", isPlugin("wagon") && strings.HasPrefix(last, "upload"):
		return mavenGoal{OpRegistryUpload, "mvn " + goal + " uploads files", ""}, true
	case isPlugin("spring-boot") && last == "build-image" && mavenTrue(a, "spring-boot.build-image.publish"):
		return mavenGoal{OpRegistryUpload, "mvn spring-boot:build-image with publish=true pushes the image", ""}, true
	case plugin != "" && (last == "deploy" || last == "push" || last == "publish"):
		// Any other plugin's deploy, push or publish goal (fail closed).
		return mavenGoal{OpRegistryUpload, "mvn " + goal + " may upload (a deploy, push or publish goal)", ""}, true
	}
	return mavenGoal{}, false
}

func classifyMaven(prog string, rest []string, dir string) Classification {
	a := newArgs(rest, mavenValued...)
	base := dir
	if f, ok := a.value("-f", "--file"); ok && f != "" {
		p := Resolve(dir, f)
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			base = p
		} else {
			base = filepath.Dir(p)
		}
	}
	var held Classification
	for _, goal := range a.positionals() {
		g, ok := mavenPublishing(goal, a)
		if !ok {
			continue
		}
		c := known(g.op, g.why, base, prog, goal)
		switch {
		case g.skip != "" && mavenTrue(a, g.skip):
			c.DryRun, c.Why = true, fmt.Sprintf("-D%s=true skips %s", g.skip, goal)
		case g.op == OpPublishRelease && mavenTrue(a, "dryRun"):
			c.DryRun, c.Why = true, "-DdryRun=true rehearses the release"
		default:
			return c
		}
		if held.Op == "" {
			held = c
		}
	}
	if held.Op != "" {
		return held
	}
	// Properties that make ordinary goals push an image (Quarkus, Spring Boot).
	for _, p := range []string{"quarkus.container-image.push", "spring-boot.build-image.publish", "jib.to.push"} {
		if mavenTrue(a, p) {
			return known(OpRegistryUpload, fmt.Sprintf("-D%s=true pushes an image during the build", p), base, prog)
		}
	}
	return nothing(base, prog+" publishes only with a deploy, release:perform, jib:build or push goal", prog)
}

// mavenTrue reports whether the system property name is true as Maven reads the
// command line: the last definition wins, "-Dname" alone is true, and only "true"
// (in any case) is true, as Java's Boolean.parseBoolean reads it.
func mavenTrue(a args, name string) bool {
	v, set := "", false
	for i := 0; i < len(a.words); i++ {
		w := a.words[i]
		def := ""
		switch {
		case w == "-D" || w == "--define":
			if i+1 < len(a.words) {
				def = a.words[i+1]
				i++
			}
		case strings.HasPrefix(w, "--define="):
			def = strings.TrimPrefix(w, "--define=")
		case strings.HasPrefix(w, "-D"):
			def = w[2:]
		default:
			if a.valued[w] {
				i++
			}
			continue
		}
		k, val, eq := strings.Cut(def, "=")
		if k != name {
			continue
		}
		set = true
		if eq {
			v = val
		} else {
			v = "true"
		}
	}
	return set && strings.EqualFold(strings.TrimSpace(v), "true")
}

// gradleValued are Gradle's options that take a value.
var gradleValued = []string{"-p", "--project-dir", "-b", "--build-file", "-c", "--settings-file", "-x", "--exclude-task", "-D", "--system-prop", "-P", "--project-prop", "-g", "--gradle-user-home", "-I", "--init-script", "--console", "--warning-mode", "--include-build", "--max-workers", "--priority", "--project-cache-dir", "-F", "--dependency-verification", "--watch-fs"}

// gradlePublishingTasks are the tasks of Gradle's publishing plugins (maven-publish,
// the plugin portal, nexus-publish, vanniktech, jib, JReleaser, ...) that upload.
// Gradle accepts any camel-case abbreviation that names one task (pTMC for
// publishToMavenCentral), so abbreviations of these count as well.
var gradlePublishingTasks = []string{
	"publish", "publishToMavenCentral", "publishAndReleaseToMavenCentral", "publishPlugins",
	"publishToSonatype", "publishAllPublicationsToMavenCentralRepository", "publishAllPublicationsToSonatypeRepository",
	"closeAndReleaseRepository", "closeAndReleaseStagingRepository", "closeAndReleaseStagingRepositories",
	"closeAndReleaseSonatypeStagingRepository", "releaseRepository", "releaseSonatypeStagingRepository",
	"releaseStagingRepository", "uploadArchives", "bintrayUpload", "artifactoryPublish", "artifactoryDeploy",
	"jib", "jreleaserFullRelease", "jreleaserRelease", "jreleaserDeploy", "jreleaserPublish", "jreleaserUpload",
	"githubRelease", "dockerPush", "dockerPushImage", "pushImage", "publishImage", "publishPlugin",
	"uploadCrashlyticsMappingFileRelease", "appDistributionUploadRelease", "publishBundle", "publishApps", "publishReleaseBundle",
}

func classifyGradle(prog string, rest []string, dir string) Classification {
	a := newArgs(rest, gradleValued...)
	base := a.dirFlag(dir, "-p", "--project-dir")
	for _, task := range a.positionals() {
		name := task
		if i := strings.LastIndexByte(name, ':'); i >= 0 {
			name = name[i+1:]
		}
		if !gradlePublishes(name) && !(strings.EqualFold(name, "bootBuildImage") && a.anySet("--publishImage")) {
			continue
		}
		c := known(OpRegistryUpload, fmt.Sprintf("gradle task %s uploads publications", task), base, prog, task)
		if a.flag("--dry-run", "-m") {
			c.DryRun, c.Why = true, "gradle --dry-run executes no task"
		}
		return c
	}
	return nothing(base, prog+" publishes only with a publishing task (publish*, closeAndRelease*, jib, ...)", prog)
}

// gradlePublishes reports whether a task name (without its project path) is, or
// abbreviates, a publishing task: publish* except the ...ToMavenLocal ones, or a
// camel-case abbreviation of one of gradlePublishingTasks.
func gradlePublishes(name string) bool {
	lower := strings.ToLower(name)
	if strings.HasPrefix(lower, "publish") && !strings.HasSuffix(lower, "tomavenlocal") {
		return true
	}
	if name == "" {
		return false
	}
	pattern := gradleAbbreviation(name)
	for _, t := range gradlePublishingTasks {
		if strings.EqualFold(name, t) || pattern != nil && pattern.MatchString(t) {
			return true
		}
	}
	return false
}

// gradleAbbreviation is the pattern Gradle matches an abbreviated task name with:
// each camel-case part of the name is a prefix of the task's part in the same place
// (pTMC: p... T... M... C...), in any case for the first letter.
// A name that is not valid UTF-8 abbreviates no task (they are all ASCII): nil.
func gradleAbbreviation(name string) *regexp.Regexp {
	if name == "" || !utf8.ValidString(name) {
		return nil
	}
	first, size := utf8.DecodeRuneInString(name)
	var b strings.Builder
	b.WriteString("^(?i:")
	b.WriteString(regexp.QuoteMeta(string(first)))
	b.WriteString(")")
	for _, r := range name[size:] {
		if r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteString("[a-z0-9]*")
		}
		b.WriteString(regexp.QuoteMeta(string(r)))
	}
	b.WriteString("[a-z0-9]*$")
	return regexp.MustCompile(b.String())
}

// classifySbt reads sbt's commands: each argument is a command line, possibly
// several separated by ";" (sbt "clean; +publishSigned"), scoped to a project
// (core/publish) or cross-built (+publish, ++2.13 publish).
func classifySbt(rest []string, dir string) Classification {
	publishing := map[string]bool{"publish": true, "publishsigned": true, "sonatypebundlerelease": true, "sonatyperelease": true, "sonatypereleaseall": true, "ci-release": true, "release": true, "bintrayrelease": true, "publishmicrosite": true, "ghpagespushsite": true, "docker:publish": true, "sonatypecentralrelease": true, "sonatypecentralupload": true, "sonatypebundleupload": true}
	a := newArgs(rest, "-J", "-D", "--java-home", "-sbt-version", "--sbt-version", "-jvm-debug", "--client")
	for _, arg := range a.positionals() {
		for _, cmd := range strings.FieldsFunc(arg, func(r rune) bool { return r == ';' }) {
			for _, w := range strings.Fields(cmd) {
				w = strings.ToLower(strings.TrimLeft(w, "+"))
				if i := strings.IndexByte(w, '/'); i >= 0 {
					w = w[i+1:]
				}
				if publishing[w] {
					return known(OpRegistryUpload, "sbt "+w+" uploads the project's artifacts", dir, "sbt", w)
				}
			}
		}
	}
	return nothing(dir, "sbt publishes only with a publish or release command (publishLocal stays local)", "sbt")
}
