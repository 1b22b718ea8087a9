#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The request/response loads (tcp-rr, tcp-crr, udp-rr) and the packet-rate
# load (udp-rate) on the netns testbed, 1 s each, the rate search in short
# steps: their records (transactions, latency percentiles in order, the
# histogram in raw/ holding every measured transaction, figures per
# transaction and datagram, the search's steps, the receiver's count
# against the kernel's own UDP counters), the host as it was, the reports
# (text, summary, CSV, JSON, HTML with the latency plot), and compare on
# transactions per second and each percentile (synthetic runs: the gate,
# the direction, the note on the tail's transactions).
. "$(dirname "$0")/lib.sh"

export IPSECPERF_JOURNAL_DIR="$TMP/journal"
sc="$TMP/scenarios"
mkdir -p "$sc"
cp "$TOP"/scenarios/{tcp-rr,tcp-crr,udp-rr,udp-rate}.ini "$sc"/
# tcp-rr with sizes of its own, a response of several segments; the search in 150 ms steps
sed -i 's/^request = 1$/request = 100/; s/^response = 1$/response = 3000/' "$sc/tcp-rr.ini"
printf 'step-ms = 150\nsteps = 5\n' >> "$sc/udp-rate.ini"

# What run PID left: its namespaces, a process it started (they carry this
# test's lane), a journal. Only its own: other runs may share the host.
export IPSECPERF_TEST_LANE=${IPSECPERF_TEST_LANE:-test_rr-$$}
left_by() { # pid
	local p
	ip netns list | grep "^ipsecperf-$1-" || true
	for p in $(pgrep -x ipsecperf) $(pgrep -x iperf3); do
		tr '\0' '\n' 2> /dev/null < "/proc/$p/environ" | grep -qxF "IPSECPERF_TEST_LANE=$IPSECPERF_TEST_LANE" &&
			echo "process $p: $(tr '\0' ' ' < "/proc/$p/cmdline" 2> /dev/null)"
	done
	ls "$IPSECPERF_JOURNAL_DIR" 2> /dev/null | grep "journal-" || true
}
"$IPSECPERF" run --quiet --scenario-dir "$sc" -t 1 -O 1 -r 1 -o "$TMP/res" tcp-rr tcp-crr udp-rr udp-rate \
	> "$TMP/run.out" 2> "$TMP/run.err" &
pid=$!
wait $pid
rc=$?
# 1: a run failed, which udp-rate may on a host too busy for any rate without loss (checked below)
[ $rc = 0 ] || [ $rc = 1 ] || { cat "$TMP/run.err" >&2; fail "run exited $rc"; }
left=$(left_by $pid)
[ -z "$left" ] || fail "the run left on the host: $left"
res="$TMP/res/runs.jsonl"
assert_records "$res" '[(r["scenario"], r["status"], r["load"]) for r in rs[:3]] == [("tcp-rr", "ok", "tcp-rr"),
	("tcp-crr", "ok", "tcp-crr"), ("udp-rr", "ok", "udp-rr")] and rs[3]["scenario"] == "udp-rate"' \
	"not tcp-rr, tcp-crr and udp-rr ok, then udp-rate"
[ $rc = 0 ] || assert_records "$res" 'rs[3]["status"] == "failed"' "run exited 1 though udp-rate did not fail"

python3 - "$TMP/res" << 'PY' || fail "the request/response records (above)"
import json, math, sys
from assert_json import records
d = sys.argv[1]
for r in records(d + "/runs.jsonl")[:3]:
    s = r["scenario"]
    if not (r["unit"] == "transaction"): raise AssertionError(s)
    n, lat = r["transactions"], r["latency_ns"]
    if not (n > 0 and abs(r["transactions_per_s"] - n / r["duration_s"]) < 1e-6 * r["transactions_per_s"]):
        raise AssertionError((s, n, r["transactions_per_s"], r["duration_s"]))
    if not (0 < lat["min"] <= lat["p50"] <= lat["p90"] <= lat["p99"] <= lat["p99.9"] <= lat["max"]): raise AssertionError((s, lat))
    qs = [q for q, _ in r["latency_cdf"]]
    vs = [v for _, v in r["latency_cdf"]]
    if not (qs == sorted(qs) and vs == sorted(vs) and qs[0] == 0 and qs[-1] == 1 and vs[-1] == lat["max"]): raise AssertionError(s)
    # the histogram in raw/ holds exactly the measured transactions, the warm-up's apart
    raw = json.load(open("%s/raw/%s-r1-rr.json" % (d, s)))
    h = raw["histogram"]
    if not (h["count"] == n == sum(b[2] for b in h["buckets"]) and h["max"] == lat["max"]): raise AssertionError(s)
    if not (raw["warmup_transactions"] > 0 and raw["transactions_all"] >= n + raw["warmup_transactions"]): raise AssertionError(s)
    if not (r["bytes"] == n * (r["request_bytes"] + r["response_bytes"])): raise AssertionError(s)
    if not (abs(r["cycles_per_transaction"] - r["cycles"] / n) < 1e-6 * r["cycles_per_transaction"]): raise AssertionError(s)
    c = r["counters"]["xmit_skbs"]
    if not (abs(c["per_transaction"] - c["count"] / n) < 1e-8 * c["per_transaction"]): raise AssertionError(s)  # 10 digits written
    # one request and one response a transaction (TSO makes tcp-rr's 3000 bytes one skb, and
    # its two full segments get an ACK at once: 3); TCP's handshake and close a few more (a
    # new connection a transaction for tcp-crr). Over the whole load (the probes' count_load,
    # quiet at both ends) against every transaction the requester completed: no window edge
    # in between, so the bounds hold at any load; ARP's request and reply go through the veth
    # too (a few, with a neighbour entry confirmed again); TCP may send a pure ACK at each end
    # when the next segment is late (at most one each a transaction: delayed ACKs on a busy host)
    all_ = raw["transactions_all"]
    lo, hi = {"tcp-rr": (3, 5), "udp-rr": (2, 2), "tcp-crr": (6, 12)}[s]
    if not (lo * all_ <= c["count_load"] <= hi * all_ + 24 + raw["lost_all"]): raise AssertionError((s, all_, c))
    if s == "udp-rr" and not (c["count_load"] <= 2 * all_ + 6 + raw["lost_all"]): raise AssertionError((s, all_, c))
