#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The vm testbed's virtual clock (run --clock virtual; docs/vm-testbed.md):
#   - the dry run shows qemu counting instructions on one thread and one
#     vCPU (-accel tcg,thread=single -icount shift=0,sleep=off,align=off
#     -smp 1), whatever KVM can do here;
#   - vm-pair refuses --clock virtual (exit 2, one line saying why) and
#     --clock auto is the real clock there;
#   - clear and esp-null on Debian's 6.1, 3 repeats of 1 s each: every
#     record and meta.json say the virtual clock, instructions_per_byte is
#     there and above 0 (instructions_method icount), and each scenario's
#     throughput repeats lie within 0.5% of their median however loaded
#     this host is (plain TCG: 4% and 14% here);
#   - compare refuses (exit 2, one line naming the clocks) to set the
#     virtual-clock results against the same results said to be real.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/assert_lib.sh"
. "$(dirname "$0")/vm_lib.sh"

k61=$(vm_kernel "$DEB61") || exit $?

"$IPSECPERF" run --testbed vm --kernel "$k61" --clock virtual --dry-run -t 1 esp-null > "$TMP/dry" 2> "$TMP/dry.err" ||
	{ rc=$?; cat "$TMP/dry.err" >&2; fail "dry run exited $rc"; }
grep -q '^qemu-system-x86_64 -accel tcg,thread=single .*-smp 1 .*-icount shift=0,sleep=off,align=off ' "$TMP/dry" ||
	fail "the dry run's qemu does not count instructions on one vCPU: $(grep qemu-system "$TMP/dry" | cut -c1-300)"
grep -q '^# clock: virtual' "$TMP/dry" || fail "the dry run does not say the clock: $(grep '^#' "$TMP/dry")"

rc=0
"$IPSECPERF" run --testbed vm-pair --kernel "$k61" --clock virtual --dry-run esp-null > "$TMP/pair.out" 2> "$TMP/pair.err" || rc=$?
[ "$rc" = 2 ] || fail "vm-pair --clock virtual exited $rc, not 2"
[ "$(wc -l < "$TMP/pair.err")" = 1 ] && grep -q 'clock virtual.*vm-pair.*two virtual clocks over a real-time link' "$TMP/pair.err" ||
	fail "vm-pair's refusal: $(cat "$TMP/pair.err")"
"$IPSECPERF" run --testbed vm-pair --kernel "$k61" --clock auto --dry-run esp-null > "$TMP/pair.out" 2> "$TMP/pair.err" ||
	{ rc=$?; cat "$TMP/pair.err" >&2; fail "vm-pair --clock auto dry run exited $rc"; }
grep -q '^# clock: real' "$TMP/pair.out" || fail "vm-pair --clock auto is not real: $(grep '^# clock' "$TMP/pair.out")"

"$IPSECPERF" run --testbed vm --kernel "$k61" --clock virtual -t 1 -r 3 --count-repeats 0 -o "$TMP/virt" clear esp-null \
	> "$TMP/stdout" 2> "$TMP/stderr" || { rc=$?; cat "$TMP/stderr" "$TMP/stdout" >&2; fail "virtual-clock run exited $rc"; }
assert_vm_clean "the virtual-clock run"
assert_json "$TMP/virt/meta.json" 'd["clock"] == "virtual" and all(v["clock"] == "virtual" for v in d["vm"])'
assert_jsonl "$TMP/virt/runs.jsonl" 'r["status"] == "ok" and r["clock"] == "virtual" and r["vm"]["clock"] == "virtual" and r["vm"]["vcpus"] == 1 and r["vm"]["icount_shift"] == 0 and r["instructions_per_byte"] > 0 and r["instructions_method"] == "icount"'
# no cycles on the virtual clock (its busy time x a TSC is fiction): its instructions instead
assert_jsonl "$TMP/virt/runs.jsonl" '"cycles_per_byte" not in r and "cycles" not in r and "cycles_method" not in r and r["instructions"] > 0'
python3 - "$TMP/virt/runs.jsonl" << 'PY' || fail "the virtual clock's repeats spread (above)"
import statistics, sys
from assert_json import records
recs = records(sys.argv[1])
for sc in ("clear", "esp-null"):
    t = [r["throughput_bps"] for r in recs if r["scenario"] == sc]
    i = [r["instructions_per_byte"] for r in recs if r["scenario"] == sc]
    if len(t) != 3: raise AssertionError((sc, len(t)))
    med = statistics.median(t)
    spread = (max(t) - min(t)) / med
    print(f"  {sc}: throughput {med / 1e9:.4f} Gbit/s (virtual), spread {100 * spread:.3f}%, instructions/byte {statistics.median(i):.2f}", file=sys.stderr)
    if not spread <= 0.005: raise AssertionError(f"{sc}: repeats spread {100 * spread:.3f}% of the median: {t}")
clear = statistics.median(r["throughput_bps"] for r in recs if r["scenario"] == "clear")
esp = statistics.median(r["throughput_bps"] for r in recs if r["scenario"] == "esp-null")
if not esp < clear: raise AssertionError(("esp-null not below clear", esp, clear))
PY

# the same runs said to be on the real clock: compare refuses them
cp -r "$TMP/virt" "$TMP/real"
python3 - "$TMP/real" << 'PY'
import json, sys
d = sys.argv[1]
lines = [json.loads(l) for l in open(f"{d}/runs.jsonl")]
with open(f"{d}/runs.jsonl", "w") as f:
    for r in lines:
        r["clock"] = "real"
        f.write(json.dumps(r) + "\n")
m = json.load(open(f"{d}/meta.json"))
m["clock"] = "real"
json.dump(m, open(f"{d}/meta.json", "w"))
PY
rc=0
"$IPSECPERF" compare "$TMP/real" "$TMP/virt" > "$TMP/cmp.out" 2> "$TMP/cmp.err" || rc=$?
[ "$rc" = 2 ] || fail "compare real vs virtual exited $rc, not 2"
[ "$(wc -l < "$TMP/cmp.err")" = 1 ] && grep -q 'base was measured on the real clock, new on the virtual' "$TMP/cmp.err" ||
	fail "compare's refusal: $(cat "$TMP/cmp.err")"
echo "PASS"
