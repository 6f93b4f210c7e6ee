// Package lazyre holds regular expressions compiled on first use. guard runs as a
// git hook and an agent hook before every commit and tool call, where start-up time
// is most of the cost: compiling every pattern of the program at start-up took longer
// than a typical check, and most calls use none of a given package's patterns.
package lazyre

import (
	"regexp"
	"sync"
)

// Regexp is a regular expression compiled the first time it is used; a pattern
// that does not compile panics then, as regexp.MustCompile does (tests use each).
type Regexp struct {
	get func() *regexp.Regexp
}

// New returns the pattern src, not yet compiled.
func New(src string) *Regexp {
	return &Regexp{get: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(src) })}
}

// Regexp is the compiled expression.
func (l *Regexp) Regexp() *regexp.Regexp { return l.get() }

// MatchString is regexp.Regexp.MatchString.
func (l *Regexp) MatchString(s string) bool { return l.get().MatchString(s) }

// FindStringSubmatch is regexp.Regexp.FindStringSubmatch.
func (l *Regexp) FindStringSubmatch(s string) []string { return l.get().FindStringSubmatch(s) }

// FindStringSubmatchIndex is regexp.Regexp.FindStringSubmatchIndex.
func (l *Regexp) FindStringSubmatchIndex(s string) []int { return l.get().FindStringSubmatchIndex(s) }

// FindAllStringSubmatch is regexp.Regexp.FindAllStringSubmatch.
func (l *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return l.get().FindAllStringSubmatch(s, n)
}

// ReplaceAllStringFunc is regexp.Regexp.ReplaceAllStringFunc.
func (l *Regexp) ReplaceAllStringFunc(s string, f func(string) string) string {
	return l.get().ReplaceAllStringFunc(s, f)
}
