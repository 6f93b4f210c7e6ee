#!/usr/bin/env bash
# The etcd backend (issue 16): claim+release round trips per second against one local
# etcd (Debian's etcd-server, /usr/bin/etcd, or ETCD=...), against the same round trip
# on the lock files alone in the same run; and the added latency of `guard hook
# pre-commit` with the backend on, against the files-only hook in the same run.
# Figures are in bench/README.md, "## etcd backend".
set -euo pipefail
cd "$(dirname "$0")/.."
ETCD=${ETCD:-/usr/bin/etcd}
DIR=${ETCD_BENCH_DIR:-/tmp/guard-bench-etcd}
ROUNDS=${ROUNDS:-200}
[ -x "$ETCD" ] || { echo "no etcd server at $ETCD (apt-get install etcd-server)" >&2; exit 2; }
rm -rf "$DIR" && mkdir -p "$DIR/bin"
go build -o "$DIR/bin/guard" ./cmd/guard
exec python3 bench/etcd_bench.py "$DIR/bin/guard" "$ETCD" "$DIR" "$ROUNDS"
