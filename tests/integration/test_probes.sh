#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The probe counters on this kernel: every counter in every record, each
# either counted (with how it was attached) or null with its reason; the
# GSO effect seen from the kernel's own counters (the default set: no-gso
# hands one segment per skb to the device, clear hands superpackets) and
# from net:net_dev_start_xmit (--probe-set all), and the two against each
# other; probe --list agrees; the ESP programs left out of clear
# scenarios.
# Then the same with the raw tracepoint instead of the BTF-typed one, and
# through the fallback without BPF (tracefs events counted
# by perf_event_open, IPSECPERF_PROBE_BACKEND=perf), which must leave
# tracefs as it found it.
#
# run-all: alone (tracefs is the host's: a test beside it would change what
# it checks is left as found; and the window's 0.5% holds on a quiet host)
. "$(dirname "$0")/lib.sh"

NAMES="esp_output esp_output_tail xfrm_transport_output memmove_transport_output
memmove_transport_input kmalloc_esp_output kfree_esp_output esp_input
xfrm_input esp_gro_receive esp_gro_merged kmalloc_esp_input skb_segment tcp_gso_segment
xmit_skbs xmit_segs"

"$IPSECPERF" probe --list > "$TMP/list" 2> "$TMP/list.err" || fail "probe --list exited $?"
for n in $NAMES; do
	grep -q "^$n " "$TMP/list" || fail "probe --list has no row for $n"
done
grep -q '^xmit_segs .*tracepoint' "$TMP/list" ||
	skip "net:net_dev_start_xmit cannot be probed here: $(grep '^xmit_segs' "$TMP/list")"

out="$TMP/res"
# no-gso first: see the note on the scenario order in docs/probes.md
"$IPSECPERF" run --quiet --duration 2 --omit 1 --repeat 1 -o "$out" no-gso clear \
	> "$TMP/stdout" 2> "$TMP/stderr" || { rc=$?; cat "$TMP/stderr" >&2; fail "run exited $rc"; }
"$IPSECPERF" run --quiet --probe-set all --duration 2 --omit 1 --repeat 2 -o "$out-all" no-gso clear \
	> "$TMP/stdout" 2> "$TMP/stderr" || { rc=$?; cat "$TMP/stderr" >&2; fail "--probe-set all run exited $rc"; }
# (what a run leaves behind is test_restore.sh's and test_leftovers.sh's)

