package agent

import (
	"strings"
	"testing"
)

// BenchmarkAnalyzeBash1MiB reads commands of 1 MiB (bench/shell.sh reports them): a
// here-document writing a big file, one long quoted argument, and a dense script of
// short commands. CONTRACT and issue 11: reading one stays under 100 ms; a command
// that would take longer is cut off by parseBudget and treated as unreadable.
func BenchmarkAnalyzeBash1MiB(b *testing.B) {
	const size = 1 << 20
	line := "if [ -f \"$x\" ]; then grep -n foo bar.txt | sort | uniq > out/$i.txt; fi\n"
	shapes := []struct{ name, command string }{
		{"heredoc", "cat > out.txt <<'EOF'\n" + strings.Repeat("some text of a generated file\n", (size-30)/30) + "EOF\n"},
		{"quoted", "printf '%s' '" + strings.Repeat("x", size-30) + "' > out.txt"},
		{"script", strings.Repeat(line, size/len(line))},
	}
	dir := b.TempDir()
	for _, s := range shapes {
		b.Run(s.name, func(b *testing.B) {
			b.SetBytes(int64(len(s.command)))
			unread := 0
			start := cpuTime()
			for b.Loop() {
				if len(AnalyzeBash(s.command, dir, "/h", nil).Unjudged) > 0 {
					unread++
				}
			}
			b.ReportMetric(float64((cpuTime()-start).Microseconds())/1000/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(unread)/float64(b.N), "unread/op")
		})
	}
}
