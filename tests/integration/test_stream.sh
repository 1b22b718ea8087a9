#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The built-in stream (load = stream): clear-stream and tcp-md5 for 2 s.
# Their records carry every field an iperf3 record (clear) does; the raw
# summary is written; while tcp-md5 runs, the kernel holds an MD5 key on
# the connection in both namespaces (ss's md5keys, counted, never shown);
# the key appears nowhere in what the run wrote.
. "$(dirname "$0")/lib.sh"

export IPSECPERF_JOURNAL_DIR="$TMP/journal"
out="$TMP/res"
"$IPSECPERF" run --quiet -t 2 -O 1 -r 1 -o "$out" clear clear-stream > "$TMP/stdout" 2> "$TMP/stderr" ||
	{ rc=$?; cat "$TMP/stderr" >&2; fail "run exited $rc"; }
python3 - "$out/runs.jsonl" << 'PY' || fail "stream records differ from iperf3's (above)"
import sys
from assert_json import records
recs = {r["scenario"]: r for r in records(sys.argv[1])}
a, b = recs["clear"], recs["clear-stream"]
if not (a["status"] == b["status"] == "ok"): raise AssertionError((a.get("reason"), b.get("reason")))
missing = set(a) - set(b)
if not (not missing): raise AssertionError(f"the stream's record lacks {sorted(missing)}")
if not (b["load"] == "stream" and a["load"] == "iperf3"): raise AssertionError
if not (b["bytes"] > 0 and b["throughput_bps"] > 1e8 and isinstance(b["retransmits"], int)): raise AssertionError
if not (abs(b["duration_s"] - 2) < 0.2): raise AssertionError(b["duration_s"])
if not (abs(b["throughput_bps"] - b["bytes"] * 8 / b["duration_s"]) < 1e-3 * b["throughput_bps"]): raise AssertionError
PY
[ -s "$out/raw/clear-stream-r1-stream.json" ] || fail "no raw stream summary"

# tcp-md5, with a look at the sockets while it runs
"$IPSECPERF" run --quiet -t 4 -O 0 -r 1 -o "$TMP/md5" tcp-md5 > "$TMP/md5.out" 2> "$TMP/md5.err" &
pid=$!
wait_for_netns $pid 10 || fail "tcp-md5: the run did not start"
keys=0
for _ in $(seq 30); do
	sleep 0.2
	# counts only: ss would print the key itself
	tx=$(ip netns exec "$(run_netns $pid tx)" ss -tnie state established 2> /dev/null | grep -c 'md5keys:')
	rx=$(ip netns exec "$(run_netns $pid rx)" ss -tnie state established 2> /dev/null | grep -c 'md5keys:')
	if [ "${tx:-0}" -ge 1 ] && [ "${rx:-0}" -ge 1 ]; then
		keys=1
		break
	fi
done
wait $pid || { rc=$?; cat "$TMP/md5.err" >&2; fail "tcp-md5 run exited $rc"; }
[ $keys = 1 ] || fail "no MD5 key on the established sockets in both namespaces"
assert_records "$TMP/md5/runs.jsonl" '[(r["status"], r["load"]) for r in rs] == [("ok", "stream")]' "tcp-md5 not ok"
exit 0
