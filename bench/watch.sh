#!/usr/bin/env bash
# bench/watch.sh: `guard watch` on the 208,421-folder tree of bench/tree.sh (200,000
# leaves at depth 4): the time to the end of its initial scan against `find ROOT -type d`
# in the same run, its CPU while idle (after the initial scan, over IDLE seconds, which
# include the 60 s rescans), its peak RSS, and the latency of SAMPLES lock files created
# (and then removed) in random leaves until the event is printed. Prints the load
# average at start and end. Figures in bench/README.md, "## watch".
#
#   bench/watch.sh                     # IDLE=150 SAMPLES=20
#   WATCHES=524288 bench/watch.sh      # as root: raise fs.inotify.max_user_watches for
#                                      # the run (restored after), so every folder is watched
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=${BENCH_ROOT:-/tmp/guard-bench-tree}
BIN=${BIN:-/tmp/guard-bench-watch-bin}
IDLE=${IDLE:-150}
SAMPLES=${SAMPLES:-20}
. bench/tree.sh
CGO_ENABLED=0 go build -o "$BIN" ./cmd/guard
LIMIT=/proc/sys/fs/inotify/max_user_watches
OLD=$(cat "$LIMIT")
if [ -n "${WATCHES:-}" ]; then
	echo "$WATCHES" >"$LIMIT"
	trap 'echo "$OLD" >"$LIMIT"' EXIT
fi
echo "fs.inotify.max_user_watches: $(cat "$LIMIT")"
python3 bench/watch_bench.py "$BIN" "$ROOT" "$IDLE" "$SAMPLES"
