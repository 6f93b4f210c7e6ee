package agent

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readCorpus reads testdata/agent-corpus.txt: one command a line, ␤ for a newline,
// # for comments.
func readCorpus(t *testing.T) []string {
	f, err := os.Open(filepath.Join("..", "testdata", "agent-corpus.txt"))
	require.NoError(t, err)
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, strings.ReplaceAll(line, "␤", "\n"))
	}
	require.NoError(t, sc.Err())
	return out
}

// TestOrdinaryCommandsAreNotAsked (issue 11, must hold): on a corpus of ordinary agent
// commands in a tree with one unrelated lock, the default settings ask or deny none of
// them. The rate under [agent] strict is reported (bench/corpus.sh prints both).
func TestOrdinaryCommandsAreNotAsked(t *testing.T) {
	corpus := readCorpus(t)
	require.GreaterOrEqual(t, len(corpus), 500)
	repo := gatesTree(t)
	refused, strictAsked := 0, 0
	for _, command := range corpus {
		v := decideBash(t, repo, command, false)
		if !assert.Equal(t, None, v.Decision, "%q: %s", command, v.Reason) {
			refused++
		}
		if decideBash(t, repo, command, true).Decision != None {
			strictAsked++
		}
	}
	t.Logf("corpus: %d commands; default: %d asked or denied (%.1f%%); strict: %d asked or denied (%.1f%%)",
		len(corpus), refused, 100*float64(refused)/float64(len(corpus)), strictAsked, 100*float64(strictAsked)/float64(len(corpus)))
	assert.Zero(t, refused)
}
