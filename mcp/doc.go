// Package mcp is `guard mcp` (CONTRACT.md section 12): a Model Context Protocol server
// on stdin/stdout whose tools are guard's own commands (status, check, lock, renew,
// unlock, wait, history), judged by the same policy and returning the same JSON, and
// whose resource guard://locks lists the project's active locks. It adds no rule of
// its own: every tool calls the run function of the CLI command it stands for.
package mcp
