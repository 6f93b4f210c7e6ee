"""bench/mcp.sh's measurements (see there)."""
import json, os, statistics, subprocess, sys, time

bench, runs = sys.argv[1], int(sys.argv[2])
guard = os.path.join(bench, "bin", "guard")
nomcp = os.path.join(bench, "bin", "guard-nomcp")
repo = os.path.join(bench, "repo")
env = dict(os.environ, GUARD_OWNER="bob", HOME=bench, XDG_STATE_HOME=os.path.join(bench, "state"))
path = "src/a.go"


def ms(xs):
    return "median %.2f ms, min %.2f ms" % (statistics.median(xs) * 1e3, min(xs) * 1e3)


class Client:
    def __init__(self):
        self.p = subprocess.Popen([guard, "mcp"], cwd=repo, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.id = 0
        self.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg):
        self.p.stdin.write(json.dumps(msg) + "\n")
        self.p.stdin.flush()

    def call(self, method, params):
        self.id += 1
        self.send({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params})
        while True:
            m = json.loads(self.p.stdout.readline())
            if m.get("id") == self.id:
                return m

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def run(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, cwd=repo, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


c = Client()
tool, proc = [], []
for target in (path, "locked/x.txt"):
    r = c.call("tools/call", {"name": "check", "arguments": {"path": target}})
    cli = subprocess.run([guard, "check", "--json", target], cwd=repo, env=env, capture_output=True, text=True).stdout
    assert r["result"]["structuredContent"] == json.loads(cli), (r, cli)
for _ in range(runs):
    t = time.perf_counter()
    c.call("tools/call", {"name": "check", "arguments": {"path": path}})
    tool.append(time.perf_counter() - t)
    proc.append(run([guard, "check", "--json", path]))
c.close()
print("check of a free path, %d runs, alternating:" % runs)
print("  tool call through a running guard mcp: " + ms(tool))
print("  guard check --json as a process:      " + ms(proc))
print("  ratio (medians): %.2fx" % (statistics.median(tool) / statistics.median(proc)))

for label, args in (("guard version", ["version"]), ("guard check --json " + path, ["check", "--json", path])):
    a, b = [], []
    for _ in range(runs):
        a.append(run([guard] + args))
        b.append(run([nomcp] + args))
    print("%s, %d runs alternating: with the SDK %s; -tags nomcp %s; ratio (medians) %.3fx, (minimums) %.3fx"
          % (label, runs, ms(a), ms(b), statistics.median(a) / statistics.median(b), min(a) / min(b)))

# The package inits linking the SDK adds (GODEBUG=inittrace: clock time of each init).
added = ("github.com/modelcontextprotocol/", "github.com/google/jsonschema-go", "github.com/segmentio/",
         "github.com/yosida95/", "golang.org/x/oauth2", "encoding/gob", "log/slog", "golang.org/x/time/rate")
totals = []
for _ in range(max(runs // 4, 20)):
    err = subprocess.run([guard, "version"], env=dict(env, GODEBUG="inittrace=1"), capture_output=True, text=True).stderr
    total = 0.0
    for line in err.splitlines():
        f = line.split()
        if len(f) > 4 and f[0] == "init" and f[1].startswith(added):
            total += float(f[4])
    totals.append(total)
print("inits of the packages the SDK adds, per start-up: median %.3f ms, min %.3f ms (GODEBUG=inittrace)" % (statistics.median(totals), min(totals)))
