#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Two kernels in one invocation: Debian's 6.1 and 6.12 cloud kernels each
# boot and run clear and esp-null (3 s each); every record names its
# kernel, the ESP SAs counted packets and clear beat esp-null on both, and
# the summary puts the two kernels side by side, scenario by scenario.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vm_lib.sh"

k61=$(vm_kernel "$DEB61") || exit $?
k612=$(vm_kernel "$DEB612") || exit $?
info "kernels: $k61 $k612"
out="$TMP/res"
"$IPSECPERF" run --testbed vm --kernel "$k61" --kernel "$k612" --duration 3 --omit 1 \
	--repeat 1 -o "$out" clear esp-null > "$TMP/stdout" 2> "$TMP/stderr" ||
	{ cat "$TMP/stderr" "$TMP/stdout" >&2; fail "run exited $?"; }
cat "$TMP/stderr" >&2
assert_vm_clean "after the VM runs"

python3 - "$out/runs.jsonl" "$out/meta.json" << 'PY' || fail "records or meta.json wrong (above)"
import json, sys
recs = list(map(json.loads, open(sys.argv[1])))
kernels = []
for r in recs:
    if r["kernel"] not in kernels:
        kernels.append(r["kernel"])
assert len(kernels) == 2 and kernels[0].startswith("6.1.") and kernels[1].startswith("6.12."), kernels
for k in kernels:
    by = {r["scenario"]: r for r in recs if r["kernel"] == k}
    assert sorted(by) == ["clear", "esp-null"], (k, sorted(by))
    assert all(r["status"] == "ok" for r in by.values()), (k, [r.get("reason") for r in by.values()])
    out = [s for s in by["esp-null"]["sa"] if s["dir"] == "out"]
    assert out and all(s["packets"] > 0 for s in out), (k, by["esp-null"]["sa"])
    c, e = by["clear"]["throughput_bps"], by["esp-null"]["throughput_bps"]
    print(f"  {k}: clear {c/1e9:.3f} Gbit/s, esp-null {e/1e9:.3f} Gbit/s", file=sys.stderr)
    assert c > e > 0, (k, c, e)
m = json.load(open(sys.argv[2]))
assert [k["release"] for k in m["kernels"]] == kernels, m["kernels"]
assert len({k["config_sha256"] for k in m["kernels"]}) == 2, "config hashes not per kernel"
PY
# the side-by-side table: one row per scenario, a column per kernel
grep -q "K1 = 6\.1\." "$TMP/stdout" && grep -q "K2 = 6\.12\." "$TMP/stdout" ||
	fail "the summary does not name both kernels"
for s in clear esp-null; do
	[ "$(grep -c "^$s  *[0-9.]* .*  [0-9.]* ([0-9]*) [-+][0-9]*%" "$TMP/stdout")" -ge 1 ] ||
		{ cat "$TMP/stdout" >&2; fail "no side-by-side row for $s"; }
done
exit 0
