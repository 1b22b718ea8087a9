#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Counted by default, measured clean: on Debian's stock 6.1 and 6.12 in the
# VM testbed, a default `run -r 3 esp-null` makes 3 throughput repeats with
# the default probe set (the ESP counters unavailable there) and one
# counting repeat ("purpose": "count") with the ESP programs attached.
#   - the report's throughput and cycles are the 3 throughput repeats'
#     (n 3; the median theirs exactly), never the counting repeat's;
#   - its per-packet table has memmove_transport_output and
#     kmalloc_esp_output from the counting repeat, at 1.0 per ESP packet
#     over its whole load (per_packet_load): there they equal the out SAs'
#     wire packets exactly, but for what a kprobe missed (unsaid() before 6.7);
#   - a --count-repeats 0 run has no counting repeat, and its throughput
#     median agrees with the default run's within TCG's noise on a shared
#     host (a factor of 3: 6.12 measured 0.071 against 0.135 Gbit/s once,
#     with other tests' VMs beside it);
#   - the report says in one line which repeats counted and which measured.
# 6.12 is skipped when it cannot be fetched; 6.1 is required.
#
# run-all: alone (beside other tests' guests, TCG's throughput swung by a
# factor of 4 between the two runs: 0.039 against 0.158 Gbit/s on 6.12)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vm_lib.sh"

vm_debian_kernels || exit $?
for n in default 0; do
	opts=()
	[ "$n" = default ] || opts=(--count-repeats "$n")
	"$IPSECPERF" run --testbed vm "${kernels[@]}" "${opts[@]}" -r 3 -t 1 -O 1 -o "$TMP/res-$n" esp-null \
		> "$TMP/stdout" 2> "$TMP/stderr" || { rc=$?; cat "$TMP/stderr" "$TMP/stdout" >&2; fail "run ($n) exited $rc"; }
	"$IPSECPERF" report --format json "$TMP/res-$n" > "$TMP/report-$n.json" || fail "report ($n) exited $?"
done
"$IPSECPERF" report "$TMP/res-default" > "$TMP/report.txt" || fail "text report exited $?"
nk=${#kernels[@]}; nk=$((nk / 2))
grep -q "^repeats   $((3 * nk)) measured (throughput, cycles: probes default), $nk counted" "$TMP/report.txt" ||
	fail "the text report does not say which repeats counted: $(grep -A1 '^repeats' "$TMP/report.txt")"

python3 - "$TMP" << 'PY' || fail "counting repeats wrong (above)"
import statistics, sys
from assert_json import document, probe_equals_sa, records, slack
tmp = sys.argv[1]
recs = records(f"{tmp}/res-default/runs.jsonl")
rep = document(f"{tmp}/report-default.json")
off = records(f"{tmp}/res-0/runs.jsonl")
rep0 = document(f"{tmp}/report-0.json")
kernels = sorted({r["kernel"] for r in recs})
if not (any(k.startswith("6.1.") for k in kernels)): raise AssertionError(kernels)
if not (not any(r.get("purpose") for r in off)): raise AssertionError("--count-repeats 0 made a counting repeat")
if not (rep["sources"][0]["runs_counted"] == len(kernels) and rep0["sources"][0]["runs_counted"] == 0): raise AssertionError(rep["sources"])
ESP = ("memmove_transport_output", "kmalloc_esp_output")
def row(rep, kernel, metric):
    return next(x for x in rep["rows"] if x["kernel"] == kernel and x["metric"] == metric)
for k in kernels:
    mine = [r for r in recs if r["kernel"] == k]
    tput = [r for r in mine if "purpose" not in r]
    cnt = [r for r in mine if r.get("purpose") == "count"]
    if not (len(tput) == 3 and len(cnt) == 1): raise AssertionError((k, [(r["repeat"], r.get("purpose")) for r in mine]))
    if not (all(r["status"] == "ok" for r in mine)): raise AssertionError([(r["repeat"], r.get("reason")) for r in mine])
    c = cnt[0]
    for r in tput:  # the throughput repeats keep the cheap default set
        for n in ESP:
            if not (r["counters"][n].get("count") is None and "not in the default probe set" in r["counters"][n]["symbol"]): raise AssertionError(r["counters"][n])
    # the report's throughput and cycles: the throughput repeats', exactly
    t = row(rep, k, "throughput")
    if not (t["n"] == 3): raise AssertionError(t)
    if not (abs(t["median"] - statistics.median(r["throughput_bps"] / 1e9 for r in tput)) < 1e-9): raise AssertionError((t, tput))
    if not (row(rep, k, "cycles_per_byte")["n"] == 3): raise AssertionError
    # the per-packet table: the counting repeat's, at 1.0 per ESP packet on the wire
    wire = sum(s["wire_packets"] for s in c["sa_load"] if s["dir"] == "out")
    # exact but for what a kprobe missed: said (probe_missed), or before 6.7 unsaid()
    # (Debian 6.1 once counted 21,106 memmoves for 21,107 wire packets, none said)
    short = slack(c, wire)
    for n in ESP:
        x = row(rep, k, n)
        print(f"  {k}: {n} {x['median']:.4f} per packet over the load ({c['counters'][n]['per_packet']:.4f} in the window);"
              f" load {c['counters'][n]['count_load']}, SAs' wire packets {wire}", file=sys.stderr)
        if not (wire - short <= c["counters"][n]["count_load"] <= wire): raise AssertionError((n, c["counters"][n], wire, short))
        # the table's figure is the counting repeat's whole load: exact
        if not (x["n"] == 1 and abs(x["median"] - c["counters"][n]["per_packet_load"]) < 1e-9): raise AssertionError((x, c["counters"][n]))
        if not (1.0 - short / wire - 1e-9 <= x["median"] <= 1.0 + 1e-9): raise AssertionError((x, short, wire))
    probe_equals_sa(c, "esp_output", "packets")
    # measured clean: the same statistics as without counting repeats, within TCG's noise
    # (two runs minutes apart on a shared 2-CPU host under TCG differ by up to 2x: a factor
    # of 3 bounds only gross errors; the exact check is the median above, the throughput repeats' own)
    a, b = t["median"], row(rep0, k, "throughput")["median"]
    print(f"  {k}: throughput median {a:.4f} Gbit/s with counting repeats, {b:.4f} without", file=sys.stderr)
    if not (1 / 3 <= a / b <= 3): raise AssertionError((a, b))
PY
exit 0
