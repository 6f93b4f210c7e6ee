"""Benchmark driver for bench/agent.sh (see there).

Each round runs `guard version` and every hook case once, interleaved, so that load
from other processes hits all of them alike; the figures are medians over the rounds.
The repository is only read: the Write targets are new files in folders that do not
exist yet (the deep path) or files guard is only asked about.
"""
import json
import os
import resource
import shutil
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


with open(os.path.join(repo, "d0500", "LOCK.txt")) as fh:
    lock_owner = next(l.split(":", 1)[1].strip() for l in fh if l.startswith("owner:"))

# No lock refuses, but guard cannot read the command: under [agent] sandbox = "auto"
# (the default) it comes back rewritten with Claude Code's own answer (ask: no rule
# here) where the exact sandbox runs, with no decision where it does not.
AUTO = ("", "ask")

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
    ("Bash, script of 40 commands, allowed", ["agent-hook", "claude"],
     hook_input("Bash", {"command": "set -e\n" + "".join(
         "if [ -f d0499/f%03d.txt ]; then grep -n content d0499/f%03d.txt | sort > d0499/o%03d.txt; fi\n" % (i, i, i)
         for i in range(40))}), ""),
    ("Bash, glob + brace over d04*, allowed", ["agent-hook", "claude"],
     hook_input("Bash", {"command": "touch d04{1,2}*/new.txt && rm -f d0499/*.tmp"}), ""),
    # Paths with .. are resolved as the kernel does (a readlink per name before ..);
    # git options are read for what they write or run.
    ("Bash, .. in paths, allowed", ["agent-hook", "claude"],
     hook_input("Bash", {"command": "echo x > d0499/../d0498/out.txt && cd d0497 && touch ../d0496/../d0499/n.txt"}), ""),
    ("Bash, git -c and --output, allowed", ["agent-hook", "claude"],
     hook_input("Bash", {"command": "git -c color.ui=false -c core.quotePath=false log -1 --output=d0499/log.txt"}), ""),
    # [agent] sandbox: the same commands rewritten into guard sandbox, Claude Code's
    # settings read and judged (none here: ask).
    ("Bash, redirect + git, sandboxed, ask", ["agent-hook", "claude", "--sandbox"],
     hook_input("Bash", {"command": "echo x > d0499/out.txt && git status --short | head"}), "ask"),
    ("Bash, script of 40 commands, sandboxed, ask", ["agent-hook", "claude", "--sandbox"],
     hook_input("Bash", {"command": "set -e\n" + "".join(
         "if [ -f d0499/f%03d.txt ]; then grep -n content d0499/f%03d.txt | sort > d0499/o%03d.txt; fi\n" % (i, i, i)
         for i in range(40))}), "ask"),
    ("Bash, unreadable near a lock, ask", ["agent-hook", "claude"],
     hook_input("Bash", {"command": "rm -rf \"$TARGET\""}), "ask"),
    # The locks' own owner (read from the repository: the hooks bench's locks are
    # bench's, this script's own someone-else's): none refuses, so the whole tree is
    # searched for one.
    ("Bash, unreadable, no refusing lock", ["agent-hook", "claude"],
     hook_input("Bash", {"command": "rm -rf \"$TARGET\""}), AUTO, {"GUARD_OWNER": lock_owner}),
    # The same with no cache of the folders' listings (a state directory that cannot
    # be created): what the first search of a project, or one after a change, costs.
    ("Bash, unreadable, none refusing, cold", ["agent-hook", "claude"],
     hook_input("Bash", {"command": "rm -rf \"$TARGET\""}), AUTO,
     {"GUARD_OWNER": lock_owner, "XDG_STATE_HOME": "/proc/guard-bench-no-state"}),
    # The first search of a project after `guard agent-install claude` (which lists
    # the project into the cache): each round gets a new state directory, primed by
    # an install and an uninstall (not timed), so the settings folder comes and goes.
    ("Bash, unreadable, first after install", ["agent-hook", "claude"],
     hook_input("Bash", {"command": "rm -rf \"$TARGET\""}), AUTO,
     {"GUARD_OWNER": lock_owner, "XDG_STATE_HOME": "PRIMED"}),
]
primed_root = os.path.join(os.path.dirname(repo), "guard-bench-primed")
shutil.rmtree(primed_root, ignore_errors=True)

times = {name: [] for name, *_ in cases}
# CPU time (user + system) of each run, from the children's rusage: on a loaded
# machine the wall times mostly measure the waits for a CPU.
cpu = {name: [] for name, *_ in cases}


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime

def measure(name, args, stdin, expect, case_env):
    c0 = children_cpu()
    t0 = time.perf_counter()
    p = subprocess.run([guard, *args], input=stdin, cwd=repo, env=case_env, capture_output=True)
    times[name].append(time.perf_counter() - t0)
    cpu[name].append(children_cpu() - c0)
    if p.returncode != 0:
        sys.exit("%s: exit %d: %s" % (name, p.returncode, p.stderr.decode()))
    if expect is not None:
        got = json.loads(p.stdout)["hookSpecificOutput"]["permissionDecision"] if p.stdout else ""
        if got != expect and not (isinstance(expect, tuple) and got in expect):
            sys.exit("%s: decision %r, want %r" % (name, got, expect))


# The primed case installs and uninstalls in the repository, which changes its root
# folder and so the other cases' kept listings: it runs in rounds of its own, after
# the others, interleaved with `version` again (its own baseline, "version, phase 2").
primed = [c for c in cases if (c[4:] or [{}])[0].get("XDG_STATE_HOME") == "PRIMED"]
plain = [c for c in cases if c not in primed]
times["version, phase 2"], cpu["version, phase 2"] = [], []
for rnd in range(runs):
    for name, args, stdin, expect, *extra in plain:
        measure(name, args, stdin, expect, dict(env, **extra[0]) if extra else env)
for rnd in range(runs):
    measure("version, phase 2", ["version"], b"", None, env)
    for name, args, stdin, expect, extra in primed:
        state = os.path.join(primed_root, "r%d" % rnd)
        case_env = dict(dict(env, **extra), XDG_STATE_HOME=state)
        for verb in ("agent-install", "agent-uninstall"):
            subprocess.run([guard, verb, "claude"], cwd=repo, env=case_env, check=True, capture_output=True)
        measure(name, args, stdin, expect, case_env)

base = statistics.median(times["version"])
cbase = statistics.median(cpu["version"])
print("repository: %s (%d files), %d rounds, medians (wall; CPU user+system)" % (repo, count, runs))
for name, *_ in plain + [("version, phase 2",)] + primed:
    if name == "version, phase 2":
        base = statistics.median(times[name])
        cbase = statistics.median(cpu[name])
    med = statistics.median(times[name])
    cmed = statistics.median(cpu[name])
    print("  %-38s %8.2f ms %6.2fx version | cpu %7.2f ms %6.2fx" % (name, med * 1000, med / base, cmed * 1000, cmed / cbase if cbase else 0))
