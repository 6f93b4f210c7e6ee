package mcp

import (
	"context"
	"io"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/guardlocks/guard/guard"
)

// Options are the inputs of `guard mcp`.
type Options struct {
	Env   *guard.Env
	Owner string
	Host  string
}

// Run serves MCP on the Env's stdin and stdout until the client closes stdin.
func Run(ctx context.Context, o Options) error {
	s := sdk.NewServer(&sdk.Implementation{Name: "guard", Version: "dev"}, nil)
	t := &sdk.IOTransport{Reader: io.NopCloser(o.Env.Stdin), Writer: nopWriteCloser{o.Env.Stdout}}
	return s.Run(ctx, t)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
