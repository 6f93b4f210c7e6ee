#!/usr/bin/env bash
# Times the server gate, `guard hook pre-receive`, on a push of 1,000 new commits into a
# bare repository of 10,000 files in 200 folders (10 of them holding lock files), against
# `git rev-list --objects NEW --not --all`, the walk git itself does for that push
# (receive-pack's connectivity check), in the same run. The pushed objects are in the
# server (pushed to a scratch ref that is then deleted), so both sides read the same
# object store and no ref reaches the new commits, as in a real pre-receive. Built once
# under $BENCH_DIR (default /tmp/guard-bench-prereceive) and reused. Figures in
# bench/README.md, "## pre-receive".
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_DIR=${BENCH_DIR:-/tmp/guard-bench-prereceive}
RUNS=${RUNS:-15}
COMMITS=${COMMITS:-1000}
mkdir -p "$BENCH_DIR/bin"
CGO_ENABLED=0 go build -o "$BENCH_DIR/bin/guard" ./cmd/guard
GUARD="$BENCH_DIR/bin/guard"
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=b@x GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=b@x

srv="$BENCH_DIR/srv.git"
work="$BENCH_DIR/work"
if [ ! -f "$BENCH_DIR/ready-$COMMITS" ]; then
	rm -rf "$srv" "$work" "$BENCH_DIR"/ready-*
	git init -q --bare -b main "$srv"
	printf '[server]\npusher_env = "GUARD_PUSHER"\n' >"$srv/.guard.toml"
	git init -q -b main "$work"
	(
		cd "$work"
		for d in $(seq 0 199); do
			mkdir -p "pkg$d"
			for f in $(seq 0 49); do echo "package p$d // $f" >"pkg$d/f$f.go"; done
		done
		for d in $(seq 0 19 199); do
			printf 'owner: alice\ncreated: 2099-01-01T00:00:00\npurpose: bench\n' >"pkg$d/LOCK.txt"
		done
		git add -A && git commit -qm base
		git push -q "$srv" main
		for i in $(seq 1 "$COMMITS"); do
			d=$((i % 200)); f=$((i % 50))
			echo "// change $i" >>"pkg$d/f$f.go"
			echo "// change $i" >>"pkg$(((d + 7) % 200))/f$(((f + 3) % 50)).go"
			git commit -qam "change $i"
		done
		git push -q "$srv" HEAD:refs/bench/incoming
		git -C "$srv" update-ref -d refs/bench/incoming
	)
	touch "$BENCH_DIR/ready-$COMMITS"
fi
old=$(git -C "$srv" rev-parse main)
new=$(git -C "$work" rev-parse HEAD)
n=$(git -C "$srv" rev-list --count "$new" --not --all)
echo "server: $(git -C "$work" ls-files | wc -l) files; push: $n new commits ($old..$new)"

exec python3 - "$srv" "$GUARD" "$old" "$new" "$RUNS" <<'EOF'
import os, resource, statistics, subprocess, sys, time
srv, guard, old, new, runs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
env = dict(os.environ, GIT_DIR=".", GUARD_PUSHER="alice", XDG_STATE_HOME=os.path.join(os.path.dirname(srv), "state"))
line = f"{old} {new} refs/heads/main\n".encode()

def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)  # the process and every git it waited for
    return r.ru_utime + r.ru_stime

def timed(argv, stdin=None):
    c, t = cpu(), time.perf_counter()
    p = subprocess.run(argv, cwd=srv, env=env, input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    d = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit(f"{argv[0]} exited {p.returncode}: {p.stderr.decode()}")
    cputimes[argv[0]].append(cpu() - c)
    return d

cases = {
    "git rev-list --objects NEW --not --all": (["git", "rev-list", "--objects", new, "--not", "--all"], None),
    "guard hook pre-receive": ([guard, "hook", "pre-receive"], line),
}
times = {k: [] for k in cases}
cputimes = {argv[0]: [] for argv, _ in cases.values()}
for _ in range(runs):  # interleaved, so that load hits both alike
    for k, (argv, stdin) in cases.items():
        times[k].append(timed(argv, stdin))
base = "git rev-list --objects NEW --not --all"
for k, ts in times.items():
    print(f"{k:42s} min {min(ts)*1000:7.1f} ms  median {statistics.median(ts)*1000:7.1f} ms"
          f"  ({min(ts)/min(times[base]):.2f}x min, {statistics.median(ts)/statistics.median(times[base]):.2f}x median)")
gitcpu = cputimes["git"]
for k, (argv, _) in cases.items():
    ts = cputimes[argv[0]]
    print(f"{k:42s} cpu {statistics.median(ts)*1000:7.1f} ms median (user+sys, children included;"
          f" {statistics.median(ts)/statistics.median(gitcpu):.2f}x)")
print(f"load average: {os.getloadavg()[0]:.2f}")
EOF
