#!/usr/bin/env bash
# Times `guard sandbox -- /bin/true` in a project of 10,110 folders (10 x 10 x 100
# leaves, one file each) with 100 locks of another owner, one per middle folder (so that
# about 10,000 rules are needed), against `guard version` and `guard scan` of the same
# tree, interleaved in the same run; then the Go benchmarks of the ruleset alone
# (sandbox.BenchmarkRuleset: plan + kernel ruleset; BenchmarkAreasAndRuleset: with the
# policy's walk). Figures are in bench/README.md, "## sandbox".
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
python3 - "$DIR/bin/guard" "$TREE" "$RUNS" <<'PY'
import os, statistics, subprocess, sys, time
guard, tree, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
env = {"PATH": "/usr/bin:/bin", "HOME": tree, "GUARD_OWNER": "bob", "GUARD_HOST": "box1", "NO_COLOR": "1"}
cases = {
    "guard version": [guard, "version"],
    "guard scan --all TREE": [guard, "scan", "--all", tree],
    "guard sandbox -- /bin/true": [guard, "sandbox", "--", "/bin/true"],
}
times = {k: [] for k in cases}
for _ in range(runs + 1):  # the first round warms the caches and is dropped
    for name, argv in cases.items():
        t = time.perf_counter()
        subprocess.run(argv, cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times[name].append(time.perf_counter() - t)
base = statistics.median(times["guard version"][1:])
print(f"load average {os.getloadavg()[0]:.1f}, {runs} rounds")
print("| case | median | min | vs guard version |")
print("|---|---|---|---|")
for name, ts in times.items():
    ts = ts[1:]
    print(f"| `{name}` | {statistics.median(ts)*1000:.1f} ms | {min(ts)*1000:.1f} ms | {statistics.median(ts)/base:.2f}x |")
PY
go test ./sandbox -run XXX -bench . -benchtime "${RUNS}x" -count 3
