#!/usr/bin/env bash
# bench/scan.sh: time `guard scan` against `find ROOT -iname 'LOCK*.txt'` on a
# synthetic tree of 200,000 leaf directories (20 x 20 x 20 x 25, so every leaf sits at
# depth 4 = default_max_depth and the default depth reaches the whole tree) holding
# 300 lock files. The tree is built once in $BENCH_ROOT (default /tmp/guard-bench-tree)
# and reused. Prints each run, the median wall times, the ratio and guard's peak RSS.
#
#   bench/scan.sh            # 5 runs each
#   RUNS=9 bench/scan.sh
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=${BENCH_ROOT:-/tmp/guard-bench-tree}
RUNS=${RUNS:-5}
BIN=${BIN:-/tmp/guard-bench-bin}

. bench/tree.sh
dirs=$(find "$ROOT" -type d | wc -l)
locks=$(find "$ROOT" -iname 'LOCK*.txt' | wc -l)
echo "tree: $ROOT, $dirs directories, $locks lock files"

go build -o "$BIN" ./cmd/guard

# Wall seconds and peak RSS (KiB) of one run, via GNU time.
TIMES=$(mktemp)
trap 'rm -f "$TIMES"' EXIT
measure() {
	/usr/bin/time -o "$TIMES" -f '%e %M %U %S' "$@" >/dev/null 2>&1
	tail -n 1 "$TIMES"
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# Warm the dentry cache once for both.
find "$ROOT" -iname 'LOCK*.txt' >/dev/null
"$BIN" scan --all "$ROOT" >/dev/null

gw=() fw=() gc=() fc=() rss=0
for r in $(seq "$RUNS"); do
	read -r fs _ fu fsy < <(measure find "$ROOT" -iname 'LOCK*.txt')
	read -r gs gk gu gsy < <(measure "$BIN" scan --all "$ROOT")
	fw+=("$fs")
	gw+=("$gs")
	fc+=("$(awk -v a="$fu" -v b="$fsy" 'BEGIN {print a + b}')")
	gc+=("$(awk -v a="$gu" -v b="$gsy" 'BEGIN {print a + b}')")
	[ "$gk" -gt "$rss" ] && rss=$gk
	echo "run $r: find ${fs}s (cpu ${fc[-1]}s)  guard ${gs}s (cpu ${gc[-1]}s)  guard peak ${gk} KiB"
done
fm=$(printf '%s\n' "${fw[@]}" | median)
gm=$(printf '%s\n' "${gw[@]}" | median)
fcm=$(printf '%s\n' "${fc[@]}" | median)
gcm=$(printf '%s\n' "${gc[@]}" | median)
found=$("$BIN" scan --all --json "$ROOT" | grep -c '"path"')
echo "guard found $found locks (find: $locks)"
awk -v g="$gm" -v f="$fm" -v gc="$gcm" -v fc="$fcm" -v r="$rss" -v n="$(nproc)" 'BEGIN {
	printf "median wall: guard %.3fs, find %.3fs, ratio guard/find %.2f (%d CPUs)\n", g, f, (f > 0 ? g / f : 0), n
	printf "median cpu (user+sys): guard %.2fs, find %.2fs, ratio %.2f\n", gc, fc, (fc > 0 ? gc / fc : 0)
	printf "guard peak RSS: %.1f MB\n", r / 1024
}'
