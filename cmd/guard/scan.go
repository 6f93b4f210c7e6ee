package main

import (
	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/command"
	"github.com/guardlocks/guard/guard"
)

func newScanCmd(env *guard.Env) *cobra.Command {
	o := command.ScanOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "scan [ROOT...]",
		Short: "List the active locks under the roots",
		Long: `List the active LOCK*.txt locks under the roots, sorted by path.

Roots are the ROOT arguments, else the roots of the roots file (--roots-file, else
roots_file in .guard.toml), else the current directory. Each root is walked to
default_max_depth (4; shallow roots to shallow_depth, 2) unless --max-depth is given.
--all adds expired locks; --write-cache writes LOCK-CACHE.md as lock_roots.json says.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Roots = args
			return command.RunScan(o)
		},
	}
	addRootsFlags(cmd, &o.RootsInput)
	cmd.Flags().BoolVar(&o.All, "all", false, "also list expired locks")
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print a JSON array of lock objects")
	cmd.Flags().BoolVar(&o.WriteCache, "write-cache", false, "write LOCK-CACHE.md (the caches of the roots file)")
	return cmd
}

// addRootsFlags adds the flags that say where to look (scan, prune).
func addRootsFlags(cmd *cobra.Command, in *command.RootsInput) {
	cmd.Flags().StringVar(&in.RootsFile, "roots-file", "", "lock_roots.json to read roots, depths and skip_dirs from")
	cmd.Flags().IntVar(&in.MaxDepth, "max-depth", 0, "walk every root this deep (0: the roots file's depths, default 4)")
}
