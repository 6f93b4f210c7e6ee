#!/usr/bin/env bash
# Times guard team and guard permissions against guard version (process start-up) in the
# same run, interleaved round by round; prints medians and ratios.
# Usage: bench/team.sh [ROUNDS]   (default 40)
set -euo pipefail
rounds=${1:-40}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/guard" "$here/cmd/guard"
mkdir "$work/p"
cat > "$work/p/LOCK.permissions.json" <<'JSON'
{"format": "lock-permissions-v1", "rules": {"deny": ["Bash(rm -rf:*)", "mcp__*__delete*"],
 "ask": ["Bash(git push:*)"], "allow": ["Bash(git status)", "Edit(src/**)"]}}
JSON
export GUARD_HOST=BENCH GUARD_OWNER=lead
(cd "$work/p" && "$work/guard" lock --team BENCH >/dev/null 2>&1)
python3 - "$work" "$rounds" <<'PY'
import os, statistics, subprocess, sys, time
work, rounds = sys.argv[1], int(sys.argv[2])
g, p = os.path.join(work, "guard"), os.path.join(work, "p")
cases = {
    "guard version": lambda i: [g, "version"],
    "guard permissions (deny by a tool glob)": lambda i: [g, "permissions", "--agent", "a", "mcp__github__delete_repo"],
    "guard team checkin (agent i of 40)": lambda i: [g, "team", "checkin", "--agent", f"agent-{i}", "--role", "r", "--task", "t"],
    "guard team claim (new bundle)": lambda i: [g, "team", "claim", "--agent", f"agent-{i}", "--resource", f"src/f{i}.go"],
    "guard team show --json": lambda i: [g, "team", "show", "--json"],
}
times = {k: [] for k in cases}
for i in range(rounds):
    for name, argv in cases.items():
        t = time.perf_counter()
        r = subprocess.run(argv(i), cwd=p, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times[name].append(time.perf_counter() - t)
        if r.returncode not in (0, 1):
            sys.exit(f"{name}: exit {r.returncode}")
base = statistics.median(times["guard version"])
print("| case | median | vs `guard version` |\n|---|---|---|")
for name, ts in times.items():
    m = statistics.median(ts)
    print(f"| {name} | {m*1000:.2f} ms | {m/base:.2f}x |")
PY
