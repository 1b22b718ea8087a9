#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# --flows on the vm testbed: Debian 6.1 in the guest, clear with --flows 2.
# - the guest gets the vCPUs the flows need: 4 (a sender's and a
#   receiver's a flow), said in the record's "vm": {"vcpus"};
# - one ok record with two flows on ports 5201 and 5202 that each carried
#   bytes, summing to the record's, each flow's sender and receiver pinned
#   to CPUs of their own (four distinct CPUs);
# - --vcpus 2 gives the guest 2, and the flows then share them;
# - vm-pair (Debian 6.1 at both ends), --flows 2 --direction both: four
#   flows, two each way ("reverse" on the receiver's), each guest with 4
#   vCPUs (one a flow at once), summing to the record; and clear-mtu9000
#   there too (the wire between the guests takes 9000-byte frames).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vm_lib.sh"

k61=$(vm_kernel "$DEB61") || exit $?
for v in default 2; do
	opts=()
	[ "$v" = default ] || opts=(--vcpus "$v")
	"$IPSECPERF" run -q --testbed vm --kernel "$k61" "${opts[@]}" --flows 2 -t 1 -O 1 -r 1 \
		-o "$TMP/res-$v" clear > "$TMP/out" 2> "$TMP/err" ||
		{ rc=$?; cat "$TMP/err" >&2; fail "run --flows 2 (vcpus $v) exited $rc"; }
done
"$IPSECPERF" run -q --testbed vm-pair --kernel "$k61" --flows 2 --direction both -t 1 -O 1 -r 1 \
	-o "$TMP/res-pair" clear clear-mtu9000 > "$TMP/out" 2> "$TMP/err" ||
	{ rc=$?; cat "$TMP/err" >&2; fail "vm-pair run --flows 2 --direction both exited $rc"; }
assert_vm_clean "after the vm runs"
python3 - "$TMP" << 'PY' || fail "the guest's flows are wrong (above)"
import sys
from assert_json import records
tmp = sys.argv[1]
for v, want in (("default", 4), ("2", 2)):
    r = records(f"{tmp}/res-{v}/runs.jsonl")[0]
    if not (r["status"] == "ok"): raise AssertionError(r.get("reason"))
    if not (r["vm"]["vcpus"] == want): raise AssertionError((v, r["vm"]))
    f = r["flow"]
    if not (r["flows"] == 2 and [x["port"] for x in f] == [5201, 5202]): raise AssertionError(f)
    if not (all(x["bytes"] > 0 for x in f) and sum(x["bytes"] for x in f) == r["bytes"]): raise AssertionError((f, r["bytes"]))
    cpus = [c for x in f for c in (x["cpu_sender"], x["cpu_receiver"])]
    gbps = ", ".join("%.3f" % (x["throughput_bps"] / 1e9) for x in f)
    print(f"  vcpus {r['vm']['vcpus']}: flows on CPUs {cpus}, {gbps} Gbit/s", file=sys.stderr)
    if want == 4:
        if not (sorted(cpus) == [0, 1, 2, 3]): raise AssertionError(cpus)
pair = records(f"{tmp}/res-pair/runs.jsonl")
# the wire between the guests carries their 9000-byte frames
m = pair[1]
if not (m["scenario"] == "clear-mtu9000" and m["status"] == "ok" and m["bytes"] > 0): raise AssertionError((m["scenario"], m["status"], m.get("reason")))
r = pair[0]
if not (r["status"] == "ok"): raise AssertionError(r.get("reason"))
f = r["flow"]
if not (r["direction"] == "both" and r["vm"]["vcpus"] == 4 and len(f) == 4): raise AssertionError((r.get("direction"), r["vm"], f))
if not ([bool(x.get("reverse")) for x in f] == [False, True, False, True]): raise AssertionError(f)
if not (all(x["bytes"] > 0 for x in f) and sum(x["bytes"] for x in f) == r["bytes"]): raise AssertionError((f, r["bytes"]))
gbps = ", ".join("%.3f%s" % (x["throughput_bps"] / 1e9, " (rx)" if x.get("reverse") else "") for x in f)
print(f"  vm-pair, both ways: {gbps} Gbit/s", file=sys.stderr)
PY
exit 0
