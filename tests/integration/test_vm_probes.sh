#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The probes proved against the kernel's own counters, on stock Debian 6.1
# and 6.12 kernels in the VM testbed (kprobes, BTF, esp4 there; not on
# every host). 6.12 is skipped when it cannot be fetched; 6.1 is required.
# Over the whole load, quiet at both ends:
#   esp-null:     esp_output calls per SPI == that SA's packet counter;
#   esp-null-gso: esp_output_tail calls per SPI == that SA's oseq advance,
#                 and esp_output is not called at all.
# Both: kmalloc_esp_output == kfree_esp_output == esp_output_tail over the
# load, and every counter attached (none unavailable; esp_gro_receive where
# esp4_offload is loaded); in no-gso, the ESP programs not attached at all
# (only ESP scenarios get them).
# The receive path, both: esp_input calls per SPI == the receiving SA's
# packet counter; one kmalloc_esp_input per esp_input; xfrm_input at least
# once per esp_input; esp_gro_merged (GRO merging a decrypted packet into
# another) above 0 and below esp_input where GRO decrypts, 0 where the
# decrypted packets do not reach GRO (esp-null: no esp4_offload).
# With --probe-set all, xmit through the BTF tracepoint (bpf_rdonly_cast
# where the kernel has it, 6.12), and its counts against the kernel's own
# (device statistics, Tcp OutSegs + RetransSegs): whole load exact for
# skbs (short by at most the runs the kernel skipped and said it did),
# window within 0.5%.
#
# run-all: alone (the window's 0.5% holds on a quiet host: beside another
# test, the guest's collector is descheduled between the programs' counts
# and the kernel's, and the two edges drift apart by more)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vm_lib.sh"

vm_debian_kernels || exit $?
out="$TMP/res"
"$IPSECPERF" run --testbed vm "${kernels[@]}" --probe-set all --duration 3 --omit 1 --repeat 1 -o "$out" \
	no-gso esp-null esp-null-gso > "$TMP/stdout" 2> "$TMP/stderr" ||
	{ rc=$?; cat "$TMP/stderr" "$TMP/stdout" >&2; fail "run exited $rc"; }

