// Command hooksgogit lists the staged paths of a repository (the index against
// HEAD's tree) with go-git instead of the git binary. bench/hooks.sh times it against
// `git diff --cached --name-only` to decide which one guard's pre-commit hook uses.
package main

import (
	"fmt"
	"os"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

func main() {
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "hooksgogit:", err)
		os.Exit(2)
	}
}

func run(dir string) error {
	repo, err := git.PlainOpen(dir)
	if err != nil {
		return err
	}
	idx, err := repo.Storer.Index()
	if err != nil {
		return err
	}
	head, err := repo.Head()
	if err != nil {
		return err
	}
	commit, err := repo.CommitObject(head.Hash())
	if err != nil {
		return err
	}
	tree, err := commit.Tree()
	if err != nil {
		return err
	}
	inTree := map[string]plumbing.Hash{}
	if err := tree.Files().ForEach(func(f *object.File) error {
		inTree[f.Name] = f.Hash
		return nil
	}); err != nil {
		return err
	}
	for _, e := range idx.Entries {
		if h, ok := inTree[e.Name]; !ok || h != e.Hash {
			fmt.Println(e.Name)
		}
		delete(inTree, e.Name)
	}
	for name := range inTree {
		fmt.Println(name)
	}
	return nil
}
