#!/usr/bin/env bash
# Times guard's git hooks against git itself on a synthetic repository of 100,000
# tracked files (built once under $BENCH_DIR, default /tmp/guard-bench-hooks, and
# reused): `guard hook pre-commit` with 20 staged files spread over lock-holding
# folders, and with all 100,000 files staged at once on an unborn branch (an initial
# import, in $BENCH_DIR/import), each vs `git diff --cached --name-only -z` on the same
# index, and a pre-push of a 1,000-commit range vs `git log --name-only --format=
# A..B`, all in the same run, plus go-git's index diff (GOGIT=0 leaves it out). Figures
# and the decision are in bench/README.md, "## hooks".
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_DIR=${BENCH_DIR:-/tmp/guard-bench-hooks}
RUNS=${RUNS:-15}
mkdir -p "$BENCH_DIR/bin"
# Built as releases are (.goreleaser.yaml: CGO_ENABLED=0): a static binary starts faster.
CGO_ENABLED=0 go build -o "$BENCH_DIR/bin/guard" ./cmd/guard
go build -o "$BENCH_DIR/bin/hooksgogit" ./bench/hooksgogit
exec python3 bench/hooks_bench.py "$BENCH_DIR" "$RUNS"
