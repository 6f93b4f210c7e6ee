package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/itchyny/gojq"
	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/guard"
)

// addJQFlags gives every command that takes --json a --jq EXPR flag, as gh does: the
// command's JSON goes through the jq expression (gojq) and each result is printed on a
// line of its own, a string as its text and anything else as compact JSON. --jq implies
// --json. The expression is compiled before the command runs, so a bad one is a usage
// error (2) that changed nothing. Nothing of gojq runs without --jq.
func addJQFlags(cmd *cobra.Command, env *guard.Env) {
	for _, sub := range cmd.Commands() {
		addJQFlags(sub, env)
	}
	// team's --json is a persistent flag of team, inherited by its actions.
	hasJSON := cmd.Flags().Lookup("json") != nil || cmd.InheritedFlags().Lookup("json") != nil
	if !hasJSON || cmd.Flags().Lookup("jq") != nil || cmd.RunE == nil {
		return
	}
	var expr string
	cmd.Flags().StringVar(&expr, "jq", "", "filter the JSON output with a jq expression (implies --json; see 'guard help formatting')")
	run := cmd.RunE
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if !c.Flags().Changed("jq") {
			return run(c, args)
		}
		code, err := compileJQ(expr)
		if err != nil {
			return usageError(c, fmt.Errorf("--jq %q: %w", expr, err))
		}
		if err := c.Flags().Set("json", "true"); err != nil {
			return err
		}
		out := env.Stdout
		f := newJQFilter(code, out)
		env.Stdout = f
		runErr := run(c, args)
		env.Stdout = out
		jqErr := f.Close()
		if jqErr == nil {
			return runErr
		}
		if runErr == nil {
			return guard.Fail(guard.BadInput, "--jq %q: %w", expr, jqErr)
		}
		// The command's own answer (a refusal, say) is the exit code that matters.
		fmt.Fprintf(env.Stderr, "guard: --jq %q: %v\n", expr, jqErr)
		return runErr
	}
}

func compileJQ(expr string) (*gojq.Code, error) {
	q, err := gojq.Parse(expr)
	if err != nil {
		return nil, err
	}
	return gojq.Compile(q)
}

// jqFilter is the stdout a command writes its JSON to under --jq: a pipe whose reader
// decodes one JSON value after another (one document, or watch's stream of events, each
// filtered as it arrives) and writes the filter's results to out.
type jqFilter struct {
	pw   *io.PipeWriter
	wg   sync.WaitGroup
	err  error
	once sync.Once
}

func newJQFilter(code *gojq.Code, out io.Writer) *jqFilter {
	pr, pw := io.Pipe()
	f := &jqFilter{pw: pw}
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		dec := json.NewDecoder(pr)
		dec.UseNumber()
		for {
			var v any
			err := dec.Decode(&v)
			if errors.Is(err, io.EOF) {
				return
			}
			if err == nil {
				err = runJQ(code, normaliseNumbers(v), out)
			}
			if err != nil {
				f.err = err
				// Drain the rest so the command's writes never block.
				_, _ = io.Copy(io.Discard, pr)
				return
			}
		}
	}()
	return f
}

// Write hands the command's output to the decoder.
func (f *jqFilter) Write(p []byte) (int, error) { return f.pw.Write(p) }

// Close ends the input and waits for the last results; it returns the first decoding
// or filter error.
func (f *jqFilter) Close() error {
	f.once.Do(func() {
		_ = f.pw.Close()
		f.wg.Wait()
	})
	return f.err
}

func runJQ(code *gojq.Code, v any, out io.Writer) error {
	iter := code.Run(v)
	for {
		r, ok := iter.Next()
		if !ok {
			return nil
		}
		if err, isErr := r.(error); isErr {
			var halt *gojq.HaltError
			if errors.As(err, &halt) && halt.Value() == nil {
				return nil
			}
			return err
		}
		if s, isString := r.(string); isString {
			if _, err := fmt.Fprintln(out, s); err != nil {
				return err
			}
			continue
		}
		b, err := gojq.Marshal(r)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(out, "%s\n", b); err != nil {
			return err
		}
	}
}

// normaliseNumbers turns json.Number into what gojq computes with: an int where the
// number is one (fences are Unix microseconds, beyond float64's exact integers), else
// a float64.
func normaliseNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return int(i)
		}
		f, _ := x.Float64()
		return f
	case []any:
		for i := range x {
			x[i] = normaliseNumbers(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = normaliseNumbers(x[k])
		}
	}
	return v
}
