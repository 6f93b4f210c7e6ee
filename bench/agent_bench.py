"""Benchmark driver for bench/agent.sh (see there).

Each round runs `guard version` and every hook case once, interleaved, so that load
from other processes hits all of them alike; the figures are medians over the rounds.
The repository is only read: the Write targets are new files in folders that do not
exist yet (the deep path) or files guard is only asked about.
"""
import json
import os
import statistics
import subprocess
import sys
import time

guard, repo, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
DIRS, PER_DIR = 1000, 100


def build(root):
    """A plain tree of DIRS folders x PER_DIR files with .git, and locks in a few
    folders (what the hooks bench repository holds too)."""
    os.makedirs(os.path.join(root, ".git"), exist_ok=True)
    for d in range(DIRS):
        dd = os.path.join(root, "d%04d" % d)
        os.makedirs(dd, exist_ok=True)
        for f in range(PER_DIR):
            with open(os.path.join(dd, "f%03d.txt" % f), "w") as fh:
                fh.write("content\n")
    for d in (1, 100, 250, 500, 750, 900):
        with open(os.path.join(root, "d%04d" % d, "LOCK.txt"), "w") as fh:
            fh.write("owner: someone-else\nexpires_after: 9999d\npurpose: bench\n")


if not os.path.isdir(os.path.join(repo, "d0999")):
    build(repo)

count = sum(len(files) for _, _, files in os.walk(repo) if ".git" not in _)
env = dict(os.environ, GUARD_HOST="benchhost", LANG="C", HOME=os.path.dirname(repo))
env.pop("GUARD_OWNER", None)


def hook_input(tool, tool_input):
    return json.dumps({
        "session_id": "bench-session", "transcript_path": "/dev/null", "cwd": repo,
        "permission_mode": "default", "hook_event_name": "PreToolUse",
        "tool_name": tool, "tool_input": tool_input, "tool_use_id": "toolu_bench",
    }).encode()


deep = os.path.join(repo, "d0499", "src", "pkg", "internal", "deep", "er", "still", "new.go")
cases = [
    ("version", ["version"], b"", None),
    ("Write, deep new path, allowed", ["agent-hook", "claude"],
     hook_input("Write", {"file_path": deep, "content": "package x\n"}), ""),
    ("Edit, existing file, allowed", ["agent-hook", "claude"],
     hook_input("Edit", {"file_path": os.path.join(repo, "d0499", "f000.txt"),
                         "old_string": "content", "new_string": "changed"}), ""),
    ("Write, locked folder, denied", ["agent-hook", "claude"],
     hook_input("Write", {"file_path": os.path.join(repo, "d0500", "f000.txt"), "content": "x"}), "deny"),
    ("Bash, redirect + git, allowed", ["agent-hook", "claude"],
     hook_input("Bash", {"command": "echo x > d0499/out.txt && git status --short | head"}), ""),
]

times = {name: [] for name, *_ in cases}
for _ in range(runs):
    for name, args, stdin, expect in cases:
        t0 = time.perf_counter()
        p = subprocess.run([guard, *args], input=stdin, cwd=repo, env=env, capture_output=True)
        times[name].append(time.perf_counter() - t0)
        if p.returncode != 0:
            sys.exit("%s: exit %d: %s" % (name, p.returncode, p.stderr.decode()))
        if expect is not None:
            got = json.loads(p.stdout)["hookSpecificOutput"]["permissionDecision"] if p.stdout else ""
            if got != expect:
                sys.exit("%s: decision %r, want %r" % (name, got, expect))

base = statistics.median(times["version"])
print("repository: %s (%d files), %d rounds, medians" % (repo, count, runs))
for name, *_ in cases:
    med = statistics.median(times[name])
    print("  %-34s %7.2f ms  %5.2fx version" % (name, med * 1000, med / base))
