"""The etcd backend's cost, measured against the files-only baseline in the same run.

1. Claim+release round trips per second: `guard lock DIR` then `guard unlock DIR`, one
   after the other, in a repository whose .guard.toml has [backend] (etcd at 127.0.0.1)
   and in the same repository without it. Each round trip is two guard processes, as
   a script or an agent pays it.
2. `guard hook pre-commit` with 20 staged files, with and without the backend: the
   median wall time of each, alternating runs, and the difference in milliseconds
   (target: at most 5 ms over the files-only hook on loopback).
"""
import os, socket, statistics, subprocess, sys, time, urllib.request

guard, etcd, base, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


cport, pport = free_port(), free_port()
endpoint, peer = "http://127.0.0.1:%d" % cport, "http://127.0.0.1:%d" % pport
server = subprocess.Popen([etcd, "--name", "bench", "--data-dir", os.path.join(base, "etcd"),
                           "--listen-client-urls", endpoint, "--advertise-client-urls", endpoint,
                           "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
                           "--initial-cluster", "bench=" + peer, "--log-level", "error"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    for _ in range(300):
        try:
            if urllib.request.urlopen(endpoint + "/health", timeout=1).status == 200:
                break
        except Exception:
            time.sleep(0.1)
    else:
        raise SystemExit("etcd never became healthy")

    env = dict(PATH="/usr/bin:/bin", HOME=base, XDG_STATE_HOME=os.path.join(base, "state"),
               GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1", GUARD_HOST="benchhost",
               GUARD_OWNER="bench", GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@x",
               GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@x")

    def repo(name, backend):
        d = os.path.join(base, name)
        os.makedirs(os.path.join(d, "src"))
        subprocess.run(["git", "init", "-q", "-b", "main", d], env=env, check=True)
        cfg = '[backend]\nkind = "etcd"\nendpoints = ["%s"]\nproject_id = "bench"\n' % endpoint if backend else ""
        open(os.path.join(d, ".guard.toml"), "w").write(cfg)
        for i in range(20):
            open(os.path.join(d, "src", "f%02d.go" % i), "w").write("package src\n")
        subprocess.run(["git", "-C", d, "add", "-A"], env=env, check=True)
        return d

    files, backed = repo("files", False), repo("etcd", True)

    def run(d, *args):
        r = subprocess.run([guard] + list(args), cwd=d, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if r.returncode != 0:
            raise SystemExit("guard %s in %s: exit %d: %s" % (" ".join(args), d, r.returncode, r.stderr.decode()))

    def round_trips(d):
        t = time.perf_counter()
        for _ in range(rounds):
            run(d, "lock", "src", "--no-contest")
            run(d, "unlock", "src")
        return rounds / (time.perf_counter() - t)

    def hook_times(d, n):
        out = []
        for _ in range(n):
            t = time.perf_counter()
            run(d, "hook", "pre-commit")
            out.append(time.perf_counter() - t)
        return out

    # Warm both (page cache, etcd's first compaction of nothing).
    round_trips(files), round_trips(backed)
    rt_files, rt_etcd = round_trips(files), round_trips(backed)
    hf, he = [], []
    for _ in range(rounds // 10 or 1):
        hf += hook_times(files, 10)
        he += hook_times(backed, 10)
    mf, me = statistics.median(hf), statistics.median(he)
    print("load average: %.2f %.2f %.2f" % os.getloadavg())
    print("claim+release round trips/s: files %.1f, etcd %.1f (%.2fx the files' rate)" % (rt_files, rt_etcd, rt_etcd / rt_files))
    print("guard hook pre-commit, 20 staged: files %.1f ms, etcd %.1f ms median; added %.1f ms (%.2fx)"
          % (mf * 1e3, me * 1e3, (me - mf) * 1e3, me / mf))
finally:
    server.kill()
    server.wait()
