#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Patch to verdict: the loop a kernel developer runs, timed phase by phase.
# From a kernel tree whose base is built in TREE/build (`ipsecperf kernel
# config -O TREE/build TREE` and `kernel build`), or is not built yet (then
# the base build is timed too: the figure for a clean tree):
#
#   1. a patched copy of the tree (tools/kernel-tree-copy.sh): the source
#      hard-linked, the build folder copied with its mtimes, the patch
#      applied to the copy, so that make rebuilds only what it touches;
#   2. `ipsecperf kernel build` of the copy, as its own release;
#   3. `ipsecperf run --testbed vm` of base and patched, booted in turn
#      (--interleave), on clear and esp-null, with the ESP programs counting,
#      on the virtual clock where KVM cannot run guests (--clock auto:
#      qemu counts instructions, and the figures do not move with this
#      host's load; docs/vm-testbed.md);
#   4. `ipsecperf compare` of the two kernels, throughput, cycles per byte
#      and every counter.
#
# usage: tools/patch-to-verdict.sh [-o OUT] [-w WORKDIR] TREE PATCH [SCENARIO...]
#   -o OUT      the run's results folder (default: WORKDIR/results)
#   -w WORKDIR  where the patched copy is made (default: beside TREE, as
#               TREE-verdict; made anew each time)
# Environment: IPSECPERF (the program, default ipsecperf on PATH or
# build/ipsecperf beside this script), REPEAT (4: the fewest with which
# compare's Mann-Whitney test reaches p < 0.05), CLOCK (run's --clock,
# default auto), DURATION and OMIT (run's -t and -O: 1 and 0 on the
# virtual clock, where most repeats lie within 0.5% of each other
# without a warm-up; 2 and 1 on the real clock), PROBE_SET (esp), LV (the patched
# release's suffix, default -patched),
# METRIC (the metrics that decide compare's exit status; default
# throughput,cycles_per_byte).
# Prints each phase's time and a closing line "patch to verdict: N s";
# exits with compare's status (0 no regression, 1 a regression, 2 not
# comparable), or 2 for bad usage, or 1 when a phase failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
ipp=${IPSECPERF:-}
if [ -z "$ipp" ]; then
	if [ -x "$here/../build/ipsecperf" ]; then ipp=$here/../build/ipsecperf; else ipp=ipsecperf; fi
fi
usage() {
	echo "usage: tools/patch-to-verdict.sh [-o OUT] [-w WORKDIR] TREE PATCH [SCENARIO...]" >&2
	exit 2
}
out= work=
while getopts ":o:w:h" o; do
	case $o in
	o) out=$OPTARG ;;
	w) work=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || usage
tree=$(realpath -e -- "$1" 2> /dev/null) || { echo "patch-to-verdict: $1: no such folder" >&2; exit 2; }
patch=$(realpath -e -- "$2" 2> /dev/null) || { echo "patch-to-verdict: $2: no such file" >&2; exit 2; }
shift 2
[ $# -gt 0 ] || set -- clear esp-null
[ -f "$tree/Makefile" ] && [ -f "$tree/net/ipv4/esp4.c" ] ||
	{ echo "patch-to-verdict: $tree is not a kernel source tree" >&2; exit 2; }
case $tree in */build) echo "patch-to-verdict: give the tree, not its build folder" >&2; exit 2 ;; esac
work=${work:-$tree-verdict}
out=${out:-$work-results}
[ ! -e "$out" ] || { echo "patch-to-verdict: $out exists; give another -o" >&2; exit 2; }
lv=${LV--patched}

t0=$(date +%s.%N)
last=$t0
declare -a phases=()
phase_done() { # name
	local now
	now=$(date +%s.%N)
	phases+=("$(printf '%-22s %7.1f s' "$1" "$(echo "$now - $last" | bc)")")
	echo "patch-to-verdict: $1 done in $(printf '%.1f' "$(echo "$now - $last" | bc)") s" >&2
	last=$now
}
die() {
	echo "patch-to-verdict: $*" >&2
	exit 1
}

# 0. the base, when it is not built yet (a clean tree)
if [ ! -f "$tree/build/arch/x86/boot/bzImage" ] || [ ! -f "$tree/build/include/config/kernel.release" ]; then
	[ -f "$tree/build/.config" ] || "$ipp" kernel config -q -O "$tree/build" "$tree" || die "kernel config failed"
	"$ipp" kernel build -O "$tree/build" "$tree" || die "the base did not build"
	phase_done "base build"
fi

# 1. the patched copy (tools/kernel-tree-copy.sh): hard links for the
# source, the files the patch changes written anew, the build folder copied
rm -rf "$work" || die "cannot remove $work"
bash "$here/kernel-tree-copy.sh" "$tree" "$work" "$patch" || die "cannot make the patched copy $work"
phase_done "copy and patch"

# 2. the patched kernel
"$ipp" kernel build --localversion "$lv" -O "$work/build" "$work" || die "the patched kernel did not build"
phase_done "patched build"

# 3. both kernels, booted in turn, on the clock that run --clock CLOCK
# takes here (its dry run says which)
clock=${CLOCK:-auto}
resolved=$("$ipp" run --testbed vm --kernel "$tree/build" --clock "$clock" --dry-run esp-null 2> /dev/null |
	sed -n 's/^# clock: \([a-z]*\).*/\1/p')
case $resolved in
virtual) dur=${DURATION:-1} omit=${OMIT:-0} ;;
real) dur=${DURATION:-2} omit=${OMIT:-1} ;;
*) die "run --clock $clock: no clock in its dry run" ;;
esac
base_rel=$(cat "$tree/build/include/config/kernel.release")
new_rel=$(cat "$work/build/include/config/kernel.release")
[ "$base_rel" != "$new_rel" ] || die "base and patched are both $base_rel: give LV a suffix the base has not"
ran=0
"$ipp" run --testbed vm --kernel "$tree/build" --kernel "$work/build" --interleave \
	--repeat "${REPEAT:-4}" --clock "$clock" --duration "$dur" --omit "$omit" --probe-set "${PROBE_SET:-esp}" \
	-o "$out" -- "$@" || ran=$?
[ "$ran" -le 1 ] || die "run failed (exit $ran)"
phase_done "boots and runs"
# of which boots: qemu's start to the first measured byte, as meta.json has it
boots=$(python3 - "$out/meta.json" << 'PY'
import json, sys
try:
    vms = json.load(open(sys.argv[1])).get("vm") or []
except (OSError, ValueError):
    vms = []
t = [v.get("boot_to_first_measured_byte_s") for v in vms if isinstance(v, dict)]
t = [x for x in t if isinstance(x, (int, float)) and not isinstance(x, bool)]
print("%.1f %d" % (sum(t), len(t)))
PY
)
phases+=("$(printf '%-22s %7.1f s (%d boots, qemu to the first measured byte)' "of which boots" ${boots:-0 0})")

# 4. the verdict
gate=0
"$ipp" compare --base-kernel "$base_rel" --new-kernel "$new_rel" \
	--metric "${METRIC:-throughput,cycles_per_byte}" "$out" "$out" || gate=$?
phase_done "compare"

{
	echo "patch to verdict, $base_rel against $new_rel ($*, the $resolved clock, -t $dur -O $omit):"
	printf '  %s\n' "${phases[@]}"
	printf 'patch to verdict: %.0f s\n' "$(echo "$last - $t0" | bc)"
	echo "results: $out"
} >&2
[ "$gate" != 0 ] || [ "$ran" = 0 ] || { echo "patch-to-verdict: no regression, but some runs failed: see $out" >&2; exit 1; }
exit "$gate"
