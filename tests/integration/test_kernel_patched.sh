#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A patched kernel against its base, in one invocation, as a kernel
# developer would run it (docs/example.md has the figures):
# - the base build, and the same tree with a deliberate slowdown in
#   esp_output (kernel-patches/esp4-busywait.patch, a busy loop of 250,000
#   turns per ESP packet: 500 us on the virtual clock) and with no change
#   at all (the patch reverted), each built incrementally as its own
#   release (kernel_lib.sh's ktree_variant);
# - docs/vm-testbed.md's CI recipe, as written there: `run --testbed vm
#   --kernel BASE --kernel PATCHED --interleave` on clear and esp-null, then
#   compare, which exits 1 and names esp-null throughput as the regression,
#   clear not flagged; the same with the patch reverted exits 0 (on
#   esp-null alone: the scenario that the patch flags).
# Then the failures a patch can bring, each a clear error that leaves
# nothing behind: a patch that does not compile (the build log's last
# lines name the error) and one that panics the kernel on the first ESP
# packet (clear still runs; esp-null fails with the panic and the
# console's last lines).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vm_lib.sh"
. "$(dirname "$0")/kernel_lib.sh"

patches="$TOP/tests/integration/kernel-patches"
ktree_base_and_slow
kr=$(ktree_variant reverted "$patches/none.patch") || fail "the reverted kernel did not build"
rev=$(cat "$kr/include/config/kernel.release")
info "kernels: $base, $slow, $rev"
[ "$slow" = "$base-esp-slow" ] && [ "$rev" = "$base-reverted" ] || fail "releases $base $slow $rev"

# docs/vm-testbed.md's CI recipe, exactly as written there
sed -n '/^<!-- recipe: ci-ipsec-perf.sh/,/^<!-- end recipe -->/p' "$TOP/docs/vm-testbed.md" |
	sed -e '1d' -e '$d' -e 's/^    //' > "$TMP/ci-ipsec-perf.sh"
grep -q '^set -eu$' "$TMP/ci-ipsec-perf.sh" || fail "no recipe in docs/vm-testbed.md"
recipe() { # new-tree new-localversion out expected-exit what scenario...
	BASE_LV= NEW_LV=$2 REPEAT=4 DURATION=2 METRIC=throughput THRESHOLD=20 OUT=$3 IPSECPERF=$IPSECPERF \
		sh "$TMP/ci-ipsec-perf.sh" "$KSRC" "$1" "${@:6}" > "$TMP/ci.out" 2> "$TMP/ci.err"
	local rc=$?
	cat "$TMP/ci.out" >&2
	[ $rc = "$4" ] || { cat "$TMP/ci.err" >&2; fail "$5: the recipe exited $rc, not $4"; }
}
snapshot > "$TMP/before"
recipe "${ks%/build}" -esp-slow "$TMP/slow" 1 "base against the slowed-down kernel" clear esp-null
"$IPSECPERF" compare --base-kernel "$base" --new-kernel "$slow" --metric throughput --threshold 20 -f json \
	"$TMP/slow" "$TMP/slow" > "$TMP/cmp.json"
python3 - "$TMP/cmp.json" << 'PY' || fail "compare did not name esp-null throughput alone (above)"
import json, sys
d = json.load(open(sys.argv[1]))
flagged = sorted((r["scenario"], r["metric"]) for r in d["rows"] if r["regression"])
print("  flagged:", flagged, file=sys.stderr)
if not (flagged == [("esp-null", "throughput")]): raise AssertionError(flagged)
PY
# the same code under another release: esp-null, flagged above, is not here
recipe "${kr%/build}" -reverted "$TMP/reverted" 0 "base against the patch reverted" esp-null
assert_vm_clean "the recipe's runs"

# a patch that does not compile: make's error, from the log, on stderr
if ktree_variant broken "$patches/esp4-broken.patch" > /dev/null 2> "$TMP/broken.err"; then
	fail "a patch that does not compile built"
fi
grep -q "kernel build: make bzImage failed" "$TMP/broken.err" || { cat "$TMP/broken.err" >&2; fail "no clear build error"; }
grep -q "esp4.c.*this_is_not_c" "$TMP/broken.err" || { cat "$TMP/broken.err" >&2; fail "the log's tail does not show the error"; }
# a build that fails is made again next time: its copy (1.2 GB) is not kept
rm -rf "$KTREE_CACHE/src/linux-6.12-broken"

# a patch that panics the kernel on the first ESP packet
kp=$(ktree_variant esp-panic "$patches/esp4-panic.patch") || fail "the panicking kernel did not build"
"$IPSECPERF" run -q --testbed vm --kernel "$kp" -t 1 -r 1 --count-repeats 0 -o "$TMP/panic" clear esp-null \
	> "$TMP/p.out" 2> "$TMP/p.err"
rc=$?
[ $rc = 1 ] || { cat "$TMP/p.err" >&2; fail "a kernel that panics: run exited $rc, not 1"; }
grep -q 'ipsecperf test patch: esp_output reached' "$TMP/p.err" ||
	{ cat "$TMP/p.err" >&2; fail "the panic's console lines are not in the error"; }
assert_records "$TMP/panic/runs.jsonl" \
	'[(r["scenario"], r["status"]) for r in rs] == [("clear", "ok"), ("esp-null", "failed")] and "panic" in rs[1]["reason"]' \
	"clear ok and esp-null failed with the panic"
snapshot > "$TMP/after"
assert_same_snapshot "$TMP/before" "$TMP/after" "the patched kernels' runs"
assert_vm_clean "the panicking kernel's run"
exit 0
