package hooks

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/guardlocks/guard/internal/gitrun"
)

// objects is what this repository has of the objects a push names.
type objects struct {
	// exists: the object is in this repository, of any type.
	exists map[string]bool
	// commit: the object is, or peels to, a commit (an annotated tag of a commit
	// counts: pushing it publishes that commit's history).
	commit map[string]bool
}

// lookObjects asks, with one `git cat-file --batch-check`, which of the given object
// names this repository has and which peel to a commit. git answers one line per
// input line, in order; the answers are keyed by the names asked about.
func lookObjects(ctx context.Context, g gitrun.Git, shas []string) (objects, error) {
	have := objects{exists: map[string]bool{}, commit: map[string]bool{}}
	if len(shas) == 0 {
		return have, nil
	}
	var in bytes.Buffer
	for _, s := range shas {
		fmt.Fprintf(&in, "%s\n%s^{commit}\n", s, s)
	}
	out, err := g.RunInput(ctx, in.Bytes(), "cat-file", "--batch-check")
	if err != nil {
		return objects{}, err
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != 2*len(shas) {
		return objects{}, fmt.Errorf("git cat-file --batch-check: %d answers for %d questions", len(lines), 2*len(shas))
	}
	for i, s := range shas {
		if f := strings.Fields(lines[2*i]); len(f) == 3 {
			have.exists[s] = true
		}
		if f := strings.Fields(lines[2*i+1]); len(f) == 3 && f[1] == "commit" {
			have.commit[s] = true
		}
	}
	return have, nil
}
