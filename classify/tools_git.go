package classify

import (
	"fmt"
	"strings"
)

// gitTools is git itself, whose publishing (pushes) the git hooks guard.
func gitTools() map[string]tool {
	return map[string]tool{
		"git": {withoutProg(classifyGit), nil},
	}
}

// classifyGit follows git -C for the project directory; git itself publishes
// through pushes, which the pre-push hook guards, so it is known to publish nothing
// here (a [publish.commands] entry such as "git push" can say otherwise).
func classifyGit(rest []string, dir string) Classification {
	for len(rest) > 0 {
		switch w := rest[0]; {
		case w == "-C" && len(rest) > 1:
			dir = Resolve(dir, rest[1])
			rest = rest[2:]
		case (w == "-c" || w == "--git-dir" || w == "--work-tree" || w == "--namespace") && len(rest) > 1:
			if w == "--work-tree" {
				dir = Resolve(dir, rest[1])
			}
			rest = rest[2:]
		case strings.HasPrefix(w, "--work-tree="):
			dir = Resolve(dir, strings.TrimPrefix(w, "--work-tree="))
			rest = rest[1:]
		case strings.HasPrefix(w, "-"):
			rest = rest[1:]
		default:
			return nothing(dir, fmt.Sprintf("git %s is guarded by the git hooks, not the publish wrapper", w), "git", w)
		}
	}
	return nothing(dir, "git without a subcommand publishes nothing", "git")
}