rr = records(d + "/runs.jsonl")[0]
if not ((rr["request_bytes"], rr["response_bytes"]) == (100, 3000)): raise AssertionError(rr["request_bytes"])
if not (records(d + "/runs.jsonl")[2]["lost_transactions"] >= 0): raise AssertionError('records(d + "/runs.jsonl")[2]["lost_transactions"] >= 0')
PY

python3 - "$TMP/res" << 'PY' || fail "the packet-rate record (above)"
import json, sys
from assert_json import records
r = records(sys.argv[1] + "/runs.jsonl")[3]
s = json.load(open(sys.argv[1] + "/raw/udp-rate-r1-udp-rate.json"))["rate_search"]
if not (r["unit"] == "datagram" and 1 <= s["nsteps"] == len(s["steps"]) <= 5 and s["steps"][0]["offered_pps"] == 0):
    raise AssertionError(s)
for st in s["steps"]:
    if not (0 <= st["loss"] <= 1 and st["pass"] == (st["loss"] <= s["loss_threshold"])): raise AssertionError(st)
    if not (abs(st["loss"] - (st["sent"] - min(st["received"], st["sent"])) / st["sent"]) < 1e-9): raise AssertionError(st)
if r["status"] != "ok":
    # a host too busy for any rate without loss (a stall overflows the socket), or a step that
    # failed below one that passed (a sender that fell short): said, with the steps kept
    if not (r["status"] == "failed" and r["reason"].startswith("no offered rate lost at most 0.1%")
            and not all(st["pass"] for st in s["steps"])): raise AssertionError(r["reason"])
    print("  udp-rate: no rate without loss on this busy host: %s" % r["reason"], file=sys.stderr)
    sys.exit(0)
if not (r["datagram_bytes"] == 64 and r["datagrams"] > 0): raise AssertionError(r)
if not (s["found_pps"] == max(st["sent_pps"] for st in s["steps"] if st["pass"])): raise AssertionError(s)
# the receiver's count and the kernel's, exactly: what the sockets took in the window
k = r["kernel_drops"]
if not (k["receiver"]["UdpInDatagrams"] == r["datagrams"]): raise AssertionError((k, r["datagrams"]))
if not (k["sender"]["UdpOutDatagrams"] + k["sender"].get("UdpSndbufErrors", 0) == r["datagrams_sent"]): raise AssertionError(k)
if not (r["kernel_drops_load"]["receiver"]["UdpInDatagrams"] >= r["datagrams"]): raise AssertionError(r["kernel_drops_load"])
if not (abs(r["datagrams_per_s"] - r["datagrams"] / r["duration_s"]) < 1e-6 * r["datagrams_per_s"]): raise AssertionError(r)
if not (abs(r["cycles_per_datagram"] - r["cycles"] / r["datagrams"]) < 1e-6 * r["cycles_per_datagram"]): raise AssertionError(r)
PY
python3 "$TOP/tests/integration/doc_keys.py" "$TOP/docs/results-format.md" "$TMP/res" >&2 ||
	fail "the loads write keys docs/results-format.md does not have (above)"

# --- the reports ---------------------------------------------------------------
"$IPSECPERF" report "$TMP/res" > "$TMP/report.txt" || fail "report exited $?"
for want in "Request/response: transactions per second" "Latency, microseconds" "Packet rate: datagrams per second" \
	"per transaction for the request/response scenarios"; do
	grep -q "$want" "$TMP/report.txt" || { cat "$TMP/report.txt" >&2; fail "the text report lacks '$want'"; }
