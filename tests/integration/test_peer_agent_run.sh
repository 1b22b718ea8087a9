#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The peer agent's "run" request (run/peer_agent.c): one program from an
# argv, no shell, its exit status and output in the answer, as ssh would
# give them. What the answer cannot carry (output past its cap, output that
# is not UTF-8) and what is not an argv are said, never sent half: the run
# then asks ssh (testbed/endpoint.c). The agent is started here on a pipe,
# as ssh starts it on the peer.
. "$(dirname "$0")/lib.sh"

cat > "$TMP/req" <<'EOF'
{"op":"run","argv":["sh","-c","printf out; printf err >&2; exit 3"]}
{"op":"run","argv":["printf","\\377\\376"]}
{"op":"run","argv":["sh","-c","yes | head -c 30000"]}
{"op":"run","argv":[]}
{"op":"run","argv":["echo",7]}
{"op":"run","argv":"echo hi"}
{"op":"run","argv":["/nonexistent/program"]}
{"op":"run","argv":["printenv","IPSECPERF_AGENT_RUN_TEST"]}
EOF
IPSECPERF_AGENT_RUN_TEST=inherited timeout --kill-after=5 30 "$IPSECPERF" peer-agent < "$TMP/req" \
	> "$TMP/ans" 2> "$TMP/err" || fail "the agent exited $? at the end of its input: $(cat "$TMP/err")"
[ "$(wc -l < "$TMP/ans")" = 8 ] || { cat "$TMP/ans" >&2; fail "not one answer a request"; }
python3 - "$TMP/ans" <<'EOF' || fail "the agent's answers to run are not as they should be"
import json, sys
a = [json.loads(l) for l in open(sys.argv[1])]
def want(i, cond, what):
    if not cond:
        sys.exit("answer %d (%s): %s" % (i + 1, what, a[i]))
want(0, a[0]["ok"] and a[0]["status"] == 3 and a[0]["out"] == "out" and a[0]["err"] == "err", "status, out and err")
want(1, not a[1]["ok"] and a[1].get("binary") is True and "out" not in a[1], "not UTF-8: said, not sent")
want(2, not a[2]["ok"] and a[2].get("too_long") is True and "out" not in a[2], "too long: said, not sent")
for i in (3, 4, 5):
    want(i, not a[i]["ok"] and "argv" in a[i]["error"], "not an argv of strings")
want(6, a[6]["ok"] and a[6]["status"] not in (0, 255), "a program that is not there")
want(7, a[7]["ok"] and a[7]["status"] == 0 and a[7]["out"] == "inherited\n", "the session's environment")
EOF
exit 0
