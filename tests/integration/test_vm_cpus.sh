#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Which CPU did the ESP work, on vm-pair: two Debian 6.1 guests of two
# vCPUs each, esp-null with the ESP programs (--probe-set esp), 1 s.
#   - on both guests, each of esp_output, esp_output_tail, esp_input and
#     xfrm_input has one per-CPU count a vCPU (per_cpu, per_cpu_load), and
#     they add up to count and count_load exactly (the same map lookups);
#   - the sender did ESP output and the receiver ESP input (counts > 0);
#   - busy seconds per CPU, both guests (cpu_busy_s.per_cpu,
#     per_cpu_receiver): two each, adding up to the guest's total within
#     the rounding of the ticks;
#   - the text report has the "ESP work per CPU" section with the
#     sender's esp_output and the receiver's esp_input, each with its
#     busiest CPU and its share as the record's counts give them, and
#     "all on one CPU" exactly where they say so;
#   - compare of the run with itself has the busiest CPU's share rows.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vm_lib.sh"

k61=$(vm_kernel "$DEB61") || exit $?
out="$TMP/res"
"$IPSECPERF" run --testbed vm-pair --kernel "$k61" --vcpus 2 --probe-set esp --count-repeats 0 -O 1 -r 1 -t 1 -q \
	-o "$out" esp-null > "$TMP/stdout" 2> "$TMP/stderr" ||
	{ rc=$?; cat "$TMP/stderr" "$TMP/stdout" >&2; fail "run exited $rc"; }
assert_vm_clean "after a vm-pair run"
python3 - "$out/runs.jsonl" << 'PY' || fail "the per-CPU counts are wrong (above)"
import sys
from assert_json import records
rs = records(sys.argv[1])
if not (len(rs) == 1 and rs[0]["status"] == "ok"): raise AssertionError([(r["scenario"], r["status"], r.get("reason")) for r in rs])
r = rs[0]
for side in ("counters", "counters_receiver"):
    for n in ("esp_output", "esp_output_tail", "esp_input", "xfrm_input"):
        c = r[side][n]
        for per, tot in (("per_cpu", "count"), ("per_cpu_load", "count_load")):
            v = c[per]
            print(f"  {side}.{n}: {per} {v}, {tot} {c[tot]}", file=sys.stderr)
            if not (len(v) == 2 and all(isinstance(x, int) and x >= 0 for x in v)): raise AssertionError((side, n, per, v))
            if not (sum(v) == c[tot]): raise AssertionError((side, n, per, v, tot, c[tot]))
if not (r["counters"]["esp_output"]["count"] > 0 and r["counters_receiver"]["esp_input"]["count"] > 0):
    raise AssertionError("no ESP work counted")
b = r["cpu_busy_s"]
print(f"  busy: {b}", file=sys.stderr)
for per, tot in (("per_cpu", "sender"), ("per_cpu_receiver", "receiver")):
    if not (len(b[per]) == 2 and abs(sum(b[per]) - b[tot]) < 0.011): raise AssertionError((per, b[per], tot, b[tot]))
PY
"$IPSECPERF" report "$out" > "$TMP/report.txt" || fail "report exited $?"
grep -q '^ESP work per CPU' "$TMP/report.txt" || { cat "$TMP/report.txt" >&2; fail "no ESP work per CPU section"; }
python3 - "$out/runs.jsonl" "$TMP/report.txt" << 'PY' || fail "the report's spread is wrong (above)"
import re, sys
from assert_json import records
r = records(sys.argv[1])[0]
text = open(sys.argv[2]).read()
sec = text.split("ESP work per CPU", 1)[1].split("\n\n\n", 1)[0]
print(sec, file=sys.stderr)
for side, n, label in (("counters", "esp_output", "esp_output"), ("counters_receiver", "esp_input", "esp_input@receiver")):
    v = r[side][n]["per_cpu"]
    line = next((l for l in sec.splitlines() if label in l.split()), None)
    if line is None: raise AssertionError(f"no line for {label}")
    top = max(range(len(v)), key=lambda i: v[i])
    share = 100 * v[top] / sum(v)  # printed with no decimals: either neighbour of a .5
    if not (f"cpu{top} " in line and any(f" {s}%" in line for s in {int(share), int(share) + 1})): raise AssertionError((label, v, line))
    one = sum(1 for x in v if x) == 1
    if not (one == ("one CPU" in line)): raise AssertionError((label, v, line, "one CPU" in line))
PY
# compare sees a change in spread: the same record with the receiver's
# esp_input split evenly over its two vCPUs (a copy; compare refuses a
# directory with itself)
cp -r "$out" "$TMP/even"
python3 - "$TMP/even/runs.jsonl" << 'PY' || fail "cannot make the even copy"
import json, sys
r = json.loads(open(sys.argv[1]).read())
c = r["counters_receiver"]["esp_input"]
c["per_cpu"] = [c["count"] // 2, c["count"] - c["count"] // 2]
r["start"] = "2000-01-01T00:00:00Z"
open(sys.argv[1], "w").write(json.dumps(r) + "\n")
PY
"$IPSECPERF" compare "$out" "$TMP/even" > "$TMP/compare.txt" || fail "compare exited $?"
python3 - "$out/runs.jsonl" "$TMP/compare.txt" << 'PY' || { cat "$TMP/compare.txt" >&2; fail "compare's busiest-CPU rows are wrong (above)"; }
import sys
from assert_json import records
r = records(sys.argv[1])[0]
rows = {l.split("    ")[-1].strip(): l.split() for l in open(sys.argv[2]) if "top CPU %" in l}
v = r["counters_receiver"]["esp_input"]["per_cpu"]
base = 100 * max(v) / sum(v)
got = rows["esp_input@receiver top CPU %"]
print(f"  compare: esp_input@receiver {got[:4]}, from {v}", file=sys.stderr)
if not (abs(float(got[0]) - base) < 0.06 and abs(float(got[3]) - 50) < 0.06): raise AssertionError(got)
if "esp_output top CPU %" not in rows: raise AssertionError(rows.keys())
PY
exit 0
