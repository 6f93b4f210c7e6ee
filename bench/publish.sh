#!/usr/bin/env bash
# Times `guard publish` and `guard preflight` against running the wrapped command
# directly and `guard version` (interleaved rounds, medians), with a stand-in npm that
# exits at once, so the figures are guard's own overhead. Also times the classifier.
# Figures are in bench/README.md, "## publish".
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${PUBLISH_BENCH_DIR:-/tmp/guard-bench-publish}
RUNS=${RUNS:-40}
mkdir -p "$DIR/bin" "$DIR/small" "$DIR/big"
go build -o "$DIR/bin/guard" ./cmd/guard
printf '#!/bin/sh\nexit 0\n' >"$DIR/bin/npm" && chmod +x "$DIR/bin/npm"
: >"$DIR/small/PUBLIC.txt"
: >"$DIR/big/PUBLIC.txt"
# A project with an installed dependency tree: 200 packages x 50 folders.
python3 -c "
import os, sys
for i in range(200):
    for j in range(50):
        os.makedirs(os.path.join(sys.argv[1], 'node_modules', 'p%d' % i, 'd%d' % j), exist_ok=True)
" "$DIR/big"
python3 - "$DIR" "$RUNS" "$(command -v npm)" <<'PY'
import os, statistics, subprocess, sys, time
d, runs = sys.argv[1], int(sys.argv[2])
guard = os.path.join(d, "bin", "guard")
REALNPM = sys.argv[3]
env = dict(os.environ, PATH=os.path.join(d, "bin") + ":" + os.environ["PATH"], GUARD_OWNER="bench", HOME=d)
cases = [
    ("npm publish (stand-in, run directly)", ["npm", "publish"], "small"),
    ("guard version", [guard, "version"], "small"),
    ("guard publish -- npm install (publishes nothing)", [guard, "publish", "--", "npm", "install"], "small"),
    ("guard publish -- npm publish (PUBLIC.txt)", [guard, "publish", "--", "npm", "publish"], "small"),
    ("guard publish -- npm publish, 10,000-folder node_modules", [guard, "publish", "--", "npm", "publish"], "big"),
    ("guard preflight (no repository)", [guard, "preflight"], "small"),
    ("real npm --version, run directly", [REALNPM, "--version"], "small"),
    ("guard publish -- real npm --version", [guard, "publish", "--", REALNPM, "--version"], "small"),
]
times = {c[0]: [] for c in cases}
for _ in range(runs):
    for name, args, cwd in cases:
        t = time.perf_counter()
        subprocess.run(args, env=env, cwd=os.path.join(d, cwd), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times[name].append(time.perf_counter() - t)
base = statistics.median(times[cases[0][0]])
print("| case | median | vs running npm directly |\n|---|---|---|")
for name, _, _ in cases:
    m = statistics.median(times[name])
    print("| %s | %.2f ms | %.2fx |" % (name, m * 1000, m / base))
PY
go test ./publish -run XXX -bench Classify -benchtime 2s
