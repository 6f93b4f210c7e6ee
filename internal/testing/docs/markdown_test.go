package docs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
)

// A mdFile is a Markdown file read once: its lines, and which of them are inside a
// fenced code block (a heading or a link there is text, not structure).
type mdFile struct {
	path    string
	lines   []string
	inFence []bool
}

func readMD(path string) (*mdFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseMD(path, string(data)), nil
}

func parseMD(path, text string) *mdFile {
	f := &mdFile{path: path, lines: strings.Split(strings.TrimSuffix(text, "\n"), "\n")}
	fence := ""
	for _, line := range f.lines {
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case fence == "" && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")):
			fence = trimmed[:3]
			f.inFence = append(f.inFence, true)
		case fence != "" && strings.HasPrefix(trimmed, fence):
			fence = ""
			f.inFence = append(f.inFence, true)
		default:
			f.inFence = append(f.inFence, fence != "")
		}
	}
	return f
}

// A heading is an ATX heading outside code: its level (the number of #) and text.
type heading struct {
	line  int
	level int
	text  string
}

var headingRE = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)

func (f *mdFile) headings() []heading {
	var out []heading
	for i, line := range f.lines {
		if f.inFence[i] {
			continue
		}
		if m := headingRE.FindStringSubmatch(line); m != nil {
			out = append(out, heading{line: i, level: len(m[1]), text: m[2]})
		}
	}
	return out
}

// anchors are the fragment names GitHub gives the headings of f.
func (f *mdFile) anchors() map[string]bool {
	seen := map[string]int{}
	out := map[string]bool{}
	for _, h := range f.headings() {
		slug := slugify(h.text)
		if n := seen[slug]; n > 0 {
			out[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	return out
}

var inlineLinkRE = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)

// slugify is GitHub's anchor for a heading: the text as shown (links reduced to their
// text), lower-cased, every character but letters, digits, spaces, '-' and '_' dropped,
// each space a '-'.
func slugify(text string) string {
	text = inlineLinkRE.ReplaceAllString(text, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteRune('-')
		}
	}
	return b.String()
}

var (
	codeSpanRE = regexp.MustCompile("`+[^`]*`+")
	linkRE     = regexp.MustCompile(`\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	refDefRE   = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$`)
	schemeRE   = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)
)

// A link is one link target of a file, with its line (1-based) for the message.
type link struct {
	line   int
	target string
}

// links are the link targets of f outside code blocks and code spans.
func (f *mdFile) links() []link {
	var out []link
	for i, line := range f.lines {
		if f.inFence[i] {
			continue
		}
		if m := refDefRE.FindStringSubmatch(line); m != nil {
			out = append(out, link{i + 1, m[1]})
			continue
		}
		line = codeSpanRE.ReplaceAllString(line, "")
		for _, m := range linkRE.FindAllStringSubmatch(line, -1) {
			out = append(out, link{i + 1, m[1]})
		}
	}
	return out
}

// brokenLinks checks every relative link of the files (paths under root): the file or
// folder it names must exist inside root, and a fragment must name a heading of the
// Markdown file it points into (or of the file itself, for "#x").
func brokenLinks(root string, files []string) []string {
	var problems []string
	cache := map[string]*mdFile{}
	load := func(path string) (*mdFile, error) {
		if f, ok := cache[path]; ok {
			return f, nil
		}
		f, err := readMD(path)
		if err == nil {
			cache[path] = f
		}
		return f, err
	}
	for _, name := range files {
		path := filepath.Join(root, name)
		f, err := load(path)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", name, err))
			continue
		}
		for _, l := range f.links() {
			if schemeRE.MatchString(l.target) {
				continue // http:, https:, mailto:: not this test's business
			}
			target, fragment, _ := strings.Cut(l.target, "#")
			dest := path
			if target != "" {
				if strings.HasPrefix(target, "/") {
					problems = append(problems, fmt.Sprintf("%s:%d: %s is absolute: write it relative to the file", name, l.line, l.target))
					continue
				}
				dest = filepath.Join(filepath.Dir(path), filepath.FromSlash(target))
				if rel, err := filepath.Rel(root, dest); err != nil || strings.HasPrefix(rel, "..") {
					problems = append(problems, fmt.Sprintf("%s:%d: %s leads out of the repository", name, l.line, l.target))
					continue
				}
				if _, err := os.Stat(dest); err != nil {
					problems = append(problems, fmt.Sprintf("%s:%d: %s: no such file", name, l.line, l.target))
					continue
				}
			}
			if fragment == "" || !strings.HasSuffix(dest, ".md") {
				continue
			}
			g, err := load(dest)
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s:%d: %s: %v", name, l.line, l.target, err))
				continue
			}
			if !g.anchors()[fragment] {
				problems = append(problems, fmt.Sprintf("%s:%d: %s: no heading #%s in %s", name, l.line, l.target, fragment, filepath.Base(dest)))
			}
		}
	}
	return problems
}

// section is the text below the first heading whose text is title, up to the next
// heading of any level: its own text, not its subsections' ("" and false when there
// is no such heading).
func (f *mdFile) section(title string) (string, bool) {
	hs := f.headings()
	for i, h := range hs {
		if h.text != title {
			continue
		}
		end := len(f.lines)
		for _, next := range hs[i+1:] {
			end = next.line
			break
		}
		return strings.Join(f.lines[h.line+1:end], "\n"), true
	}
	return "", false
}

// fencedLines are the lines of the code blocks of text, trimmed.
func (f *mdFile) fencedLines(from, to int) []string {
	var out []string
	for i := from; i < to && i < len(f.lines); i++ {
		if f.inFence[i] {
			out = append(out, strings.TrimSpace(f.lines[i]))
		}
	}
	return out
}
