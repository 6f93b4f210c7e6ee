package main

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/agnivade/levenshtein"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// suggestDistance is how far a mistyped word may be from a name to be suggested: two
// edits, cobra's own default for subcommands, so that commands, flags and values
// answer typos alike.
const suggestDistance = 2

// suggest returns the candidates a mistyped word was probably meant as, nearest first:
// those within suggestDistance edits (case ignored), or that start with the word.
func suggest(word string, candidates []string) []string {
	type near struct {
		name string
		d    int
	}
	var found []near
	lw := strings.ToLower(word)
	for _, c := range candidates {
		d := levenshtein.ComputeDistance(lw, strings.ToLower(c))
		if d <= suggestDistance || (len(lw) > 1 && strings.HasPrefix(strings.ToLower(c), lw)) {
			found = append(found, near{c, d})
		}
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].d < found[j].d })
	out := make([]string, len(found))
	for i, n := range found {
		out[i] = n.name
	}
	return out
}

// didYouMean is "; did you mean X?" (or "X or Y"), or "" without a suggestion.
func didYouMean(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return "; did you mean " + strings.Join(s, " or ") + "?"
}

// orList is "a, b or c".
func orList(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// subcommandArgs is the positional check of a command that has subcommands (guard,
// audit, hook, team, completion, ...): a word that names none of them is a usage error
// that suggests the nearest (cobra's SuggestionsFor) and lists the rest, where cobra
// would print the parent's help and exit 0 (completion tcsh) or say "unknown command"
// without a hint (hook pre-comit). Without a word, own (the command's own check, if
// any) decides.
func subcommandArgs(own cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			if own != nil {
				return own(cmd, args)
			}
			return nil
		}
		msg := fmt.Sprintf("unknown command %q", args[0])
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			msg += didYouMean(s)
		} else if cmd.HasParent() {
			msg += " (" + orList(subcommandNames(cmd)) + ")"
		}
		return usageError(cmd, errors.New(msg))
	}
}

// subcommandNames are the names of cmd's subcommands a user may type.
func subcommandNames(cmd *cobra.Command) []string {
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() && c.Name() != "help" {
			names = append(names, c.Name())
		}
	}
	return names
}

// checkSubcommands gives every command with subcommands subcommandArgs, and one that
// cannot run by itself (completion) a usage error naming its subcommands, instead of
// its help with exit 0.
func checkSubcommands(cmd *cobra.Command) {
	for _, c := range cmd.Commands() {
		checkSubcommands(c)
	}
	if !cmd.HasSubCommands() {
		return
	}
	// cobra sets the distance only on the root, when it suggests there itself.
	cmd.SuggestionsMinimumDistance = suggestDistance
	cmd.Args = subcommandArgs(cmd.Args)
	if !cmd.Runnable() {
		cmd.RunE = func(c *cobra.Command, _ []string) error {
			return usageError(c, fmt.Errorf("name a command: %s", orList(subcommandNames(c))))
		}
	}
}

// flagError is the root's flag error function: every flag error is a usage error (2),
// and an unknown long flag is answered with the command's nearest flags (lock --expire:
// did you mean --expires?).
func flagError(cmd *cobra.Command, err error) error {
	const unknown = "unknown flag: --"
	if msg := err.Error(); strings.HasPrefix(msg, unknown) {
		name := strings.TrimPrefix(msg, unknown)
		var names []string
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			if !f.Hidden {
				names = append(names, f.Name)
			}
		})
		if s := suggest(name, names); len(s) > 0 {
			for i := range s {
				s[i] = "--" + s[i]
			}
			err = fmt.Errorf("%w%s", err, didYouMean(s))
		}
	}
	return usageError(cmd, err)
}

// closedValue wraps a flag whose values are a closed list (--format, --hooks, --mode):
// a value outside it fails while the flags are parsed, naming the list and the nearest
// value, so that every command refuses it the same way and before doing anything.
type closedValue struct {
	pflag.Value
	allowed []string
	// list: the flag takes a comma-separated list (--hooks pre-commit,pre-push).
	list bool
}

// Set checks each value before the wrapped flag stores it.
func (v *closedValue) Set(s string) error {
	words := []string{s}
	if v.list {
		words = strings.Split(s, ",")
	}
	for _, w := range words {
		if err := checkValue(strings.TrimSpace(w), v.allowed); err != nil {
			return err
		}
	}
	return v.Value.Set(s)
}

// checkValue is nil when word is one of allowed, else the error that lists them and
// suggests the nearest.
func checkValue(word string, allowed []string) error {
	for _, a := range allowed {
		if word == a {
			return nil
		}
	}
	return fmt.Errorf("%q is not %s%s", word, orList(allowed), didYouMean(suggest(word, allowed)))
}

// closeValues wraps every flag named in closedFlags, and checks the first argument of
// the commands argValues names, throughout the tree.
func closeValues(root *cobra.Command) { closeTree(root, closedFlags(), argValues()) }

// closeTree is closeValues below one command, with the tables built once per tree.
func closeTree(cmd *cobra.Command, closed, argVals map[string][]string) {
	f := cmd.Flags()
	for name, values := range closed {
		if fl := f.Lookup(name); fl != nil {
			_, list := fl.Value.(pflag.SliceValue)
			fl.Value = &closedValue{Value: fl.Value, allowed: values, list: list}
		}
	}
	if values, ok := argVals[cmd.Name()]; ok && cmd.Args != nil {
		own := cmd.Args
		cmd.Args = func(c *cobra.Command, args []string) error {
			if err := own(c, args); err != nil {
				return err
			}
			if len(args) > 0 {
				if err := checkValue(args[0], values); err != nil {
					return usageError(c, err)
				}
			}
			return nil
		}
	}
	for _, c := range cmd.Commands() {
		closeTree(c, closed, argVals)
	}
}
