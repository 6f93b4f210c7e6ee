package gitrun

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// TreeFile is a file of a commit's tree, read from git.
type TreeFile struct {
	// Path is slash-separated, from the top level.
	Path string
	// Data is the content; nil, with Large set, for a blob larger than the bound the
	// caller gave (never read into memory).
	Data  []byte
	Large bool
}

// GoneFiles returns the files among paths (slash-separated, from the top level) that
// the tree of every commit of before holds and the tree of after does not: what a
// change from before (its parents: several for a merge) to after takes away, with
// the content the first of before has. After "" means the caller knows the paths are
// gone (the index's deletions). Only blobs count: a submodule or a folder of such a
// name is no file. It costs one `git cat-file --batch-check` for every question and
// one `git cat-file --batch` for the contents of the blobs no larger than max.
func GoneFiles(ctx context.Context, g Git, before []string, after string, paths []string, max int64) ([]TreeFile, error) {
	if len(before) == 0 || len(paths) == 0 {
		return nil, nil
	}
	revs := before
	if after != "" {
		revs = append(append([]string{}, before...), after)
	}
	var ask []string
	for _, p := range paths {
		if strings.ContainsAny(p, "\n\r") {
			// git cat-file would read it as two questions.
			return nil, fmt.Errorf("the path %q has a line break: guard cannot read it from git", p)
		}
		for _, r := range revs {
			ask = append(ask, r+":"+p)
		}
	}
	out, err := g.RunInput(ctx, []byte(strings.Join(ask, "\n")+"\n"), "cat-file", "--batch-check")
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(ask) {
		return nil, fmt.Errorf("git cat-file --batch-check: %d answers for %d questions", len(lines), len(ask))
	}
	var files []TreeFile
	var oids []string
	for i, p := range paths {
		answers := lines[i*len(revs) : (i+1)*len(revs)]
		if after != "" && !strings.HasSuffix(answers[len(before)], " missing") {
			continue // after still holds it (or holds something there)
		}
		held := true
		for _, a := range answers[:len(before)] {
			f := strings.Fields(a)
			held = held && len(f) == 3 && f[1] == "blob"
		}
		if !held {
			continue
		}
		f := strings.Fields(answers[0])
		size, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("git cat-file --batch-check: %q", answers[0])
		}
		if size > max {
			files = append(files, TreeFile{Path: p, Large: true})
			continue
		}
		files = append(files, TreeFile{Path: p})
		oids = append(oids, f[0])
	}
	if len(oids) == 0 {
		return files, nil
	}
	data, err := g.RunInput(ctx, []byte(strings.Join(oids, "\n")+"\n"), "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	br := bufio.NewReader(bytes.NewReader(data))
	n := 0
	for i := range files {
		if files[i].Large {
			continue
		}
		body, err := ReadBatchObject(br, oids[n], max)
		if err != nil {
			return nil, err
		}
		files[i].Data = body
		n++
	}
	return files, nil
}

// ReadBatchObject reads the next answer of `git cat-file --batch` from br, which must
// be object want, of at most max bytes; it returns the content.
func ReadBatchObject(br *bufio.Reader, want string, max int64) ([]byte, error) {
	header, err := br.ReadString('\n')
	if err != nil {
		return nil, fmt.Errorf("git cat-file --batch: %w", err)
	}
	f := strings.Fields(header)
	if len(f) != 3 || f[0] != want {
		return nil, fmt.Errorf("git cat-file --batch: unexpected answer %q for %s", strings.TrimSpace(header), want)
	}
	size, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil || size < 0 || size > max {
		return nil, fmt.Errorf("git cat-file --batch: bad size in %q", strings.TrimSpace(header))
	}
	body := make([]byte, size+1) // and the newline after the content
	if _, err := io.ReadFull(br, body); err != nil {
		return nil, fmt.Errorf("git cat-file --batch: reading %s: %w", want, err)
	}
	return body[:size], nil
}
