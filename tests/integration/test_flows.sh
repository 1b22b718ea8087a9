#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# --flows N: N iperf3 flows at once, each on its own port.
# - netns, --flows 3: one ok record whose "flow" list has 3 flows on ports
#   --port, +1, +2, that each carried bytes; their bytes sum to the
#   record's exactly and their throughputs to its throughput (to the
#   records' rounding), "fairness" is Jain's index of them; each flow left
#   its own raw files; a scenario of the built-in stream is skipped saying
#   it runs one flow;
# - compare refuses a --flows 3 run against a --flows 1 run (the flow count
#   is part of what makes runs comparable), naming the field "flows";
# - the peer testbed (two namespaces for two hosts, peer_lib.sh), --flows 2:
#   both flows ok, the peer's servers on their own ports;
# - --direction on the peer testbed: rx (the peer sends; the record says
#   "direction": "rx", the client's output is the peer's) and both with
#   --flows 1 (two flows, one each way at once, "reverse" on the second,
#   summing to the record). On netns and vm --direction is refused at parse
#   time with one line and exit 2 (test_option_testbeds.sh walks that).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/peer_lib.sh"

check_flows() { # runs.jsonl n port
	python3 - "$@" << 'PY' || fail "the flows do not add up (above)"
import sys
from assert_json import records
rs = records(sys.argv[1])
n, port = int(sys.argv[2]), int(sys.argv[3])
r = next(x for x in rs if x["scenario"] == "clear")
if not (r["status"] == "ok"): raise AssertionError(r.get("reason"))
f = r["flow"]
if not (r["flows"] == n and len(f) == n): raise AssertionError((r["flows"], f))
if not ([x["port"] for x in f] == list(range(port, port + n))): raise AssertionError(f)
if not (all(x["bytes"] > 0 and x["throughput_bps"] > 0 for x in f)): raise AssertionError(f)
if not (sum(x["bytes"] for x in f) == r["bytes"]): raise AssertionError((f, r["bytes"]))
if not (abs(sum(x["throughput_bps"] for x in f) - r["throughput_bps"]) <= 1e-6 * r["throughput_bps"]): raise AssertionError((f, r["throughput_bps"]))
t = [x["throughput_bps"] for x in f]
jain = sum(t) ** 2 / (n * sum(v * v for v in t))
if not (abs(r["fairness"] - jain) < 1e-6 and 1 / n <= r["fairness"] <= 1): raise AssertionError((r["fairness"], jain))
print(f"  {n} flows: {', '.join(f'{v / 1e9:.3f}' for v in t)} Gbit/s, sum {r['throughput_bps'] / 1e9:.3f}, "
      f"fairness {r['fairness']:.4f}", file=sys.stderr)
PY
}

"$IPSECPERF" run -q --flows 3 -t 2 -O 1 -r 1 -o "$TMP/three" clear clear-stream > "$TMP/out" 2> "$TMP/err" ||
	{ rc=$?; cat "$TMP/err" >&2; fail "run --flows 3 exited $rc"; }
check_flows "$TMP/three/runs.jsonl" 3 5201
assert_records "$TMP/three/runs.jsonl" \
	'rs[1]["scenario"] == "clear-stream" and rs[1]["status"] == "skipped" and "runs one flow" in rs[1]["reason"]' \
	"clear-stream not skipped for its one flow"
for k in 1 2 3; do
	[ -s "$TMP/three/raw/clear-r1-f$k-iperf3-client.json" ] || fail "no raw file of flow $k: $(ls "$TMP/three/raw")"
done

"$IPSECPERF" run -q -t 2 -O 1 -r 1 -o "$TMP/one" clear > "$TMP/out" 2> "$TMP/err" ||
	{ rc=$?; cat "$TMP/err" >&2; fail "run of one flow exited $rc"; }
assert_records "$TMP/one/runs.jsonl" '"flows" not in rs[0] and "flow" not in rs[0]' "a run of one flow names flows"
"$IPSECPERF" compare --common "$TMP/one" "$TMP/three" > "$TMP/cmp.out" 2> "$TMP/cmp.err"
rc=$?
[ $rc = 2 ] && grep -q 'flows of scenario clear differs: 1 in base' "$TMP/cmp.err" ||
	{ cat "$TMP/cmp.err" >&2; fail "compare of 1 flow against 3 exited $rc, not 2 naming flows"; }
"$IPSECPERF" compare --common --allow-mismatch flows "$TMP/one" "$TMP/three" > /dev/null 2>&1
[ $? != 2 ] || fail "compare --allow-mismatch flows still refused"

peer_setup
ip netns exec "$PEER_NS_L" "$IPSECPERF" run -q "${PEER_ARGS[@]}" --flows 2 --port 5311 -t 2 -O 1 -r 1 \
	-o "$TMP/peer" clear > "$TMP/out" 2> "$TMP/err" || { rc=$?; cat "$TMP/err" >&2; fail "peer run --flows 2 exited $rc"; }
check_flows "$TMP/peer/runs.jsonl" 2 5311

ip netns exec "$PEER_NS_L" "$IPSECPERF" run -q "${PEER_ARGS[@]}" --direction rx --port 5321 -t 2 -O 1 -r 1 \
	-o "$TMP/rx" clear > "$TMP/out" 2> "$TMP/err" || { rc=$?; cat "$TMP/err" >&2; fail "peer run --direction rx exited $rc"; }
assert_records "$TMP/rx/runs.jsonl" \
	'rs[0]["status"] == "ok" and rs[0]["direction"] == "rx" and rs[0]["bytes"] > 0 and "flow" not in rs[0]' \
	"--direction rx: not one ok record saying rx"
# the client ran on the peer: its JSON names the peer's address as its own end
json_check --arg a "$PEER_ADDR_P" "$TMP/rx/raw/clear-r1-iperf3-client.json" \
	'd["start"]["connected"][0]["local_host"] == a' || fail "--direction rx: the client did not run on the peer"
ip netns exec "$PEER_NS_L" "$IPSECPERF" run -q "${PEER_ARGS[@]}" --direction both --port 5331 -t 2 -O 1 -r 1 \
	-o "$TMP/both" clear > "$TMP/out" 2> "$TMP/err" || { rc=$?; cat "$TMP/err" >&2; fail "peer run --direction both exited $rc"; }
check_flows "$TMP/both/runs.jsonl" 2 5331
assert_records "$TMP/both/runs.jsonl" \
	'rs[0]["direction"] == "both" and [f["reverse"] for f in rs[0]["flow"]] == [False, True]' \
	"--direction both: not a flow each way"
exit 0
