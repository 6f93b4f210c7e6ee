//go:build ignore

// build makes guard's npm packages from goreleaser's dist folder (see package npm):
//
//	go run ./packaging/npm/build.go [DIST [OUT]]   # default: dist npm-packages
//
// and prints each package's folder, in publishing order, one a line.
package main

import (
	"fmt"
	"os"

	"github.com/guardlocks/guard/packaging/npm"
)

func main() {
	dist, out := "dist", "npm-packages"
	if len(os.Args) > 1 {
		dist = os.Args[1]
	}
	if len(os.Args) > 2 {
		out = os.Args[2]
	}
	dirs, err := npm.Build(npm.Options{Dist: dist, Out: out, License: "LICENSE"})
	if err != nil {
		fmt.Fprintln(os.Stderr, "npm packages:", err)
		os.Exit(1)
	}
	for _, d := range dirs {
		fmt.Println(d)
	}
}