python3 - "$out/runs.jsonl" << 'PY' || fail "probe counts do not match the kernel's (above)"
import sys
from assert_json import probe_equals_sa, records, slack
allrecs = records(sys.argv[1])
kernels = sorted({r["kernel"] for r in allrecs})
if not (any(k.startswith("6.1.") for k in kernels)): raise AssertionError(kernels)
for kernel in kernels:
  recs = {r["scenario"]: r for r in allrecs if r["kernel"] == kernel}
  print(f"  {kernel}", file=sys.stderr)
  if not (sorted(recs) == ["esp-null", "esp-null-gso", "no-gso"]): raise AssertionError((kernel, sorted(recs)))
  for name, r in recs.items():
      if not (r["status"] == "ok"): raise AssertionError((name, r.get("reason")))
      c = r["counters"]
      for n, v in c.items():
          esp_only = n in ("esp_output", "esp_output_tail", "xfrm_transport_output", "memmove_transport_output",
                           "memmove_transport_input", "kmalloc_esp_output", "kfree_esp_output",
                           "esp_input", "xfrm_input", "esp_gro_receive", "esp_gro_merged", "kmalloc_esp_input")
          if name == "no-gso" and esp_only:
              if not (v.get("count") is None and "the scenario has no SAs" in v["symbol"]): raise AssertionError((name, n, v))
              continue
          if n == "esp_gro_receive" and "esp4_offload is not loaded" in v["symbol"]:
              continue
          if not (v.get("count") is not None): raise AssertionError((name, n, v["symbol"]))
      # the xmit program against the kernel's own counters of the same events
      for n in ("xmit_skbs", "xmit_segs"):
          k = c[n]["kernel"]
          print(f"  {name} {n}: program {c[n]['count']} / {c[n]['count_load']}, kernel {k['count']} / {k['count_load']}"
                f" (window / load)", file=sys.stderr)
          if not (abs(c[n]["count"] - k["count"]) <= 0.005 * k["count"]): raise AssertionError((name, n, c[n], k))
      # exact, but for the runs the kernel skipped and said it did (another of our programs
      # running on that CPU: 6.12 once counted 398,290 skbs against the program's 398,289)
      missed = (r.get("probe_missed") or {}).get("load") or 0
      k = c["xmit_skbs"]["kernel"]["count_load"]
      if missed:
          print(f"  {name}: {missed} program runs skipped by the kernel over the load", file=sys.stderr)
      if not (k - missed <= c["xmit_skbs"]["count_load"] <= k): raise AssertionError((name, c["xmit_skbs"], missed))
      # segments: the program counts the links' non-TCP packets too (ARP, IPv6 ND/MLD), Tcp OutSegs does not
      if not (0 <= c["xmit_segs"]["count_load"] - c["xmit_segs"]["kernel"]["count_load"] <= 32): raise AssertionError((name, c["xmit_segs"]))

  probe_equals_sa(recs["esp-null"], "esp_output", "packets")
  probe_equals_sa(recs["esp-null-gso"], "esp_output_tail", "wire_packets")
  g = recs["esp-null-gso"]["counters"]
  if not (g["esp_output"]["count_load"] == 0): raise AssertionError(g["esp_output"])
  for name in ("esp-null", "esp-null-gso"):
      c = recs[name]["counters"]
      # kprobe counts beside others: equal, but for what a kprobe missed (said, or before 6.7 unsaid())
      short = slack(recs[name], c["kmalloc_esp_output"]["count_load"])
      # over the whole load: in the window a buffer may be allocated before its close and freed after
      t = c["esp_output_tail"]["count_load"]
      if not (abs(c["kmalloc_esp_output"]["count_load"] - c["kfree_esp_output"]["count_load"]) <= short): raise AssertionError((name, c, short))
      if not (0 <= c["kmalloc_esp_output"]["count_load"] - t <= short): raise AssertionError((name, c, short))
      if not (abs(c["memmove_transport_output"]["count_load"] - c["xfrm_transport_output"]["count_load"]) <= short): raise AssertionError((name, c))
      # the study's figures, per ESP packet on the wire: one tmp kmalloc, one output memmove (esp-null)
      if name == "esp-null":
          wire = sum(s["wire_packets"] for s in recs[name]["sa_load"] if s["dir"] == "out")
          if not (0 <= wire - c["kmalloc_esp_output"]["count_load"] <= short): raise AssertionError((wire, c, short))
          if not (0 <= wire - c["memmove_transport_output"]["count_load"] <= short): raise AssertionError((wire, c, short))
      if not ("call-site kprobe at " in c["memmove_transport_output"]["symbol"]): raise AssertionError(c["memmove_transport_output"])
  # the receive path, against the receiving SAs
  for name in ("esp-null", "esp-null-gso"):
      probe_equals_sa(recs[name], "esp_input", "packets", "in")
      c = recs[name]["counters"]
      e = c["esp_input"]["count_load"]
      g = c["esp_gro_receive"]
      print(f"  {name}: esp_input {e}, xfrm_input {c['xfrm_input']['count_load']},"
            f" kmalloc_esp_input {c['kmalloc_esp_input']['count_load']} ({c['kmalloc_esp_input']['bytes']} bytes in the window),"
            f" esp_gro_receive {g.get('count_load', g['symbol'])}", file=sys.stderr)
      short = slack(recs[name], e)
      if not (0 <= c["kmalloc_esp_input"]["count_load"] - e <= short): raise AssertionError((name, c["kmalloc_esp_input"], e, short))
      if not (c["xfrm_input"]["count_load"] >= e - short): raise AssertionError((name, c["xfrm_input"], e, short))
      # merges of decrypted packets: only where GRO decrypted them (esp4_offload, esp-null-gso), and each
      # merge takes one decrypted packet into another; without it the inner packets never reach GRO
      m = c["esp_gro_merged"]["count_load"]
      print(f"  {name}: esp_gro_merged {m} ({m / e:.3f} of the ESP packets received)", file=sys.stderr)
      if g.get("count_load"):
          if not (0 < m < e): raise AssertionError((name, g, m, e))
      else:
          if not (m == 0): raise AssertionError((name, c["esp_gro_merged"]))
  n = recs["no-gso"]["counters"]
  if not (n["tcp_gso_segment"]["count"] > 0 and n["xmit_skbs"]["count"] == n["xmit_segs"]["count"]): raise AssertionError(n)
  # the loader's choice of xmit program: 6.1 lacks bpf_rdonly_cast (6.2+)
  how = n["xmit_segs"]["symbol"]
  print(f"  no-gso: {how}", file=sys.stderr)
  if not (how.startswith("BTF tracepoint")): raise AssertionError(how)
  if not (("bpf_probe_read_kernel" if kernel.startswith("6.1.") else "bpf_rdonly_cast") in how): raise AssertionError(how)
PY
exit 0
