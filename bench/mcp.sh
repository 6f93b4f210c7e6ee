#!/usr/bin/env bash
# guard mcp against guard as a process, in the same run: one `check` tool call's round
# trip through a running `guard mcp` (an MCP client on its stdin/stdout, after
# initialize) against `guard check --json PATH` started as a process each time, on the
# same path of a repository with one lock. Also what linking the MCP SDK costs every
# other command's start-up: `guard version` and `guard check` of the release build
# against one built with -tags nomcp (guard mcp and the SDK left out), alternating.
# Figures in bench/README.md, "## mcp".
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_DIR=${BENCH_DIR:-/tmp/guard-bench-mcp}
RUNS=${RUNS:-200}
rm -rf "$BENCH_DIR" && mkdir -p "$BENCH_DIR/bin" "$BENCH_DIR/repo"
CGO_ENABLED=0 go build -o "$BENCH_DIR/bin/guard" ./cmd/guard
CGO_ENABLED=0 go build -tags nomcp -o "$BENCH_DIR/bin/guard-nomcp" ./cmd/guard
if go version -m "$BENCH_DIR/bin/guard-nomcp" | grep -q modelcontextprotocol; then
  echo "the nomcp build still links the MCP SDK" >&2
  exit 1
fi
git -C "$BENCH_DIR/repo" init -q
mkdir -p "$BENCH_DIR/repo/locked" "$BENCH_DIR/repo/src"
printf 'owner: alice\nexpires_after: 100000d\npurpose: bench\n' > "$BENCH_DIR/repo/locked/LOCK.txt"
echo x > "$BENCH_DIR/repo/src/a.go"
exec python3 bench/mcp_bench.py "$BENCH_DIR" "$RUNS"