check_counters() { # runs.jsonl backend
python3 - "$1" "$NAMES" "$2" <<'PY'

import os, sys
from assert_json import records
names = sys.argv[2].split()
kprobes = os.path.exists("/sys/bus/event_source/devices/kprobe/type")
recs = {}
for r in records(sys.argv[1]):
    recs[r["scenario"]] = r
    c = r["counters"]
    if not (sorted(c) == sorted(names)): raise AssertionError(("counter names", sorted(c)))
    for n, v in c.items():
        if not ("count" in v and "per_packet" in v and "symbol" in v): raise AssertionError((n, v))
        if v.get("count") is None:
            if not (v["symbol"].startswith("unavailable: ") and len(v["symbol"]) > 20): raise AssertionError((n, v))
        else:
            if not (isinstance(v["count"], int) and v["count"] >= 0): raise AssertionError((n, v))
            if not (not v["symbol"].startswith("unavailable")): raise AssertionError((n, v))
    for n in ("xmit_skbs", "xmit_segs"):
        if not (c[n]["count"] > 100): raise AssertionError((r["scenario"], n, c[n]))
        if sys.argv[3] == "kernel":
            if not (c[n]["symbol"].startswith("device statistics tx_packets + tx_dropped of ipp-tx and ipp-rx"
                                             if n == "xmit_skbs" else "Tcp OutSegs + RetransSegs (/proc/net/snmp)")): raise AssertionError(c[n])
            if not ("kernel" not in c[n]): raise AssertionError(c[n])
        elif sys.argv[3] == "bpf":
            if not ("tracepoint net:net_dev_start_xmit" in c[n]["symbol"]): raise AssertionError(c[n])
        elif sys.argv[3] == "raw-tp":
            if not (c[n]["symbol"].startswith("raw tracepoint net:net_dev_start_xmit")): raise AssertionError(c[n])
        else:
            if not ("net:net_dev_start_xmit" in c[n]["symbol"] and "perf_event_open" in c[n]["symbol"]): raise AssertionError(c[n])
    # xmit_segs is the per-TCP-segment base of a clear scenario
    if not (c["xmit_segs"]["per_tcp_segment"] == 1.0): raise AssertionError(c["xmit_segs"])
    if not kprobes or sys.argv[3] == "perf":
        if not ("kprobe" in c["skb_segment"]["symbol"]): raise AssertionError(c["skb_segment"])
    # a clear scenario: no ESP program attached (it would count nothing of the scenario's),
    # in any probe set: the reason is that, not the set (the reports leave such rows out)
    why = "the scenario has no SAs"
    if sys.argv[3] != "perf":
        for n in ("esp_output", "memmove_transport_output", "kmalloc_esp_output", "kfree_esp_output",
                  "esp_input", "xfrm_input", "esp_gro_merged", "kmalloc_esp_input"):
            if not (c[n].get("count") is None and (why in c[n]["symbol"] or "no kprobes" in c[n]["symbol"])): raise AssertionError(c[n])
ng, cl = recs["no-gso"]["counters"], recs["clear"]["counters"]
# the GSO effect: segmented before the device without GSO, superpackets with it
if sys.argv[3] == "kernel":
    # two counters read one after the other while packets flow, and the links' non-TCP packets in skbs only
    if not (abs(ng["xmit_segs"]["count"] - ng["xmit_skbs"]["count"]) <= 32 + 0.001 * ng["xmit_skbs"]["count"]): raise AssertionError(("no-gso", ng["xmit_skbs"], ng["xmit_segs"]))
else:
    if not (ng["xmit_segs"]["count"] == ng["xmit_skbs"]["count"]): raise AssertionError(("no-gso", ng["xmit_skbs"], ng["xmit_segs"]))
if not (cl["xmit_segs"]["count"] > 2 * cl["xmit_skbs"]["count"]): raise AssertionError(("clear", cl["xmit_skbs"], cl["xmit_segs"]))
if kprobes and sys.argv[3] in ("bpf", "kernel"):
    # software GSO: every superpacket is cut by tcp_gso_segment -> skb_segment
    if not (ng["tcp_gso_segment"]["count"] > 0 and ng["skb_segment"]["count"] >= ng["tcp_gso_segment"]["count"]): raise AssertionError(ng)
    if not (cl["tcp_gso_segment"]["count"] == 0): raise AssertionError(cl["tcp_gso_segment"])
print("  %s: no-gso: %d skbs = %d segments; clear: %d skbs, %d segments" % (sys.argv[3],
    ng["xmit_skbs"]["count"], ng["xmit_segs"]["count"], cl["xmit_skbs"]["count"], cl["xmit_segs"]["count"]),
    file=sys.stderr)
PY
}
check_counters "$out/runs.jsonl" kernel || fail "counters (see above)"
check_counters "$out-all/runs.jsonl" bpf || fail "counters of --probe-set all (see above)"

# the program's counts against the kernel's own counters of the same events:
# within 0.5% over the window (edges read while packets flow); over the
# whole load (quiet at both ends) skbs equal the veth statistics, or the
# program is short (on a host where other runs attach to the tracepoint);
# segments differ by the links' non-TCP packets (ARP, IPv6 ND/MLD: the
# program counts them, Tcp OutSegs does not)
python3 - "$out-all/runs.jsonl" <<'PY' || fail "the xmit program and the kernel's counters disagree (above)"
import sys
from assert_json import records
for r in records(sys.argv[1]):
    for n in ("xmit_skbs", "xmit_segs"):
        c = r["counters"][n]
        k = c["kernel"]
        print(f"  {r['scenario']} r{r['repeat']} {n}: program {c['count']}/{c['count_load']}, "
              f"kernel {k['count']}/{k['count_load']} (window/load)", file=sys.stderr)
        if not (abs(c["count"] - k["count"]) <= 0.005 * k["count"]): raise AssertionError((r["scenario"], n, c))
    skb, seg = r["counters"]["xmit_skbs"], r["counters"]["xmit_segs"]
    # exact in the VM test; on a shared host the program can be short (never over), by up to
    # 0.08% seen: docs/probes.md, "Two counts of one event"
    if not (0 <= skb["kernel"]["count_load"] - skb["count_load"] <= 0.005 * skb["count_load"]): raise AssertionError(skb)
    if not (abs(seg["count_load"] - seg["kernel"]["count_load"]) <= 64 + 0.005 * seg["count_load"]): raise AssertionError(seg)
