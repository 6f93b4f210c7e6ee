//go:build !linux

package sandbox

import "errors"

// NamespaceArg is the namespace child's argument; only Linux starts one.
const NamespaceArg = "__guard-sandbox-namespace"

// InNamespace is Linux's: elsewhere a process started with NamespaceArg is a usage
// error.
func InNamespace() int { return 2 }

type exactChild struct{}

func startExact(Options) (*exactChild, error) {
	return nil, errors.New("sandbox: the exact sandbox needs Linux")
}

func (*exactChild) cancel() {}

func (*exactChild) run(Options, *ExactPlan, string, []string, []string, int) (int, string, error) {
	return 0, "", errors.New("sandbox: the exact sandbox needs Linux")
}
