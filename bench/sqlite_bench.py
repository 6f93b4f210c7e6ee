"""Benchmark driver for bench/sqlite.sh (see there)."""
import os
import re
import resource
import statistics
import subprocess
import sys
import time

bench_dir, runs = sys.argv[1], int(sys.argv[2])
repo = os.path.join(bench_dir, "repo")
bins = {"with SQLite": os.path.join(bench_dir, "bin", "guard"),
        "without": os.path.join(bench_dir, "bin", "guard-nohistory")}
state = os.path.join(bench_dir, "state")
env = dict(os.environ, GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1",
           GUARD_OWNER="bench", GUARD_HOST="benchhost", LANG="C", XDG_STATE_HOME=state)


def git(*args):
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


if not os.path.exists(os.path.join(repo, ".git")):
    os.makedirs(repo)
    git("init", "-q", "-b", "main")
    for d in range(50):
        os.makedirs(os.path.join(repo, "d%02d" % d))
        for f in range(20):
            with open(os.path.join(repo, "d%02d" % d, "f%02d.txt" % f), "w") as fh:
                fh.write("x\n")
    git("add", "-A")
    git("-c", "user.name=B", "-c", "user.email=b@x", "commit", "-q", "-m", "root")
    with open(os.path.join(repo, "d49", "LOCK.txt"), "w") as fh:
        fh.write("owner: someone-else\ncreated: 2099-01-01T00:00:00\nexpires_after: 24h\n")
    with open(os.path.join(repo, ".git", "info", "exclude"), "a") as fh:
        fh.write("LOCK*.txt\n")
    for d in range(20):
        with open(os.path.join(repo, "d%02d" % d, "f00.txt"), "w") as fh:
            fh.write("changed\n")
    git("add", "-A")


def one(argv):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    p = subprocess.run(argv, cwd=repo, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit("%s: exit %d: %s" % (argv, p.returncode, p.stderr.decode()))
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def load():
    with open("/proc/loadavg") as fh:
        return fh.read().split()[0]


print("load average at start: %s; %d runs of each, alternating" % (load(), runs))
for what, args in [("guard hook pre-commit", ["hook", "pre-commit"]), ("guard version", ["version"])]:
    res = {k: ([], []) for k in bins}
    for name, b in bins.items():  # warm-up
        one([b, *args])
    for _ in range(runs):
        for name, b in bins.items():
            w, c = one([b, *args])
            res[name][0].append(w)
            res[name][1].append(c)
    print("\n%s" % what)
    for name in bins:
        w, c = res[name]
        print("  %-12s wall median %.2f ms, min %.2f ms; CPU median %.2f ms" %
              (name, 1000 * statistics.median(w), 1000 * min(w), 1000 * statistics.median(c)))
    w1, w0 = res["with SQLite"][0], res["without"][0]
    c1, c0 = res["with SQLite"][1], res["without"][1]
    print("  ratio with/without: wall median %.3fx, min %.3fx; CPU median %.3fx" %
          (statistics.median(w1) / statistics.median(w0), min(w1) / min(w0),
           statistics.median(c1) / max(statistics.median(c0), 1e-9)))

trace = subprocess.run([bins["with SQLite"], "version"], env=dict(env, GODEBUG="inittrace=1"),
                       capture_output=True, text=True).stderr
ms = sum(float(m.group(1)) for m in re.finditer(r"init modernc\.org/\S+ @\S+ ms, ([0-9.]+) ms clock", trace))
print("\nmodernc.org package inits (GODEBUG=inittrace=1, one run): %.3f ms" % ms)
print("binary sizes: with %.1f MB, without %.1f MB" % tuple(os.path.getsize(bins[k]) / 1e6 for k in bins))
print("load average at end: %s" % load())
