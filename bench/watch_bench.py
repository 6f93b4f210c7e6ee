"""Benchmark driver for bench/watch.sh (see there)."""
import json
import os
import queue
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time

guard, root, idle, samples = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
HZ = os.sysconf("SC_CLK_TCK")


def load():
    with open("/proc/loadavg") as fh:
        return " ".join(fh.read().split()[:3])


def cpu_ticks(pid):
    with open("/proc/%d/stat" % pid) as fh:
        f = fh.read().rsplit(")", 1)[1].split()
    return int(f[11]) + int(f[12])  # utime + stime


def status(pid, key):
    with open("/proc/%d/status" % pid) as fh:
        for line in fh:
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024  # MiB
    return 0.0


print("load average at start: %s" % load())
subprocess.run(["find", root, "-type", "d"], stdout=subprocess.DEVNULL, check=True)  # warm
t = time.perf_counter()
dirs = subprocess.run(["find", root, "-type", "d"], capture_output=True, check=True).stdout.count(b"\n")
find_s = time.perf_counter() - t
print("baseline: find ROOT -type d: %d directories in %.2f s" % (dirs, find_s))

state = tempfile.mkdtemp(prefix="guard-bench-watch-state-")
env = dict(os.environ, XDG_STATE_HOME=state, GUARD_OWNER="bench", GUARD_HOST="benchhost")
t0 = time.perf_counter()
p = subprocess.Popen([guard, "watch", "--json", root], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
events, ready, warnings = queue.Queue(), threading.Event(), []


def read_out():
    for line in p.stdout:
        try:
            events.put((time.perf_counter(), json.loads(line)))
        except ValueError:
            pass


def read_err():
    for line in p.stderr:
        if "events follow" in line:
            ready.set()
        elif line.strip():
            warnings.append(line.strip())


threading.Thread(target=read_out, daemon=True).start()
threading.Thread(target=read_err, daemon=True).start()
try:
    if not ready.wait(600):
        sys.exit("guard watch was not ready within 600 s")
    start_s = time.perf_counter() - t0
    start_cpu = cpu_ticks(p.pid) / HZ
    print("guard watch: initial scan and watches done in %.2f s (%.2fx find), %.2f s CPU" % (start_s, start_s / find_s, start_cpu))
    for w in warnings:
        print("  stderr: %s" % w)
    time.sleep(10)  # let the start settle
    c0, w0 = cpu_ticks(p.pid), time.perf_counter()
    rss = []
    end = w0 + idle
    while time.perf_counter() < end:
        time.sleep(min(5, max(0, end - time.perf_counter())))
        rss.append(status(p.pid, "VmRSS"))
    c1, w1 = cpu_ticks(p.pid), time.perf_counter()
    idle_pct = 100.0 * (c1 - c0) / HZ / (w1 - w0)
    print("idle: %.3f%% of one core over %.0f s (%.2f s CPU; includes the 60 s rescans); RSS %.1f-%.1f MiB" %
          (idle_pct, w1 - w0, (c1 - c0) / HZ, min(rss), max(rss)))
    while not events.empty():
        events.get()

    def wait_for(path, kind, limit=75):
        deadline = time.perf_counter() + limit
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                return None
            try:
                at, ev = events.get(timeout=left)
            except queue.Empty:
                return None
            if ev.get("path") == path and ev.get("event") == kind:
                return at

    rnd = random.Random(1)
    made, gone = [], []
    for i in range(samples):
        leaf = os.path.join(root, "a%02d" % rnd.randrange(20), "b%02d" % rnd.randrange(20), "c%02d" % rnd.randrange(20), "d%02d" % rnd.randrange(25))
        lock = os.path.join(leaf, "LOCK.bench.txt")
        t = time.perf_counter()
        with open(lock, "w") as fh:
            fh.write("owner: bench\ncreated: %s\nexpires_after: 1h\n" % time.strftime("%Y-%m-%dT%H:%M:%S"))
        at = wait_for(lock, "acquired")
        made.append(None if at is None else at - t)
        t = time.perf_counter()
        os.remove(lock)
        at = wait_for(lock, "released")
        gone.append(None if at is None else at - t)

    def summary(xs):
        ok = [x for x in xs if x is not None]
        slow = sum(1 for x in xs if x is None or x > 2)
        if not ok:
            return "none reported"
        return "median %.0f ms, max %.0f ms, %d of %d over 2 s%s" % (
            1000 * statistics.median(ok), 1000 * max(ok), slow, len(xs),
            "" if len(ok) == len(xs) else " (%d never within 75 s)" % (len(xs) - len(ok)))

    print("latency, lock created -> acquired printed: %s" % summary(made))
    print("latency, lock removed -> released printed: %s" % summary(gone))
    print("peak RSS (VmHWM): %.1f MiB" % status(p.pid, "VmHWM"))
finally:
    p.terminate()
    p.wait()
print("load average at end: %s" % load())
