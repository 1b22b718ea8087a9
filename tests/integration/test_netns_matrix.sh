#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The seed's three clear-text scenarios, 2 s each, in namespaces the run
# makes: a real throughput, cycles per byte above zero, the results
# directory complete, and nothing left behind.
. "$(dirname "$0")/lib.sh"

snapshot > "$TMP/before"
out="$TMP/res"
"$IPSECPERF" run --quiet --duration 2 --omit 1 --repeat 1 -o "$out" clear no-tso no-gso \
	> "$TMP/stdout" 2> "$TMP/stderr" || { cat "$TMP/stderr" >&2; fail "run exited $?"; }
snapshot > "$TMP/after"
assert_same_snapshot "$TMP/before" "$TMP/after" "after a successful run"

[ -s "$out/meta.json" ] || fail "no meta.json"
[ "$(wc -l < "$out/runs.jsonl")" = 3 ] || fail "expected 3 records, got $(wc -l < "$out/runs.jsonl")"
[ "$(jq_lines "$out/runs.jsonl" 'r["status"]' | sort -u)" = ok ] || fail "a run was not ok"
jq_lines "$out/runs.jsonl" 'r["scenario"]' | tr '\n' ' ' | grep -qx 'clear no-tso no-gso ' ||
	fail "scenarios out of order"
# 100 Mbit/s is far below what veth does anywhere; it only proves data moved
jq_lines "$out/runs.jsonl" 'r["throughput_bps"] > 1e8' | grep -q False && fail "throughput too low"
jq_lines "$out/runs.jsonl" 'r["cycles_per_byte"] > 0' | grep -q False && fail "cycles per byte not > 0"
jq_lines "$out/runs.jsonl" 'r["cycles_method"] in ("pmu", "estimated")' | grep -q False &&
	fail "cycles_method missing"
jq_lines "$out/runs.jsonl" 'r["cpu_busy_s"]["sender"] > 0 and r["cpu_busy_s"]["receiver"] >= 0' |
	grep -q False && fail "busy CPU not recorded per side"
ls "$out/raw/clear-r1-iperf3-client.json" > /dev/null || fail "raw iperf3 output missing"
python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
for k in ("tool_version", "command", "host", "cpu_model", "cpu_count", "testbed", "kernels",
          "iperf3_version", "scenarios"):
    assert k in m, k
assert m["kernels"][0]["release"]
assert [s["name"] for s in m["scenarios"]] == ["clear", "no-tso", "no-gso"]
assert m["command"][:2] == ["ipsecperf", "run"] and m["command"][-3:] == ["clear", "no-tso", "no-gso"], m["command"]
' "$out/meta.json" || fail "meta.json incomplete"
grep -q '^clear ' "$TMP/stdout" || fail "no summary row for clear"
grep -q "results: $out" "$TMP/stdout" || fail "no results line"
exit 0
