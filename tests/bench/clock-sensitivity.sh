#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# What compare can see, under each clock: the tests' 6.12 base build
# against itself under another release (kernel-patches/none.patch, the
# A/A) and against three kernels that add a fixed amount of work to every
# esp_output (kernel-patches/esp4-work-{1,3,10}pct.patch: a loop of 2 x N
# instructions, sized to cost about 1%, 3% and 10% of esp-null on the
# virtual clock). All five kernels booted in turn (--interleave), REPEAT
# times each, on SCENARIO; then `compare --base-kernel BASE --new-kernel
# X` for each, and one table row per kernel and clock: the change of
# the medians, Mann-Whitney's p, and compare's flag (R: a regression
# beyond THRESHOLD, -: significantly worse below it, blank: nothing).
# docs/benchmarks.md, "What a change compare sees, by clock", has the
# figures.
#
# The kernels are the tests' (tests/integration/kernel_lib.sh): the base
# built once per machine (`make kernel-tree`), each variant built
# incrementally from it and cached in $IPSECPERF_KTREE_CACHE.
#
# usage (root): [IPSECPERF=build/ipsecperf] [CLOCKS="virtual real"] [REPEAT=5]
#               [DURATION=1] [OMIT=0] [SCENARIO=esp-null] [THRESHOLD=0.5]
#               tests/bench/clock-sensitivity.sh [OUTDIR]
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
IPSECPERF=${IPSECPERF:-$TOP/build/ipsecperf}
out=${1:-$(mktemp -d /tmp/ipsecperf-sensitivity.XXXXXX)}
fail() {
	echo "clock-sensitivity: $*" >&2
	exit 1
}
[ "$(id -u)" = 0 ] || { echo "clock-sensitivity: needs root" >&2; exit 4; }
[ -x "$IPSECPERF" ] || { echo "clock-sensitivity: no $IPSECPERF: run make" >&2; exit 2; }
export IPSECPERF_SCENARIOS=${IPSECPERF_SCENARIOS:-$TOP/scenarios}
. "$TOP/tests/integration/kernel_lib.sh"
P=$TOP/tests/integration/kernel-patches
mkdir -p "$out" || fail "cannot make $out"

kb=$(ktree_base) || fail "the tests' base kernel did not build"
kernels=(--kernel "$kb")
names=()
for v in "reverted none.patch" "work-1pct esp4-work-1pct.patch" "work-3pct esp4-work-3pct.patch" \
	"work-10pct esp4-work-10pct.patch"; do
	k=$(ktree_variant "${v%% *}" "$P/${v#* }") || fail "the variant ${v%% *} did not build"
	kernels+=(--kernel "$k")
	names+=("$(cat "$k/include/config/kernel.release")")
done
base=$(cat "$kb/include/config/kernel.release")

for clock in ${CLOCKS:-virtual real}; do
	t0=$(date +%s)
	"$IPSECPERF" run -q --testbed vm --clock "$clock" "${kernels[@]}" --interleave -r "${REPEAT:-5}" \
		-t "${DURATION:-1}" -O "${OMIT:-0}" --no-probes --count-repeats 0 -o "$out/$clock" \
		"${SCENARIO:-esp-null}" > "$out/$clock.log" 2>&1
	rc=$?
	[ $rc -le 1 ] || { tail -20 "$out/$clock.log" >&2; fail "run --clock $clock exited $rc"; }
	echo "$(($(date +%s) - t0))" > "$out/$clock.seconds"
	for n in "${names[@]}"; do
		"$IPSECPERF" compare --base-kernel "$base" --new-kernel "$n" --metric throughput \
			--threshold "${THRESHOLD:-0.5}" -f json "$out/$clock" "$out/$clock" > "$out/$clock-$n.json"
		[ $? -le 1 ] || fail "compare $base $n ($clock) refused: see $out/$clock-$n.json"
	done
done

python3 - "$out" "$base" "${CLOCKS:-virtual real}" "${names[@]}" << 'PY'
import json, os, sys
out, base, clocks, names = sys.argv[1], sys.argv[2], sys.argv[3].split(), sys.argv[4:]
print(f"base {base}; {', '.join(names)}\n")
print("| kernel | clock | base median, Gbit/s (min-max) | new median (min-max) | change | p (Mann-Whitney) | flag |")
print("|---|---|---|---|--:|--:|:-:|")
for n in names:
    for clock in clocks:
        d = json.load(open(os.path.join(out, f"{clock}-{n}.json")))
        r = next(x for x in d["rows"] if x["metric"] == "throughput")
        b, w = r["base"], r["new"]
        print(f"| {n[len(base):] or n} | {clock} | {b['median']:.4f} ({b['min']:.4f}-{b['max']:.4f}), n {b['n']} "
              f"| {w['median']:.4f} ({w['min']:.4f}-{w['max']:.4f}), n {w['n']} "
              f"| {r['change_pct']:+.2f}% | {r['p_mw']:.4f} | {r['flag'] or 'none'} |")
for clock in clocks:
    print(f"\n{clock}: {open(os.path.join(out, clock + '.seconds')).read().strip()} s of wall time for the run")
print(f"\nresults: {out}")
PY
