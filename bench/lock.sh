#!/usr/bin/env bash
# Times `guard lock`, `guard renew` and `guard unlock` against `guard version` in the
# same run (interleaved rounds, medians), and the in-process cost of lockcore.Acquire.
# Figures are in bench/README.md, "## lock".
set -euo pipefail
cd "$(dirname "$0")/.."
LOCK_BENCH_DIR=${LOCK_BENCH_DIR:-/tmp/guard-bench-lock}
RUNS=${RUNS:-40}
mkdir -p "$LOCK_BENCH_DIR/bin" "$LOCK_BENCH_DIR/area"
go build -o "$LOCK_BENCH_DIR/bin/guard" ./cmd/guard
python3 - "$LOCK_BENCH_DIR/bin/guard" "$LOCK_BENCH_DIR/area" "$RUNS" <<'PY'
import os, statistics, subprocess, sys, time
guard, area, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
env = dict(os.environ, GUARD_OWNER="bench", GUARD_HOST="benchhost", HOME=area)
cases = [("guard version", ["version"]), ("guard lock (create)", ["lock", area]),
         ("guard lock (own lock: renew in place)", ["lock", area]),
         ("guard renew", ["renew", area]), ("guard unlock", ["unlock", area])]
times = {name: [] for name, _ in cases}
for _ in range(runs):
    for name, args in cases:
        t = time.perf_counter()
        subprocess.run([guard] + args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times[name].append(time.perf_counter() - t)
base = statistics.median(times["guard version"])
print("| case | median | vs `guard version` |\n|---|---|---|")
for name, _ in cases:
    m = statistics.median(times[name])
    print("| %s | %.2f ms | %.2fx |" % (name, m * 1000, m / base))
PY
go test ./lockcore -run XXX -bench 'Acquire|Baseline' -benchtime 200x
