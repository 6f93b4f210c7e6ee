#!/usr/bin/env bash
# Release-to-claim latency of `guard lock --wait` for 1 and 10 waiters, against the
# same hand-off done with flock(1) in the same run. Figures are in bench/README.md,
# "## wait".
set -euo pipefail
cd "$(dirname "$0")/.."
WAIT_BENCH_DIR=${WAIT_BENCH_DIR:-/tmp/guard-bench-wait}
ROUNDS=${ROUNDS:-20}
command -v flock >/dev/null || { echo "flock(1) is not installed (util-linux): no baseline" >&2; exit 2; }
rm -rf "$WAIT_BENCH_DIR" && mkdir -p "$WAIT_BENCH_DIR/bin"
go build -o "$WAIT_BENCH_DIR/bin/guard" ./cmd/guard
exec python3 bench/wait_bench.py "$WAIT_BENCH_DIR/bin/guard" "$WAIT_BENCH_DIR" "$ROUNDS"
