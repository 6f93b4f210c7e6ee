package classify

import "testing"

// BenchmarkClassify measures the classifier on a mix of command lines, as the agent
// hook runs it for every simple command of every Bash call.
func BenchmarkClassify(b *testing.B) {
	lines := [][]string{
		splitTestCommand("npm publish --access public ./pkg"),
		splitTestCommand("gh repo edit o/r --visibility public --accept-visibility-change-consequences"),
		splitTestCommand("env NODE_AUTH_TOKEN=x npx --yes semantic-release --dry-run"),
		splitTestCommand("gh api -X PATCH repos/o/r -f visibility=public"),
		splitTestCommand("go test ./..."),
		splitTestCommand("ls -la"),
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := Classify(lines[i%len(lines)], "/w", nil); err != nil {
			b.Fatal(err)
		}
	}
}
