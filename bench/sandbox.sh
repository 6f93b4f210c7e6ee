#!/usr/bin/env bash
# Times `guard sandbox -- /bin/true` in a project of 10,110 folders (10 x 10 x 100
# leaves, one file each) with 100 locks of another owner, one per middle folder (so that
# about 10,000 Landlock rules or 200 mounts are needed), in the exact sandbox (user and
# mount namespaces) and under Landlock alone (GUARD_SANDBOX_NAMESPACES=0), against
# `guard version` and `guard scan` of the same tree; and in a small project (one locked
# subfolder, a PRIVATE.txt) against `guard version` and /bin/true; all interleaved in
# the same run. Then the Go benchmarks (sandbox.BenchmarkRuleset: plan + kernel ruleset;
# BenchmarkAreasAndRuleset: with the policy's walk; BenchmarkAreasAndExactPlan: the walk
# and the mounts' plan). Figures are in bench/README.md, "## sandbox".
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${SANDBOX_BENCH_DIR:-/tmp/guard-bench-sandbox}
RUNS=${RUNS:-20}
mkdir -p "$DIR/bin"
CGO_ENABLED=0 go build -o "$DIR/bin/guard" ./cmd/guard
TREE="$DIR/tree"
if [ ! -f "$TREE/.built" ]; then
	rm -rf "$TREE"
	python3 - "$TREE" <<'PY'
import os, sys
root = sys.argv[1]
for i in range(10):
    for j in range(10):
        for k in range(100):
            leaf = os.path.join(root, f"a{i}", f"b{j}", f"c{k}")
            os.makedirs(leaf)
            open(os.path.join(leaf, "f.txt"), "w").close()
            if k == 0:
                with open(os.path.join(leaf, "LOCK.txt"), "w") as f:
                    f.write("owner: alice\ncreated: 2099-01-01T00:00:00\n")
open(os.path.join(root, ".built"), "w").close()
PY
fi
SMALL="$DIR/small"
if [ ! -f "$SMALL/.built" ]; then
	rm -rf "$SMALL"
	mkdir -p "$SMALL/.git" "$SMALL/src/locked" "$SMALL/docs"
	printf 'owner: alice\ncreated: 2099-01-01T00:00:00\n' >"$SMALL/src/locked/LOCK.txt"
	echo 'not yet' >"$SMALL/PRIVATE.txt"
	touch "$SMALL/src/a.go" "$SMALL/docs/x.md" "$SMALL/.built"
fi
python3 - "$DIR/bin/guard" "$TREE" "$RUNS" "$SMALL" <<'PY'
import os, statistics, subprocess, sys, time
guard, tree, runs, small = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
env = {"PATH": "/usr/bin:/bin", "HOME": tree, "GUARD_OWNER": "bob", "GUARD_HOST": "box1", "NO_COLOR": "1"}
landlock = dict(env, GUARD_SANDBOX_NAMESPACES="0")
cases = {
    "guard version": ([guard, "version"], tree, env),
    "guard scan --all TREE": ([guard, "scan", "--all", tree], tree, env),
    "guard sandbox -- /bin/true": ([guard, "sandbox", "--", "/bin/true"], tree, env),
    "guard sandbox -- /bin/true, Landlock alone": ([guard, "sandbox", "--", "/bin/true"], tree, landlock),
    "small project: /bin/true": (["/bin/true"], small, env),
    "small project: guard sandbox -- /bin/true": ([guard, "sandbox", "--", "/bin/true"], small, env),
    "small project: the same, Landlock alone": ([guard, "sandbox", "--", "/bin/true"], small, landlock),
}
times = {k: [] for k in cases}
for _ in range(runs + 1):  # the first round warms the caches and is dropped
    for name, (argv, cwd, e) in cases.items():
        t = time.perf_counter()
        subprocess.run(argv, cwd=cwd, env=e, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times[name].append(time.perf_counter() - t)
base = statistics.median(times["guard version"][1:])
print(f"load average {os.getloadavg()[0]:.1f}, {runs} rounds")
base_min = min(times["guard version"][1:])
print("| case | median | min | vs guard version (medians) | (minimums) |")
print("|---|---|---|---|---|")
for name, ts in times.items():
    ts = ts[1:]
    print(f"| `{name}` | {statistics.median(ts)*1000:.1f} ms | {min(ts)*1000:.1f} ms | {statistics.median(ts)/base:.2f}x | {min(ts)/base_min:.2f}x |")
PY
go test ./sandbox -run XXX -bench . -benchtime "${RUNS}x" -count 3
