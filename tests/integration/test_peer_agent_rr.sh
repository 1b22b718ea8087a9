#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The peer agent's requests of the request/response and packet-rate loads
# (their entries' agent_ops, collector/run/load_rr.c and load_rate.c), as
# the peer testbed sends them: udp-rr's responder answers a request with
# its first byte, counts it, stops; a bad request is refused with why (a
# port, CPU or size that a key pinned to the agent may send and the run
# never does, for each receiver: rr-serve, udp-rx, stream-rx); the
# rate receiver counts datagrams by the step number they carry; and when
# the run goes (the agent's stdin ends) the agent stops what it started.
# The agent runs on a pipe, in a network namespace of its own.
. "$(dirname "$0")/lib.sh"

command -v unshare > /dev/null || skip "no unshare"

unshare -n python3 - "$IPSECPERF" > "$TMP/out" 2>&1 << 'EOF'
import json, os, socket, struct, subprocess, sys, time
subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
agent = subprocess.Popen([sys.argv[1], "peer-agent"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
def call(req):
    agent.stdin.write(json.dumps(req) + "\n")
    agent.stdin.flush()
    return json.loads(agent.stdout.readline())
def need(cond, what):
    if not cond:
        sys.exit(what)
r = call({"op": "rr-serve", "kind": "udp-rr", "addr": "127.0.0.1", "port": 5398, "request": 1, "response": 3, "cpu": -1})
need(r.get("ok"), "rr-serve: %s" % r)
rr_pid = r["pid"]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(5)
s.sendto(b"\x07", ("127.0.0.1", 5398))
need(s.recv(100) == b"\x07\x00\x00", "udp-rr: the answer is not the request's number and 3 bytes")
for _ in range(100):  # the responder counts an answer once its send returned, after the answer may be here
    r = call({"op": "rr-served"})
    if r.get("served"):
        break
    time.sleep(0.02)
need(r["ok"] and r["running"] and r["served"] == 1, "rr-served: %s" % r)
r = call({"op": "rr-serve", "kind": "tcp-frr", "addr": "127.0.0.1", "port": 5398, "request": 1, "response": 1})
need(not r["ok"] and "unknown kind" in r["error"], "a bad kind: %s" % r)
r = call({"op": "rr-serve", "kind": "tcp-rr", "addr": "127.0.0.1", "port": 5398, "request": 0, "response": 1})
need(not r["ok"] and "sizes" in r["error"], "a bad size: %s" % r)
r = call({"op": "rr-stop"})
need(r["ok"], "rr-stop: %s" % r)
# what a key pinned to the agent may send: a port outside run --port's range, a CPU this host
# does not have, a size past an int are refused, and nothing listens
serve = {"op": "rr-serve", "kind": "udp-rr", "addr": "127.0.0.1", "port": 5398, "request": 1, "response": 3}
for key, bad in (("port", 70000), ("port", 80), ("port", -1), ("port", "5398"), ("cpu", 1 << 20), ("cpu", -2),
                 ("request", (1 << 32) + 1)):
    for req in (dict(serve, **{key: bad}), {"op": "udp-rx", "addr": "127.0.0.1", "port": 5397, key: bad},
                {"op": "stream-rx", "addr": "127.0.0.1", "peer": "127.0.0.1", "port": 5396, key: bad}):
        if key == "request" and req["op"] != "rr-serve":
            continue
        r = call(req)
        need(not r["ok"] and (key if key != "request" else "sizes") in r.get("error", ""),
             "%s with %s %r: %s" % (req["op"], key, bad, r))
listening = open("/proc/net/udp").read() + open("/proc/net/tcp").read()
need(not any(":%04X " % p in listening for p in (70000 & 0xffff, 80, 65535)), "a refused request listens:\n" + listening)
# the rate receiver: ten datagrams of step 3, two of step 4
r = call({"op": "udp-rx", "addr": "127.0.0.1", "port": 5397, "cpu": -1})
need(r.get("ok"), "udp-rx: %s" % r)
rx_pid = r["pid"]
for step, n in ((3, 10), (4, 2)):
    for _ in range(n):
        s.sendto(struct.pack("!I", step) + b"x" * 60, ("127.0.0.1", 5397))
for _ in range(100):
    c = call({"op": "udp-counts"})
    if c["received"][3] == 10 and c["received"][4] == 2:
        break
    time.sleep(0.02)
need(c["running"] and c["received"][3] == 10 and c["received"][4] == 2 and sum(c["received"]) == 12,
     "udp-counts: %s" % c["received"][:6])
need(c["empty_seq"] >= 1, "udp-counts: the receiver never found its queue empty: %s" % c.get("empty_seq"))
# the run goes: the receiver goes with the agent
agent.stdin.close()
agent.wait(timeout=20)
time.sleep(0.2)
for p in (rx_pid, rr_pid):
    try:
        os.kill(p, 0)
        state = open("/proc/%d/stat" % p).read().split()[2]
        need(state == "Z", "pid %d outlived the agent" % p)
    except ProcessLookupError:
        pass
EOF
[ $? = 0 ] || { cat "$TMP/out" >&2; fail "the agent's request/response and rate requests (above)"; }
exit 0
