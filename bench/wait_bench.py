"""Release-to-claim latency: guard lock --wait against flock(1), same machine, same run.

A hand-off is: the holder releases (t_release, taken just before the releasing
system call), the next waiter claims (t_claim). For guard the release is rm of
LOCK.txt (what any tool or person does) and t_claim is the claim's fence, the
moment in microseconds that guard writes into the lock; for flock(1) the release is
the end of the holding flock process (SIGKILL, its lock dies with it) and t_claim
is `date +%s%N` run by the waiter's flock once it holds the lock (one exec more than
guard: flock's figures include about a millisecond of process start).

The floor is flock(2) itself: waiters that are Python processes already blocked in
flock(2), released by LOCK_UN, timed right after flock(2) returns (no exec at all).

With N waiters all N wait before the first release, and each hand-off releases the
lock the previous one claimed, so every waiter of the 10 is woken in turn.
"""
import os, signal, statistics, subprocess, sys, time

guard, base, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
env = dict(os.environ, GUARD_HOST="benchhost", HOME=base, XDG_STATE_HOME=os.path.join(base, "state"))


def fence_time(lock):
    for line in open(lock):
        k, _, v = line.partition(":")
        if k.strip() == "fence":
            return int(v) / 1e6
    raise SystemExit("no fence in " + lock)


def wait_for_line(proc, word):
    while True:
        line = proc.stderr.readline()
        if not line:
            raise SystemExit("guard waiter ended early")
        if word in line:
            return


def guard_round(n, area):
    os.makedirs(area, exist_ok=True)
    lock = os.path.join(area, "LOCK.txt")
    subprocess.run([guard, "lock", "--owner", "holder", area], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    waiters = []
    for i in range(n):
        p = subprocess.Popen([guard, "lock", "--owner", "w%d" % i, "--wait", "120s", area], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        wait_for_line(p, "waiting for")
        waiters.append(p)
    out = []
    for p in waiters:
        t_release = time.time()
        os.remove(lock)
        if p.wait(timeout=60) != 0:
            raise SystemExit("guard waiter failed")
        out.append(fence_time(lock) - t_release)
    os.remove(lock)
    return out


def flock_round(n, area):
    os.makedirs(area, exist_ok=True)
    f = os.path.join(area, "lockfile")
    # Each flock(1) runs in a session of its own: killing the group ends flock (which
    # releases the lock) and the command it runs.
    holder = subprocess.Popen(["flock", "-o", f, "sleep", "1000"], start_new_session=True)
    while subprocess.run(["flock", "-n", f, "true"]).returncode == 0:
        time.sleep(0.001)  # until the holder has it
    waiters = []
    for i in range(n):
        outp = os.path.join(area, "claim.%d" % i)
        p = subprocess.Popen(["flock", "-o", f, "sh", "-c", 'date +%s%N > "$0"; exec sleep 1000', outp],
                             start_new_session=True)
        waiters.append((p, outp))
    time.sleep(0.3)  # all of them are blocked in flock(2) by now
    out, current, pending = [], holder, list(waiters)
    while pending:
        t_release = time.time()
        os.killpg(current.pid, signal.SIGKILL)
        current.wait()
        while True:
            won = [w for w in pending if os.path.exists(w[1]) and os.path.getsize(w[1]) > 0]
            if won:
                break
            time.sleep(0.0005)
        p, outp = won[0]
        out.append(int(open(outp).read()) / 1e9 - t_release)
        pending.remove(won[0])
        current = p  # the winner holds the lock until the next hand-off kills it
    os.killpg(current.pid, signal.SIGKILL)
    current.wait()
    return out


KERNEL_WAITER = r"""
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)
print("waiting", flush=True)
fcntl.flock(fd, fcntl.LOCK_EX)
t = time.time()
print(repr(t), flush=True)
sys.stdin.readline()  # hold until told to release
t = time.time()
print(repr(t), flush=True)
fcntl.flock(fd, fcntl.LOCK_UN)
"""


def kernel_round(n, area):
    """The floor: flock(2) itself, waiters already running, release by LOCK_UN."""
    import fcntl
    os.makedirs(area, exist_ok=True)
    f = os.path.join(area, "lockfile")
    fd = os.open(f, os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    waiters = []
    for i in range(n):
        p = subprocess.Popen([sys.executable, "-c", KERNEL_WAITER, f], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
        p.stdout.readline()
        waiters.append(p)
    time.sleep(0.2)
    t_release = time.time()
    fcntl.flock(fd, fcntl.LOCK_UN)
    out, pending = [], list(waiters)
    import selectors
    sel = selectors.DefaultSelector()
    for p in pending:
        sel.register(p.stdout, selectors.EVENT_READ, p)
    while pending:
        for key, _ in sel.select():
            p = key.data
            t_claim = float(p.stdout.readline())
            out.append(t_claim - t_release)
            sel.unregister(p.stdout)
            pending.remove(p)
            p.stdin.write("\n")
            p.stdin.flush()
            t_release = float(p.stdout.readline())
            p.wait()
            break
    os.close(fd)
    return out


def ms(xs):
    return "%.1f ms" % (xs * 1000)


print("| hand-off | samples | guard median / max | flock(1) median / max | flock(2) floor median / max | guard / flock(1) | guard / floor |")
print("|---|---|---|---|---|---|---|")
for n, reps in ((1, rounds), (10, max(1, rounds // 10))):
    g, fl, k = [], [], []
    for r in range(reps):
        g += guard_round(n, os.path.join(base, "g%d-%d" % (n, r)))
        fl += flock_round(n, os.path.join(base, "f%d-%d" % (n, r)))
        k += kernel_round(n, os.path.join(base, "k%d-%d" % (n, r)))
    gm, fm, km = statistics.median(g), statistics.median(fl), statistics.median(k)
    print("| %d waiter(s) | %d | %s / %s | %s / %s | %s / %s | %.2fx | %.2fx |" % (
        n, len(g), ms(gm), ms(max(g)), ms(fm), ms(max(fl)), ms(km), ms(max(k)), gm / fm, gm / km))
