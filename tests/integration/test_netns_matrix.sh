#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The seed's three clear-text scenarios, 2 s each, in namespaces the run
# makes: a real throughput, busy CPU time and cycles per byte as the
# kernel's counters read by another program over the same window and CPUs
# give them (cpu_check.py, whose docstring says each bound), the results
# directory complete, and nothing left behind.
. "$(dirname "$0")/lib.sh"

snapshot > "$TMP/before"
out="$TMP/res"
"$IPSECPERF" run --quiet --duration 2 --omit 1 --repeat 1 -o "$out" clear no-tso no-gso \
	> "$TMP/stdout" 2> "$TMP/stderr" &
run=$!
python3 "$TOP/tests/integration/cpu_check.py" sample "$TMP/cpu.json" $run &
sampler=$!
wait $run || { rc=$?; cat "$TMP/stderr" >&2; fail "run exited $rc"; }
wait $sampler || fail "the CPU sampler exited $?"
snapshot > "$TMP/after"
assert_same_snapshot "$TMP/before" "$TMP/after" "after a successful run"

[ -s "$out/meta.json" ] || fail "no meta.json"
assert_records "$out/runs.jsonl" '[r["scenario"] for r in rs] == ["clear", "no-tso", "no-gso"]' \
	"expected the records of clear, no-tso, no-gso in order"
assert_jsonl "$out/runs.jsonl" 'r["status"] == "ok"' "a run was not ok"
# 100 Mbit/s is far below what veth does anywhere; it only proves data moved
assert_jsonl "$out/runs.jsonl" 'r["throughput_bps"] > 1e8' "throughput too low"
assert_jsonl "$out/runs.jsonl" 'r["cycles_per_byte"] > 0' "cycles per byte not > 0"
assert_jsonl "$out/runs.jsonl" 'r["cycles_method"] in ("pmu", "estimated")' "cycles_method missing"
# instructions beside the cycles, from the PMU on the same CPUs and window; without one, null and why
assert_jsonl "$out/runs.jsonl" '(r["instructions_method"] == "pmu" and r["instructions"] > 0 and r["instructions_per_byte"] > 0) or
	(r["instructions_method"].startswith("unavailable: perf_event_open(instructions): ") and
	 len(r["instructions_method"]) > len("unavailable: perf_event_open(instructions): ") and
	 "instructions" in r and r.get("instructions") is None and "instructions_per_byte" in r and r.get("instructions_per_byte") is None)' "instructions: neither counted nor said why not"
assert_jsonl "$out/runs.jsonl" 'r["cpu_busy_s"]["sender"] > 0 and r["cpu_busy_s"]["receiver"] >= 0' \
	"busy CPU not recorded per side"
python3 "$TOP/tests/integration/cpu_check.py" check "$TMP/cpu.json" "$out" || exit 1
ls "$out/raw/clear-r1-iperf3-client.json" > /dev/null || fail "raw iperf3 output missing"
m="$out/meta.json"
assert_json "$m" 'all(k in d for k in ("tool_version", "command", "host", "cpu_model", "cpu_count", "testbed",
	"kernels", "iperf3_version", "scenarios"))' "meta.json incomplete"
assert_json "$m" 'd["kernels"][0]["release"] != ""' "meta.json: no kernel release"
assert_json "$m" '[s["name"] for s in d["scenarios"]] == ["clear", "no-tso", "no-gso"]' "meta.json: not the scenarios"
assert_json "$m" 'd["command"][:2] == ["ipsecperf", "run"] and d["command"][-3:] == ["clear", "no-tso", "no-gso"]' \
	"meta.json: not the command"
grep -q '^clear ' "$TMP/stdout" || fail "no summary row for clear"
grep -q "results: $out" "$TMP/stdout" || fail "no results line"
exit 0
