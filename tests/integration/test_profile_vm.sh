#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# run --profile inside the VM testbed (perf in the initramfs) on a stock
# Debian 6.1 kernel, clear and esp-null, 2 s each: both records profiled,
# ESP's own functions in esp-null's folded stacks and not in clear's, and
# report --profile's difference table finds the guest's folded stacks.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vm_lib.sh"

command -v perf > /dev/null || skip_ours "perf not installed (apt-get install linux-perf)"
k61=$(vm_kernel "$DEB61") || exit $?
info "kernel: $k61"
out="$TMP/res"
"$IPSECPERF" run --testbed vm --kernel "$k61" --profile --duration 2 --omit 1 --repeat 1 --count-repeats 0 \
	-o "$out" clear esp-null > "$TMP/stdout" 2> "$TMP/stderr" ||
	{ rc=$?; cat "$TMP/stderr" "$TMP/stdout" >&2; fail "run --profile in the VM exited $rc"; }
assert_vm_clean "after a VM run with --profile"

python3 - "$out" << 'PY' || fail "profiles from the guest (above)"
import glob, os, sys
from assert_json import records
out = sys.argv[1]
for r in records(os.path.join(out, "runs.jsonl")):
    name = r["scenario"]
    if not (r["status"] == "ok"): raise AssertionError((name, r.get("reason")))
    p = r["profile"]
    if not (p["status"] == "ok"): raise AssertionError((name, p.get("reason")))
    if not (any(f["kernel"] for f in p["top"])): raise AssertionError(name)
    if not (0 < sum(f["share"] for f in p["top"]) <= 1.0 + 1e-9): raise AssertionError(name)
    # the guest's raw files are brought home into raw/<release>/
    folded = glob.glob(os.path.join(out, "raw", "*", os.path.basename(p["folded"])))
    if not (len(folded) == 1): raise AssertionError((name, folded))
    text = open(folded[0]).read()
    esp = ";esp_output_tail_[k]" in text or ";esp_input_[k]" in text
    if not (esp == (name == "esp-null")): raise AssertionError((name, "ESP functions in the stacks" if esp else "no ESP functions"))
PY

"$IPSECPERF" report --profile "$out" > "$TMP/report" 2> "$TMP/report.err" ||
	{ rc=$?; cat "$TMP/report.err" >&2; fail "report --profile exited $rc"; }
grep -q '^esp-null against clear' "$TMP/report" || fail "no difference table"
exit 0
