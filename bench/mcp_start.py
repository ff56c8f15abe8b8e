#!/usr/bin/env python3
"""Times an MCP server's start as a client sees it over stdio: spawn -> initialize result -> tools/list
result, a plain JSON-RPC client with nothing of any SDK in the way.
Usage: mcp_start.py ROUNDS NAME=COMMAND [NAME=COMMAND ...]; the commands take turns in each round, and
the first two are compared round by round (bench/mcp-start.sh runs it)."""
import json, os, shlex, statistics, subprocess, sys, time

def once(argv):
    start = time.monotonic()
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    def send(message):
        p.stdin.write((json.dumps(message) + "\n").encode())
        p.stdin.flush()
    def answer(want):
        while True:
            line = p.stdout.readline()
            if not line:
                raise RuntimeError("%s ended before answering" % argv[0])
            message = json.loads(line)
            if message.get("id") == want:
                if "error" in message:
                    raise RuntimeError(str(message["error"]))
                return message["result"]
    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
          "capabilities": {}, "clientInfo": {"name": "mcp-start", "version": "1"}}})
    answer(1)
    initialized = time.monotonic() - start
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    tools = answer(2)["tools"]
    listed = time.monotonic() - start
    p.stdin.close()
    try:
        p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    return initialized, listed, len(tools), len(json.dumps(tools))

def main():
    rounds = int(sys.argv[1])
    servers = [arg.split("=", 1) for arg in sys.argv[2:]]
    results = {name: [] for name, _ in servers}
    for name, command in servers:  # one unmeasured start each: the page cache, and the record of the last start
        once(shlex.split(command))
    for _ in range(rounds):
        for name, command in servers:
            results[name].append(once(shlex.split(command)))
    print("| server | tools | schema KB | initialize median ms | tools/list median ms | min ms | max ms |")
    print("|---|---|---|---|---|---|---|")
    for name, _ in servers:
        runs = results[name]
        listed = [r[1] * 1000 for r in runs]
        print("| %s | %d | %d | %d | %d | %d | %d |" % (name, runs[-1][2], runs[-1][3] / 1024,
              statistics.median(r[0] * 1000 for r in runs), statistics.median(listed), min(listed), max(listed)))
    if len(servers) >= 2:
        a, b = results[servers[0][0]], results[servers[1][0]]
        ratios = sorted(x[1] / y[1] for x, y in zip(a, b))
        print("\ntools/list time %s / %s, round by round: median %.2f (%.2f to %.2f)" % (servers[0][0], servers[1][0],
              statistics.median(ratios), ratios[0], ratios[-1]))

if __name__ == "__main__":
    main()
