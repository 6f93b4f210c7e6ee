#!/usr/bin/env bash
# Times `guard agent-hook claude` against `guard version` in the same run, on a
# repository of 100,000 files: the hooks bench repository ($BENCH_DIR/repo, default
# /tmp/guard-bench-hooks, built by bench/hooks.sh) when it is there, else a plain tree
# of 1,000 folders x 100 files built once under $AGENT_BENCH_DIR. Figures are in
# bench/README.md, "## agent-hook".
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_DIR=${BENCH_DIR:-/tmp/guard-bench-hooks}
AGENT_BENCH_DIR=${AGENT_BENCH_DIR:-/tmp/guard-bench-agent}
RUNS=${RUNS:-40}
mkdir -p "$AGENT_BENCH_DIR/bin"
go build -o "$AGENT_BENCH_DIR/bin/guard" ./cmd/guard
REPO="$BENCH_DIR/repo"
if [ ! -d "$REPO/.git" ]; then
	REPO="$AGENT_BENCH_DIR/repo"
fi
exec python3 bench/agent_bench.py "$AGENT_BENCH_DIR/bin/guard" "$REPO" "$RUNS"
