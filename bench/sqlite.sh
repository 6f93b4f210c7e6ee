#!/usr/bin/env bash
# What linking SQLite (the history, modernc.org/sqlite) into guard costs the start-up of
# a hook: `guard hook pre-commit` of an allowed commit (20 staged files, one lock in an
# unrelated folder, so nothing is recorded) timed with the release build and with one
# built with -tags nohistory (history, watch and serve left out, and with them SQLite),
# alternating in the same run; `guard version` the same way as the bare start-up. Also
# the package inits GODEBUG=inittrace reports for modernc.org. Figures in
# bench/README.md, "## sqlite".
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_DIR=${BENCH_DIR:-/tmp/guard-bench-sqlite}
RUNS=${RUNS:-200}
mkdir -p "$BENCH_DIR/bin"
CGO_ENABLED=0 go build -o "$BENCH_DIR/bin/guard" ./cmd/guard
CGO_ENABLED=0 go build -tags nohistory -o "$BENCH_DIR/bin/guard-nohistory" ./cmd/guard
if go version -m "$BENCH_DIR/bin/guard-nohistory" | grep -q modernc.org/sqlite; then
  echo "the nohistory build still links SQLite" >&2
  exit 1
fi
exec python3 bench/sqlite_bench.py "$BENCH_DIR" "$RUNS"