done
"$IPSECPERF" report --summary "$TMP/res" | grep -q "^tcp-crr " || fail "the summary has no tcp-crr row"
"$IPSECPERF" report -f csv "$TMP/res" > "$TMP/report.csv" || fail "report -f csv exited $?"
for m in transactions_per_s latency_p50 latency_p99.9 latency_max cycles_per_transaction datagrams_per_s loss \
	cycles_per_datagram; do
	grep -q ",$m," "$TMP/report.csv" || fail "the CSV report has no $m row"
done
"$IPSECPERF" report -f json -o "$TMP/report.json" "$TMP/res" || fail "report -f json exited $?"
assert_json "$TMP/report.json" '[(r["metric"], r["higher_is_better"]) for r in d["rows"] if r["scenario"] == "udp-rr"][:3] ==
	[("transactions_per_s", True), ("latency_p50", False), ("latency_p90", False)]' "the JSON report's udp-rr rows"
"$IPSECPERF" report -f html -o "$TMP/report.html" "$TMP/res" || fail "report -f html exited $?"
grep -q "Latency distribution, per percentile" "$TMP/report.html" && grep -q "<th>p99.9, &micro;s</th>" "$TMP/report.html" ||
	fail "the HTML report has no latency plot or no percentile table"

# --- compare: synthetic runs, 5 a side --------------------------------------
syn() { python3 "$TOP/tests/integration/synth_results.py" "$@"; }
syn "$TMP/base" --scenarios tcp-rr,udp-rate --seed 1
syn "$TMP/slow" --scenarios tcp-rr,udp-rate --seed 2 --scale tcp-rr=0.8
"$IPSECPERF" compare "$TMP/base" "$TMP/slow" > "$TMP/cmp.txt" 2>&1
rc=$?
[ $rc = 1 ] || { cat "$TMP/cmp.txt" >&2; fail "a 20% fall in transactions/s: compare exited $rc, not 1"; }
tr '\n' ' ' < "$TMP/cmp.txt" | tr -s ' ' |
	grep -q "the gate: transactions_per_s, cycles_per_transaction, datagrams_per_s, cycles_per_datagram worse" ||
	fail "the default gate does not name each unit's metrics"
"$IPSECPERF" compare -f json "$TMP/base" "$TMP/slow" > "$TMP/cmp0.json"
# the gate: transactions/s; each percentile compared, worse (higher) and flagged, not gating
assert_json "$TMP/cmp0.json" '[(r["scenario"], r["metric"]) for r in d["rows"] if r["regression"]] == [("tcp-rr", "transactions_per_s")]' \
	"the default gate's regressions are not tcp-rr's transactions_per_s alone"
assert_json "$TMP/cmp0.json" '[(r["metric"], r["higher_is_better"], r["direction"], r["flag"]) for r in d["rows"]
	if r["scenario"] == "tcp-rr" and r["metric"].startswith("latency_")] ==
	[(m, False, "worse", "-") for m in ("latency_p50", "latency_p90", "latency_p99", "latency_p99.9", "latency_max")]' \
	"the latency percentiles are not each worse and flagged -"
# the latency gates when asked for
"$IPSECPERF" compare -m latency_p99 -f json "$TMP/base" "$TMP/slow" > "$TMP/cmp.json"
[ $? = 1 ] || fail "-m latency_p99: not a regression"
assert_json "$TMP/cmp.json" '[r["metric"] for r in d["rows"] if r.get("regression")] == ["latency_p99"]' \
	"-m latency_p99: the regressions are not latency_p99 alone"
# a run's tail on few transactions: said, with the count it needs
python3 - "$TMP/slow/runs.jsonl" << 'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
for r in recs:
    if r["scenario"] == "tcp-rr":
        r["transactions"] = 2000
open(sys.argv[1], "w").write("".join(json.dumps(r) + "\n" for r in recs))
PY
"$IPSECPERF" compare "$TMP/base" "$TMP/slow" > "$TMP/cmp2.txt" 2>&1
tr '\n' ' ' < "$TMP/cmp2.txt" | tr -s ' ' | grep -q "fewer in tcp-rr p99.9 (2000 a run, 10000 needed)" ||
	{ cat "$TMP/cmp2.txt" >&2; fail "no note on the p99.9 of runs of 2000 transactions"; }

# --- dry run: the loads' commands ------------------------------------------------
"$IPSECPERF" run --dry-run --scenario-dir "$sc" -t 1 tcp-crr udp-rate > "$TMP/dry.out" 2>&1 || fail "dry run exited $?"
grep -q "^# tcp-crr (built in): responder in .* requester in" "$TMP/dry.out" &&
	grep -q "^# udp-rate (built in): 64-byte datagrams" "$TMP/dry.out" || { cat "$TMP/dry.out" >&2; fail "dry run: no load lines"; }
exit 0
