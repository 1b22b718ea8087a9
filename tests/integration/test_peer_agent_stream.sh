#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The peer agent's stream receiver (collector/testbed/peer_agent.c), once the sender has
# closed and stream-bytes has reaped it: stream-stop signals no pid (it
# would be another process's once the pid is reused, and the agent runs as
# root) and answers at once. The agent runs on a pipe under strace, in a
# network namespace of its own (unshare: gone with the test's processes).
. "$(dirname "$0")/lib.sh"

command -v strace > /dev/null || skip_ours "no strace (make deps installs it)"
command -v unshare > /dev/null || skip_ours "no unshare"

unshare -n python3 - "$IPSECPERF" "$TMP/strace" > "$TMP/out" 2>&1 << 'EOF'
import json, socket, subprocess, sys, time
subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
agent = subprocess.Popen(["strace", "-f", "-qq", "-e", "trace=kill,tgkill", "-o", sys.argv[2], sys.argv[1], "peer-agent"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
def call(req):
    agent.stdin.write(json.dumps(req) + "\n")
    agent.stdin.flush()
    return json.loads(agent.stdout.readline())
r = call({"op": "stream-rx", "addr": "127.0.0.1", "peer": "127.0.0.1", "port": 5399, "method": "", "cpu": -1})
if not r.get("ok"):
    sys.exit("stream-rx: %s" % r)
print("receiver", r["pid"])
s = socket.create_connection(("127.0.0.1", 5399))
s.sendall(b"x" * 100000)
s.close()
for _ in range(100):  # until the receiver has read to the end and exited, reaped here
    b = call({"op": "stream-bytes"})
    if not b["running"]:
        break
    time.sleep(0.05)
else:
    sys.exit("the receiver did not end after the sender closed")
t = time.monotonic()
r = call({"op": "stream-stop"})
print("stop took %.2f" % (time.monotonic() - t))
agent.stdin.close()
agent.wait(timeout=20)
if not r.get("ok") or r["bytes"] != 100000:
    sys.exit("stream-stop: %s" % r)
EOF
[ $? = 0 ] || { cat "$TMP/out" >&2; fail "the agent's stream did not run as it should"; }
rx=$(awk '/^receiver/ { print $2 }' "$TMP/out")
took=$(awk '/^stop took/ { print $3 }' "$TMP/out")
if grep -E "kill\(-?$rx," "$TMP/strace" >&2; then
	fail "stream-stop signalled the receiver $rx after stream-bytes had reaped it"
fi
python3 -c "import sys; sys.exit(float('$took') >= 1)" || fail "stream-stop took $took s for a receiver that had ended"
exit 0
