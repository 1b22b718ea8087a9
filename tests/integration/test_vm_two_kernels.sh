#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Two kernels in one invocation, interleaved: Debian's 6.1 and 6.12 cloud
# kernels boot in turn, 6.1 6.12 6.1 6.12, each boot running clear and
# esp-null once (2 s each) as its repeat; every record names its kernel and
# repeat, the boots' records come in that order, the ESP SAs counted
# packets and clear beat esp-null on both, each boot kept its console log,
# and the summary puts the two kernels side by side, scenario by scenario.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vm_lib.sh"

k61=$(vm_kernel "$DEB61") || exit $?
k612=$(vm_kernel "$DEB612") || exit $?
info "kernels: $k61 $k612"
out="$TMP/res"
"$IPSECPERF" run --testbed vm --kernel "$k61" --kernel "$k612" --interleave --duration 2 --omit 1 \
	--repeat 2 --count-repeats 0 -o "$out" clear esp-null > "$TMP/stdout" 2> "$TMP/stderr" ||
	{ rc=$?; cat "$TMP/stderr" "$TMP/stdout" >&2; fail "run exited $rc"; }
cat "$TMP/stderr" >&2
assert_vm_clean "after the VM runs"

python3 - "$out/runs.jsonl" "$out/meta.json" << 'PY' || fail "records or meta.json wrong (above)"
import sys
from assert_json import document, records
recs = records(sys.argv[1])
kernels = []
for r in recs:
    if r["kernel"] not in kernels:
        kernels.append(r["kernel"])
if not (len(kernels) == 2 and kernels[0].startswith("6.1.") and kernels[1].startswith("6.12.")): raise AssertionError(kernels)
# the boots in turn: K1 r1, K2 r1, K1 r2, K2 r2, two scenarios each
order = [(r["kernel"], r["repeat"]) for r in sorted(recs, key=lambda r: r["start"])]
if not (order == [(k, rep) for rep in (1, 2) for k in kernels for _ in range(2)]): raise AssertionError(order)
for k in kernels:
    for rep in (1, 2):
        by = {r["scenario"]: r for r in recs if r["kernel"] == k and r["repeat"] == rep}
        if not (sorted(by) == ["clear", "esp-null"]): raise AssertionError((k, rep, sorted(by)))
        if not (all(r["status"] == "ok" for r in by.values())): raise AssertionError((k, [r.get("reason") for r in by.values()]))
        out = [s for s in by["esp-null"]["sa"] if s["dir"] == "out"]
        if not (out and all(s["packets"] > 0 for s in out)): raise AssertionError((k, by["esp-null"]["sa"]))
        c, e = by["clear"]["throughput_bps"], by["esp-null"]["throughput_bps"]
        print(f"  {k} r{rep}: clear {c/1e9:.3f} Gbit/s, esp-null {e/1e9:.3f} Gbit/s", file=sys.stderr)
        if not (c > e > 0): raise AssertionError((k, c, e))
m = document(sys.argv[2])
if not ([k["release"] for k in m["kernels"]] == kernels): raise AssertionError(m["kernels"])
if not (len({k["config_sha256"] for k in m["kernels"]}) == 2): raise AssertionError("config hashes not per kernel")
if not ([(v["release"], v["repeat"]) for v in m["vm"]] == [(k, rep) for rep in (1, 2) for k in kernels]): raise AssertionError(m["vm"])
PY
for k in $(json_values "$out/runs.jsonl" 'r["kernel"]' | sort -u); do
	for f in console-r1.log console-r2.log clear-r1-iperf3-client.json clear-r2-iperf3-client.json; do
		[ -s "$out/raw/$k/$f" ] || fail "raw/$k/$f missing"
	done
done
# the side-by-side table: one row per scenario, a column per kernel
grep -q "K1 = 6\.1\." "$TMP/stdout" && grep -q "K2 = 6\.12\." "$TMP/stdout" ||
	fail "the summary does not name both kernels"
for s in clear esp-null; do
	[ "$(grep -c "^$s  *[0-9.]* .*  [0-9.]* ([0-9]*) [-+][0-9]*%" "$TMP/stdout")" -ge 1 ] ||
		{ cat "$TMP/stdout" >&2; fail "no side-by-side row for $s"; }
done
exit 0
