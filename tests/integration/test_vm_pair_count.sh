#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Counting repeats on two hosts: the vm-pair testbed (the peer testbed run
# between Debian 6.1 guests; TEST_VM_PAIR_RX=6.12 puts 6.12 at the
# receiving end) with --count-repeats 2 and the default probe set. esp-null gets
# 1 throughput repeat, whose ESP counters say they are not in the default
# set, and 2 counting repeats ("purpose": "count", numbered 1 and 2) whose
# ESP programs counted on both guests: the sender's kmalloc_esp_output once
# per TCP segment sent (2%; esp-null sends one ESP packet a segment), the
# receiver's counters present too (its agent attached the set the counting
# repeat asked for), its esp_input within the window's slack of its in SAs'
# packets and, over the whole load (its agent's snapshots at the load's
# edges), equal to them per SPI, short by at most the runs its kernel
# skipped and said it did, with one kmalloc_esp_input each (on a 6.1
# receiver, which does not count the kprobe runs it skips, within 2%).
# Over the whole load the sender's kmalloc_esp_output and
# memmove_transport_output equal its out SAs' wire packets read at the
# load's edges ("sa_load", now written on the peer testbeds too) exactly, but
# for what a 6.1 sender's kprobes miss unsaid (at most 1 in 10,000).
# clear, without SAs, gets none. The report counts 2 measured and 2
# counted.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vm_lib.sh"

k61=$(vm_kernel "$DEB61") || exit $?
# The receiver on 6.1, or with TEST_VM_PAIR_RX=6.12 on 6.12: its kernel
# counts the kprobe runs it skips (6.7+), so its esp_input is held exact
# too. Not the default: a 6.12 receiver under TCG panicked in two of two
# runs of tools/axes-example.sh (6.12 at both ends, one vCPU each: a double
# fault in kmem_cache_alloc_node, a fault in net_rx_action;
# docs/vm-pair-testbed.md), though not in four runs of this test.
rx=$k61
if [ "${TEST_VM_PAIR_RX:-}" = 6.12 ]; then
	rx=$(vm_kernel "$DEB612") || exit $?
fi
info "kernels: $k61 sends, $rx receives"
out="$TMP/res"
"$IPSECPERF" run --testbed vm-pair --kernel "$k61" --peer-kernel "$rx" -O 1 -r 1 -t 1 -q --count-repeats 2 -o "$out" \
	clear esp-null \
	> "$TMP/stdout" 2> "$TMP/stderr" || { rc=$?; cat "$TMP/stderr" "$TMP/stdout" >&2; fail "run exited $rc"; }
assert_vm_clean "after a vm-pair run"
assert_records "$out/runs.jsonl" \
	'[(r["scenario"], r["repeat"], r.get("purpose"), r["status"]) for r in rs] == [("clear", 1, None, "ok"), ("esp-null", 1, None, "ok"), ("esp-null", 1, "count", "ok"), ("esp-null", 2, "count", "ok")]' \
	"not clear, esp-null and esp-null's two counting repeats, all ok"
python3 - "$out/runs.jsonl" "$rx" << 'PY' || fail "the counting repeats did not count on both guests (above)"
import sys
from assert_json import probe_equals_sa, records, slack
rs = records(sys.argv[1])
t = rs[1]
if not ("not in the default probe set" in t["counters"]["kmalloc_esp_output"]["symbol"]): raise AssertionError(t["counters"]["kmalloc_esp_output"])
for c in rs[2:]:
    k = c["counters"]["kmalloc_esp_output"]
    wire = sum(s["wire_packets"] for s in c["sa"] if s["dir"] == "out" and s["host"] == "sender")
    print(f"  count r{c['repeat']}: sender kmalloc_esp_output {k['count']} in the window, {wire} ESP packets out", file=sys.stderr)
    # once per ESP packet: against the segments sent (the kernel's counter, read with
    # the programs); the SAs are read at other moments on two hosts, their window is looser
    if not (k["count"] > 0 and 0.98 <= k["per_tcp_segment"] <= 1.02 and 0.8 <= k["count"] / wire <= 1.05): raise AssertionError((k, wire))
    rx = c["counters_receiver"]
    if not (rx["esp_output"].get("count") is not None): raise AssertionError(rx["esp_output"])
    # the receive path on the receiver, against its in SAs over the window (read by its agent)
    rx_in = sum(s["packets"] for s in c["sa"] if s["dir"] == "in" and s["host"] == "receiver")
    e = rx["esp_input"]
    print(f"  count r{c['repeat']}: receiver esp_input {e.get('count')} in the window, {rx_in} ESP packets in", file=sys.stderr)
    if not (e.get("count") and 0.8 <= e["count"] / rx_in <= 1.05): raise AssertionError((e, rx_in))
    # and over the whole load, its agent's snapshots at the load's edges: exact against its in SAs
    missed = (c.get("probe_missed_receiver") or {}).get("load") or 0
    rx_sa = [s for s in c["sa_load"] if s["host"] == "receiver"]
    if "6.12." in sys.argv[2]:
        probe_equals_sa({"scenario": "esp-null (receiver)", "counters": rx, "probe_missed": c.get("probe_missed_receiver"),
                         "sa_load": rx_sa}, "esp_input", "packets", "in")
    else:
        # 6.1 does not count the kprobe runs it skips: on one vCPU, a softirq's esp_input
        # inside another of our programs is lost unsaid (seen: 27 of 3,048)
        for s in (s for s in rx_sa if s["dir"] == "in"):
            got = rx["esp_input"]["per_sa_load"].get(s["spi"], 0)
            print(f"  receiver (6.1): esp_input {s['spi']} {got} calls, SA packets {s['packets']}", file=sys.stderr)
            if not (0.98 * s["packets"] <= got <= s["packets"]): raise AssertionError((s, got))
    # one tmp buffer per esp_input; on one vCPU a softirq's kmalloc inside our own running
    # program is a run the kernel skips (probe_missed_receiver says how many)
    # (each short by the runs skipped: against the packets the in SAs received)
    km = rx["kmalloc_esp_input"]["count_load"]
    n = sum(s["packets"] for s in rx_sa if s["dir"] == "in")
    print(f"  count r{c['repeat']}: receiver kmalloc_esp_input {km}, {n} ESP packets in over the load, {missed} runs missed",
          file=sys.stderr)
    if not ((n - missed <= km <= n) if "6.12." in sys.argv[2] else 0.98 * n <= km <= n): raise AssertionError((km, n, missed))
    # the whole load, quiet at both ends: the sender's SAs read at its edges ("sa_load"), exact
    load = sum(s["wire_packets"] for s in c["sa_load"] if s["dir"] == "out" and s["host"] == "sender")
    print(f"  count r{c['repeat']}: over the load {k['count_load']} kmallocs, {load} ESP packets out (sa_load)", file=sys.stderr)
    # (on a 6.1 sender short by what its kprobes missed unsaid, at most 1 in 10,000: slack())
    short = slack(c, load)
    for n in ("kmalloc_esp_output", "memmove_transport_output"):
        if not (load - short <= c["counters"][n]["count_load"] <= load): raise AssertionError((n, c["counters"][n], load, short))
PY
"$IPSECPERF" report "$out" > "$TMP/report.txt" || fail "report exited $?"
grep -q '^repeats   2 measured (throughput, cycles: probes default), 2 counted' "$TMP/report.txt" ||
	fail "the report's repeats line: $(grep -A1 '^repeats' "$TMP/report.txt")"
exit 0
