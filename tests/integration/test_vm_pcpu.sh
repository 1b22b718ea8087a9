#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Per-CPU SAs (pcpu = yes): a copy of esp-null with pcpu = yes, 2 s, 2
# flows, on the tests' 6.12 kernel (Debian's linux-source-6.12, which has
# per-CPU SAs and ESP) with 2 vCPUs, then on Debian's stock 6.1, which
# lacks them. On 6.12: status ok, the data's way has the fallback SA
# (cpu -1) and an SA for each online CPU (cpu 0 and 1), out at tx and in
# at rx under one SPI each, all SPIs distinct; the per-CPU SAs carried
# the data (their out packets sum above 0, each in SA at most its out
# SA's), the fallback none (every CPU had its own). On 6.1: skipped, the
# reason naming the missing per-CPU SAs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vm_lib.sh"
. "$(dirname "$0")/kernel_lib.sh"

mkdir -p "$TMP/sc"
sed 's/^\[ipsec\]/[ipsec]\npcpu = yes/' "$TOP/scenarios/esp-null.ini" > "$TMP/sc/esp-pcpu.ini"
grep -q '^pcpu = yes' "$TMP/sc/esp-pcpu.ini" || fail "the scenario copy has no pcpu = yes"

kb=$(ktree_base) || fail "the tests' kernel could not be built"
info "kernel: $kb"
"$IPSECPERF" run --testbed vm --kernel "$kb" --vcpus 2 --flows 2 --duration 2 --omit 1 --repeat 1 \
	--scenario-dir "$TMP/sc" -o "$TMP/res" esp-pcpu > "$TMP/stdout" 2> "$TMP/stderr" ||
	{ rc=$?; cat "$TMP/stderr" >&2; fail "run on the tests' kernel exited $rc"; }
assert_vm_clean "run on the tests' kernel"

python3 - "$TMP/res/runs.jsonl" << 'PY' || fail "the per-CPU SAs' record (above)"
import sys
from assert_json import records
def check(r):
    if not (r["status"] == "ok"): raise AssertionError((r["status"], r.get("reason")))
    sas = r.get("sa_load", r["sa"])
    pc = [s for s in sas if "cpu" in s]
    if not (sorted({s["cpu"] for s in pc}) == [-1, 0, 1]): raise AssertionError(pc)
    by = {}
    for s in pc:
        by.setdefault(s["cpu"], {})[(s["dir"], s["netns"])] = s
    for cpu, d in by.items():
        if not (sorted(d) == [("in", "rx"), ("out", "tx")]): raise AssertionError((cpu, sorted(d)))
        if not (d[("in", "rx")]["spi"] == d[("out", "tx")]["spi"]): raise AssertionError((cpu, d))
        if not (d[("in", "rx")]["packets"] <= d[("out", "tx")]["packets"]): raise AssertionError((cpu, d))
    spis = [by[c][("out", "tx")]["spi"] for c in by] + [s["spi"] for s in sas if "cpu" not in s and s["dir"] == "out"]
    if not (len(set(spis)) == len(spis)): raise AssertionError(spis)
    if not (by[-1][("out", "tx")]["packets"] == 0): raise AssertionError(("the fallback carried packets", by[-1]))
    carried = sum(by[c][("out", "tx")]["packets"] for c in (0, 1))
    if not (carried > 0): raise AssertionError(pc)
    print("  per-CPU SAs' out packets: " + ", ".join(f"CPU {c} {by[c][('out', 'tx')]['packets']}" for c in (0, 1))
          + f"; fallback {by[-1][('out', 'tx')]['packets']}", file=sys.stderr)
recs = list(records(sys.argv[1]))
if not (len(recs) == 2): raise AssertionError(f"{len(recs)} records, expected a throughput and a counting repeat")
for r in recs:
    check(r)
PY

k61=$(vm_kernel "$DEB61") || exit $?
info "kernel: $k61"
"$IPSECPERF" run --testbed vm --kernel "$k61" --duration 1 --omit 0 --repeat 1 \
	--scenario-dir "$TMP/sc" -o "$TMP/res61" esp-pcpu > "$TMP/stdout" 2> "$TMP/stderr" || true
assert_vm_clean "run on Debian 6.1"
python3 - "$TMP/res61/runs.jsonl" << 'PY' || { cat "$TMP/stderr" >&2; fail "6.1's record (above)"; }
import sys
from assert_json import records
r = list(records(sys.argv[1]))[0]
if not (r["status"] == "skipped" and "has no per-CPU SAs" in r.get("reason", "")): raise AssertionError((r["status"], r.get("reason")))
PY
exit 0
