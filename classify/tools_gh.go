package classify

import (
	"fmt"
	"slices"
	"strings"
)

// ghValued are gh options that take a value, across the subcommands guard reads.
var ghValued = []string{"-R", "--repo", "-X", "--method", "-f", "-F", "--field", "--raw-field", "-H", "--header", "--input", "--jq", "-q", "--template", "-t", "--hostname", "--cache", "--visibility", "-d", "--description", "-h", "--homepage", "-g", "--gitignore", "-l", "--license", "-p", "--team", "--template", "-s", "--source", "-r", "--remote", "--title", "-n", "--notes", "--notes-file", "--target", "--discussion-category", "--notes-start-tag", "--add-topic", "--remove-topic", "--default-branch", "--filename", "--desc", "--branch", "--name"}

// ghKnown are gh's own top-level commands; any other first word may be an alias
// (gh alias set) and is read with suspicion.
var ghKnown = map[string]bool{
	"auth": true, "browse": true, "codespace": true, "cs": true, "gist": true, "issue": true, "org": true,
	"pr": true, "project": true, "release": true, "repo": true, "cache": true, "run": true, "workflow": true,
	"co": true, "alias": true, "api": true, "attestation": true, "completion": true, "config": true,
	"extension": true, "ext": true, "gpg-key": true, "label": true, "ruleset": true, "search": true,
	"secret": true, "ssh-key": true, "status": true, "variable": true, "help": true, "version": true,
	"copilot": true, "preview": true, "agent-task": true,
}

func classifyGh(rest []string, dir string) Classification {
	a := newArgs(rest, ghValued...)
	pos := a.positionals()
	if len(pos) == 0 {
		return nothing(dir, "gh without a subcommand publishes nothing", "gh")
	}
	switch pos[0] {
	case "repo":
		if len(pos) > 1 {
			switch pos[1] {
			case "create", "new":
				return ghRepoCreate(a, dir)
			case "edit":
				return ghRepoEdit(a, dir)
			}
			return nothing(dir, fmt.Sprintf("gh repo %s changes no visibility", pos[1]), "gh", "repo", pos[1])
		}
	case "release":
		if len(pos) > 1 {
			switch pos[1] {
			case "create", "new", "upload":
				// The assets after the tag are published too: their projects decide
				// as well as the working directory's.
				c := known(OpPublishRelease, "gh release "+pos[1]+" publishes a release", dir, "gh", "release", pos[1])
				if len(pos) > 3 {
					c = withArtifacts(c, dir, releaseAssets(pos[3:]), false)
				}
				return c
			case "edit":
				if v, ok := a.value("--draft"); ok && !isTrue(v) || slices.Contains(a.words, "--draft=false") {
					return known(OpPublishRelease, "gh release edit --draft=false publishes a draft release", dir, "gh", "release", "edit")
				}
				return nothing(dir, "gh release edit changes notes, not what is published", "gh", "release", "edit")
			}
			return nothing(dir, fmt.Sprintf("gh release %s publishes nothing", pos[1]), "gh", "release", pos[1])
		}
	case "api":
		return ghAPI(rest[slices.Index(rest, "api")+1:], dir)
	case "gist":
		if len(pos) > 1 && (pos[1] == "create" || pos[1] == "new") && (a.anySet("--public", "-p") || a.groupSet('p', "df") || mentionsPublic(a.words)) {
			c := known(OpVisibilityPublic, "gh gist create --public makes a public gist", dir, "gh", "gist", "create")
			return withArtifacts(c, dir, pos[2:], false)
		}
	}
	if !ghKnown[pos[0]] && mentionsPublic(a.words) {
		return known(OpVisibilityPublic, fmt.Sprintf("gh %s is not a gh command guard knows (an alias?) and mentions public visibility", pos[0]), dir, "gh", pos[0])
	}
	return nothing(dir, fmt.Sprintf("gh %s publishes nothing", strings.Join(pos[:min(2, len(pos))], " ")), append([]string{"gh"}, pos[:min(2, len(pos))]...)...)
}

// ghRepoCreate: gh repo create makes a public repository with --public, and asks
// interactively without a visibility flag; only --private or --internal (and no
// --public) is known to publish nothing.
func ghRepoCreate(a args, dir string) Classification {
	projectDir := a.dirFlag(dir, "--source", "-s")
	c := known(OpVisibilityPublic, "gh repo create --public makes a public repository", projectDir, "gh", "repo", "create")
	public := a.anySet("--public") || visibilityValue(a) == "public" || mentionsPublic(a.words)
	private := a.anySet("--private") || a.anySet("--internal") || visibilityValue(a) == "private" || visibilityValue(a) == "internal"
	switch {
	case public:
	case private:
		c.Op, c.Why = "", "gh repo create --private/--internal makes no public repository"
	default:
		c.Why = "gh repo create without --private or --internal may make a public repository (pass --private)"
	}
	return c
}

func ghRepoEdit(a args, dir string) Classification {
	if visibilityValue(a) == "public" || mentionsPublic(a.words) {
		return known(OpVisibilityPublic, "gh repo edit --visibility public makes the repository public", dir, "gh", "repo", "edit")
	}
	return nothing(dir, "gh repo edit without --visibility public keeps the visibility", "gh", "repo", "edit")
}

// visibilityValue is the lower-cased value of --visibility, if any.
func visibilityValue(a args) string {
	v, _ := a.value("--visibility")
	return strings.ToLower(strings.TrimSpace(v))
}

// mentionsPublic reports an option that asks for public visibility in any spelling
// gh might accept or guard cannot rule out: an option word containing "public"
// (--public, --visibility=PUBLIC, -public), or "public" right after a
// visibility option. Repository names that merely contain "public" are not options.
func mentionsPublic(words []string) bool {
	for i, w := range words {
		lw := strings.ToLower(w)
		if strings.HasPrefix(lw, "-") && strings.Contains(lw, "public") {
			return true
		}
		if strings.HasPrefix(lw, "-") && strings.Contains(lw, "visibility") && i+1 < len(words) && strings.Contains(strings.ToLower(words[i+1]), "public") {
			return true
		}
	}
	return false
}

// releaseAssets are the files of gh release create/upload's asset arguments
// (FILE#display label).
func releaseAssets(args []string) []string {
	out := make([]string, 0, len(args))
	for _, a := range args {
		f, _, _ := strings.Cut(a, "#")
		out = append(out, f)
	}
	return out
}
