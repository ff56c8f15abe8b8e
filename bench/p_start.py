#!/usr/bin/env python3
"""Time from spawn to the first request on the wire of `quiver -p`, against a loopback OpenAI-style
server (plain HTTP) that answers every chat completion with one short streamed reply.
Usage: p_start.py ROUNDS NAME=COMMAND [NAME=COMMAND ...]; {url} in a command is the server's base URL.
The commands take turns in each round and the first two are compared round by round; prints the
medians as a Markdown table (bench/p-start.sh runs it)."""
import http.server, json, shlex, statistics, subprocess, sys, threading, time

first_request = []

class Model(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        first_request.append(time.monotonic())
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        chunk = {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": "bench",
                 "choices": [{"index": 0, "delta": {"role": "assistant", "content": "hi"}, "finish_reason": None}]}
        done = dict(chunk, choices=[{"index": 0, "delta": {}, "finish_reason": "stop"}],
                    usage={"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2})
        body = ("data: %s\n\ndata: %s\n\ndata: [DONE]\n\n" % (json.dumps(chunk), json.dumps(done))).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass

def once(argv):
    del first_request[:]
    start = time.monotonic()
    result = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    end = time.monotonic()
    if result.returncode != 0 or not first_request:
        raise RuntimeError("%s failed (%d): %s" % (argv, result.returncode, result.stderr.decode()[-500:]))
    return first_request[0] - start, end - start

def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Model)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = "http://127.0.0.1:%d/v1" % server.server_address[1]
    rounds = int(sys.argv[1])
    commands = [(name, shlex.split(command.replace("{url}", url))) for name, command in
                (arg.split("=", 1) for arg in sys.argv[2:])]
    results = {name: [] for name, _ in commands}
    for name, argv in commands:
        once(argv)  # the page cache and the framework snapshot
    for _ in range(rounds):
        for name, argv in commands:
            results[name].append(once(argv))
    print("| command | first request median ms | min ms | max ms | whole run median ms |")
    print("|---|---|---|---|---|")
    for name, _ in commands:
        wire = [r[0] * 1000 for r in results[name]]
        print("| %s | %d | %d | %d | %d |" % (name, statistics.median(wire), min(wire), max(wire),
                                             statistics.median(r[1] * 1000 for r in results[name])))
    if len(commands) >= 2:
        a, b = results[commands[0][0]], results[commands[1][0]]
        ratios = sorted(x[0] / y[0] for x, y in zip(a, b))
        print("\nfirst request, %s / %s round by round: median %.2f (%.2f to %.2f)" % (
            commands[0][0], commands[1][0], statistics.median(ratios), ratios[0], ratios[-1]))

if __name__ == "__main__":
    main()
