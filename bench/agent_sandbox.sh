#!/usr/bin/env bash
# Times what [agent] sandbox = "auto" adds to each shell command an agent runs: the
# command in the hook's rewritten form (`guard sandbox --owner O --host H -- bash -c
# CMD`) against the same `bash -c CMD` unsandboxed and against `guard version`,
# interleaved in the same run, in two projects: a small one (20 folders, one of them
# locked by another owner) and bench/sandbox.sh's 10,110-folder tree with 100 locks
# (built there when it is absent). Figures are in bench/README.md, "## agent-hook".
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${AGENT_SANDBOX_BENCH_DIR:-/tmp/guard-bench-agent-sandbox}
TREE=${SANDBOX_BENCH_DIR:-/tmp/guard-bench-sandbox}/tree
RUNS=${RUNS:-30}
mkdir -p "$DIR/bin"
go build -o "$DIR/bin/guard" ./cmd/guard
SMALL="$DIR/small"
if [ ! -d "$SMALL/.git" ]; then
	mkdir -p "$SMALL/.git"
	for i in $(seq -w 1 20); do mkdir -p "$SMALL/d$i"; echo x > "$SMALL/d$i/f.txt"; done
	printf 'owner: alice\ncreated: 2099-01-01T00:00:00\n' > "$SMALL/d01/LOCK.txt"
fi
if [ ! -f "$TREE/.built" ]; then
	echo "no $TREE: run bench/sandbox.sh once to build it; timing the small project only" >&2
	TREE=""
fi
exec python3 - "$DIR/bin/guard" "$RUNS" "$SMALL" $TREE <<'PY'
import os, statistics, subprocess, sys, time
guard, runs, projects = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
env = {"PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "NO_COLOR": "1", "LANG": "C"}
cmd = "ls > /dev/null"
for project in projects:
    cases = {
        "guard version": [guard, "version"],
        "bash -c CMD (unsandboxed)": ["bash", "-c", cmd],
        "guard sandbox ... -- bash -c CMD": [guard, "sandbox", "--owner", "agent-1", "--host", "box1", "--", "bash", "-c", cmd],
    }
    times = {k: [] for k in cases}
    for name, argv in cases.items():  # warm-up
        subprocess.run(argv, cwd=project, env=env, check=True, capture_output=True)
    for _ in range(runs):
        for name, argv in cases.items():
            t0 = time.perf_counter()
            p = subprocess.run(argv, cwd=project, env=env, capture_output=True)
            times[name].append(time.perf_counter() - t0)
            if p.returncode != 0:
                sys.exit("%s: exit %d: %s" % (name, p.returncode, p.stderr.decode()))
    med = {k: statistics.median(v) for k, v in times.items()}
    low = {k: min(v) for k, v in times.items()}
    base, plain = med["guard version"], med["bash -c CMD (unsandboxed)"]
    print("project %s, %d rounds, load %.1f; CMD = %s" % (project, runs, os.getloadavg()[0], cmd))
    print("| case | median | min | vs version | vs unsandboxed |")
    print("|---|---|---|---|---|")
    for k in cases:
        print("| %s | %.2f ms | %.2f ms | %.2fx | %.2fx |" % (k, med[k] * 1e3, low[k] * 1e3, med[k] / base, med[k] / plain))
    added = med["guard sandbox ... -- bash -c CMD"] - plain
    print("added by the sandbox: %.2f ms median (%.2fx guard version)\n" % (added * 1e3, added / base))
PY
