#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Several SA pairs on two hosts (run --sas on vm-pair: the peer testbed
# between two Debian 6.1 guests, the receiver's policies and SAs made by
# its agent): esp-null, 2 pairs, 2 flows, 2 s, --probe-set esp. Each pair
# carried its own flow; every SA counted at both ends, each in SA equal
# to its out SA across the link; esp_output per SPI over the whole load
# equals each out SA's packets, exactly, on the sender for the data SAs
# and on the receiver for the way back's; every SA names its pair; no
# IPsec error moved in either guest's xfrm_stat. The agent's refusals of
# bad ports, priorities and reqids: test_peer_agent_run. The counts are
# the whole load's (read once nothing moves), so other tests' guests
# beside it do not skew them.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vm_lib.sh"

k61=$(vm_kernel "$DEB61") || exit $?
info "kernel: $k61 at both ends"
out="$TMP/res"
"$IPSECPERF" run --testbed vm-pair --kernel "$k61" --duration 2 --omit 1 --repeat 1 --count-repeats 0 \
	--flows 2 --sas 2 --probe-set esp -q -o "$out" esp-null > "$TMP/stdout" 2> "$TMP/stderr" ||
	{ rc=$?; cat "$TMP/stderr" "$TMP/stdout" >&2; fail "run exited $rc"; }
assert_vm_clean "after a vm-pair run"

python3 - "$out/runs.jsonl" << 'PY' || fail "the SA pairs' records on vm-pair wrong (above)"
import sys
from assert_json import records
recs = list(records(sys.argv[1]))
if not (len(recs) == 1): raise AssertionError(f"{len(recs)} records, expected one")
r = recs[0]
if not (r["status"] == "ok" and r["testbed"] == "vm-pair"): raise AssertionError(f"{r['status']}: {r.get('reason')}")
if not (r["sas"] == 2 and len(r["sa_pair"]) == 2): raise AssertionError(r.get("sa_pair"))
sas = r["sa_load"]
if not (len(sas) == 8 and len({s["spi"] for s in sas}) == 4): raise AssertionError(sas)
if not ({s["pair"] for s in sas} == {0, 1}): raise AssertionError(sas)
for s in sas:
    if not (s["packets"] > 0 and s["wire_packets"] > 0): raise AssertionError(f"an SA carried nothing: {s}")
    peer = next(t for t in sas if t["spi"] == s["spi"] and t is not s)
    if not (peer["host"] != s["host"] and peer["pair"] == s["pair"] and peer["packets"] == s["packets"]): raise AssertionError((s, peer))
per = {"sender": r["counters"]["esp_output"]["per_sa_load"], "receiver": r["counters_receiver"]["esp_output"]["per_sa_load"]}
for s in sas:
    if s["dir"] == "out":
        if not (per[s["host"]].get(s["spi"], 0) == s["packets"]): raise AssertionError((s, per))
for p in r["sa_pair"]:
    out = next(s for s in sas if s["spi"] == p["spi"] and s["dir"] == "out")
    back = next(s for s in sas if s["spi"] == p["spi_back"] and s["dir"] == "out")
    if not (out["host"] == "sender" and back["host"] == "receiver" and out["pair"] == back["pair"] == p["pair"]): raise AssertionError((p, out, back))
    if not (p["esp_output"] == p["packets"] == out["packets"] and p["esp_output_back"] == p["packets_back"] == back["packets"]): raise AssertionError(p)
    flow = next(f for f in r["flow"] if f["port"] == p["ports"][0])
    if not (len(p["ports"]) == 1 and p["bytes"] == flow["bytes"] > 0): raise AssertionError((p, r["flow"]))
for side in ("sender", "receiver"):
    x = r["xfrm_stat"][side]
    if not (isinstance(x, dict) and "XfrmInNoStates" in x): raise AssertionError(r["xfrm_stat"])
    moved = {k: v for k, v in x.items() if v}
    if moved: raise AssertionError(f"{side}: IPsec errors moved: {moved}")
print("  " + "; ".join(f"pair {p['pair']} (port {p['ports'][0]}): {p['throughput_bps']/1e6:.1f} Mbit/s, "
                       f"{p['packets']} packets = esp_output {p['esp_output']} on the sender, "
                       f"{p['packets_back']} back = esp_output {p['esp_output_back']} on the receiver"
                       for p in r["sa_pair"]), file=sys.stderr)
PY
"$IPSECPERF" report "$out" > "$TMP/report" || fail "report exited $?"
grep -qE '^ *esp-null +r1 +pair 0 ' "$TMP/report" && grep -qE '^ *esp-null +r1 +pair 1 ' "$TMP/report" ||
	{ cat "$TMP/report" >&2; fail "the report has no row per SA pair"; }
exit 0