PY

# --probe-overhead: each repeat with and without the probes, back to back;
# --probe-cost: the kernel's run time of the programs in the record
"$IPSECPERF" run --quiet --probe-overhead --probe-set tracepoints --duration 1 --omit 1 --repeat 2 \
	-o "$out-ov" no-gso > "$TMP/ov.out" 2> "$TMP/stderr" || { rc=$?; cat "$TMP/stderr" >&2; fail "--probe-overhead run exited $rc"; }
grep -Eq '^no-gso +2 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +- \(fewer than 6 pairs\)$' "$TMP/ov.out" ||
	{ cat "$TMP/ov.out" >&2; fail "no overhead line for no-gso"; }
"$IPSECPERF" run --quiet --probe-cost --probe-set tracepoints --duration 1 --omit 1 --repeat 1 \
	-o "$out-cost" no-gso > /dev/null 2> "$TMP/stderr" || { rc=$?; cat "$TMP/stderr" >&2; fail "--probe-cost run exited $rc"; }
python3 - "$out-ov" "$out-cost" <<'PY' || fail "--probe-overhead/--probe-cost results (see above)"
import sys
from assert_json import document, records
ov = document(sys.argv[1] + "/probe-overhead.json")["no-gso"]
if not (len(ov["on_bps"]) == 2 and len(ov["off_bps"]) == 2 and len(ov["pairs_bps"]) == 2): raise AssertionError(ov)
if not (0.3 < ov["ratio"] < 3 and ov["paired_ratio_interval"] == [None, None]): raise AssertionError(ov)
recs = records(sys.argv[1] + "/runs.jsonl")
if not (sorted(r["scenario"] for r in recs) == ["no-gso"] * 2 + ["no-gso+noprobes"] * 2): raise AssertionError(recs)
for r in recs:
    x = r["counters"]["xmit_skbs"]
    if r["scenario"] == "no-gso":
        if not (x["count"] > 100 and "probe_cost" not in r): raise AssertionError(r)  # timing costs: only with --probe-cost
    else:
        if not (r["probes"] == "off" and x.get("count") is None and "detached" in x["symbol"]): raise AssertionError(r)
        if not (any(abs(r["throughput_bps"] - p[1]) < 1e3 for p in ov["pairs_bps"])): raise AssertionError((r, ov))
cost = records(sys.argv[2] + "/runs.jsonl")[0]["probe_cost"]
if not (cost["runs"] > 100 and 0 < cost["ns_per_run"] < 100000): raise AssertionError(cost)
PY

# the raw tracepoint that kernels without BTF-typed tracepoints get
IPSECPERF_PROBE_BACKEND=raw-tp "$IPSECPERF" run --quiet --probe-set all --duration 2 --omit 1 --repeat 1 -o "$out-raw" \
	no-gso clear > "$TMP/stdout" 2> "$TMP/stderr" || { rc=$?; cat "$TMP/stderr" >&2; fail "raw-tp run exited $rc"; }
check_counters "$out-raw/runs.jsonl" raw-tp || fail "raw tracepoint counters (see above)"

mount | grep ' type tracefs ' | sort > "$TMP/tracefs-before"
IPSECPERF_PROBE_BACKEND=perf "$IPSECPERF" run --quiet --probe-set all --duration 2 --omit 1 --repeat 1 -o "$out-perf" \
	no-gso clear > "$TMP/stdout" 2> "$TMP/stderr" || { rc=$?; cat "$TMP/stderr" >&2; fail "perf run exited $rc"; }
mount | grep ' type tracefs ' | sort > "$TMP/tracefs-after"
diff -u "$TMP/tracefs-before" "$TMP/tracefs-after" >&2 || fail "the perf fallback left tracefs changed"
check_counters "$out-perf/runs.jsonl" perf || fail "fallback counters (see above)"
exit 0
