package classify

import (
	"fmt"
	"strings"
	"sync"
)

// classifyBuiltin applies guard's own knowledge of publishing tools to words (the
// program first, wrappers already removed), failing closed on global options that
// guard's lists of valued options lack: when the tool reads as publishing nothing,
// the other readings of its options (see optionReadings) are tried, and the command
// publishes if one of them does.
//
// A form that asks for help (npm publish --help, gh release create --help) prints
// it and publishes nothing.
func classifyBuiltin(words []string, dir string) Classification {
	readings := optionReadings(words)
	c := classifyTool(readings[0], dir)
	if c.Known && c.Op == "" {
		for _, r := range readings[1:] {
			if alt := classifyTool(r, dir); alt.Op != "" {
				c = alt
				break
			}
		}
	}
	if c.Op != "" && asksHelp(words, helpFlags(programName(words[0]))...) {
		c.Op, c.DryRun, c.Projects = "", false, nil
		c.Why = strings.Join(c.Words, " ") + " --help prints help and publishes nothing"
	}
	return c
}

// tool is what guard knows of one publishing program: how to read its command line,
// and which flags make it print its help instead of running.
type tool struct {
	// classify reads the program's arguments (rest: wrappers removed, program name
	// prog) run in dir.
	classify func(prog string, rest []string, dir string) Classification
	// help are the flags that make the program print its help wherever they stand,
	// for the programs whose option parsers are known to do so (cobra, clap,
	// argparse, click, yargs, commander, meow, npm's own): helpAnywhere, or
	// helpLong where a subcommand gives -h another meaning (gh repo edit -h is
	// --homepage, docker -h is not help everywhere). Other programs have none: their
	// --help may be passed on as an argument (lein deploy --help), so it exempts
	// nothing (fail closed).
	help []string
}

// helpAnywhere and helpLong are the two sets of help flags a tool can have.
var (
	helpAnywhere = []string{"--help", "-h"}
	helpLong     = []string{"--help"}
)

// tools is guard's knowledge of publishing tools, keyed by program name: one table
// per family of tools, each in the family's file. It is built on first use, not at
// start: every hook call starts guard, and most never classify a command.
var tools = sync.OnceValue(func() map[string]tool {
	return toolTable(jsTools(), pythonTools(), cargoTools(), rubyTools(), dotnetTools(), jvmTools(), containerTools(), forgeTools(), dartTools(), hexTools(), appleTools(), conanTools(), haskellTools(), gitTools(), httpClientTools())
})

// toolTable joins the families' tables; a program in two families is a mistake
// that would make one of them dead, and stops guard (the tests build the table).
func toolTable(families ...map[string]tool) map[string]tool {
	all := map[string]tool{}
	for _, family := range families {
		for prog, t := range family {
			if _, dup := all[prog]; dup {
				panic("classify: " + prog + " is in two families of tools")
			}
			all[prog] = t
		}
	}
	return all
}

// helpFlags are the flags that make prog print its help instead of running (see
// tool.help).
func helpFlags(prog string) []string { return tools()[prog].help }

// classifyTool classifies one reading of a command's options.
func classifyTool(words []string, dir string) Classification {
	prog := programName(words[0])
	if t, ok := tools()[prog]; ok {
		return t.classify(prog, words[1:], dir)
	}
	return unknownProgram(prog, words[1:], dir)
}

// unknownProgram is the classification of a program guard knows nothing of.
func unknownProgram(prog string, rest []string, dir string) Classification {
	return Classification{Known: false, ProjectDir: dir, Why: fmt.Sprintf("guard does not know whether %q publishes anything", prog), Words: commandWords(append([]string{prog}, rest...))}
}

// withoutProg adapts a classifier that needs no program name (the tool has one).
func withoutProg(f func(rest []string, dir string) Classification) func(string, []string, string) Classification {
	return func(_ string, rest []string, dir string) Classification { return f(rest, dir) }
}

// uploads is the classifier of a tool whose publishing subcommands (subs) upload
// the files named after them (see uploadFiles).
func uploads(subs []string, valued ...string) func(string, []string, string) Classification {
	return func(prog string, rest []string, dir string) Classification {
		return uploadFiles(prog, rest, dir, subs, valued...)
	}
}

// subcommands is the classifier of a tool whose first positional word is the
// subcommand, ops mapping the publishing ones to their operation (see
// subcommandTool).
func subcommands(ops map[string]string, valued ...string) func(string, []string, string) Classification {
	return func(prog string, rest []string, dir string) Classification {
		return subcommandTool(prog, rest, dir, ops, valued...)
	}
}

// known builds a classification of a recognised command.
func known(op, why, dir string, words ...string) Classification {
	return Classification{Op: op, Known: true, ProjectDir: dir, Why: why, Words: words}
}

// nothing builds the classification of a recognised command that publishes nothing.
func nothing(dir, why string, words ...string) Classification {
	return Classification{Known: true, ProjectDir: dir, Why: why, Words: words}
}

// subcommandTool classifies a program whose first positional word is the subcommand
// and ops maps publishing subcommands to their operation.
func subcommandTool(prog string, rest []string, dir string, ops map[string]string, valued ...string) Classification {
	a := newArgs(rest, valued...)
	pos := a.positionals()
	if len(pos) > 0 {
		if op, ok := ops[pos[0]]; ok {
			c := known(op, fmt.Sprintf("%s %s uploads to a registry", prog, pos[0]), dir, prog, pos[0])
			if a.flag("--dry-run") {
				c.DryRun, c.Why = true, fmt.Sprintf("%s %s --dry-run uploads nothing", prog, pos[0])
			}
			c.ProjectDir = a.dirFlag(dir, "--directory", "--project", "-C")
			return c
		}
	}
	return otherSubcommand(dir, prog, pos)
}

// otherSubcommand classifies prog run with a subcommand (pos[0]; none when pos is
// empty) that publishes nothing.
func otherSubcommand(dir, prog string, pos []string) Classification {
	if len(pos) == 0 {
		return nothing(dir, prog+" without a subcommand publishes nothing", prog)
	}
	return nothing(dir, fmt.Sprintf("%s %s publishes nothing", prog, pos[0]), prog, pos[0])
}

// uploadFiles classifies a tool whose publishing subcommands (one of subs) upload
// the files named after them (twine upload dist/*, gem push x.gem, nuget push
// x.nupkg): the files' projects decide.
func uploadFiles(prog string, rest []string, dir string, subs []string, valued ...string) Classification {
	ops := make(map[string]string, len(subs))
	for _, s := range subs {
		ops[s] = OpRegistryUpload
	}
	c := subcommandTool(prog, rest, dir, ops, valued...)
	if c.Op == "" {
		return c
	}
	pos := newArgs(rest, valued...).positionals()
	return withArtifacts(c, dir, pos[1:], true)
}
