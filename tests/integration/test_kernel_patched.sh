#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A patched kernel against its base, in one invocation, as a kernel
# developer would run it (docs/example.md has the figures):
# - the base build, and the same tree with a deliberate slowdown in
#   esp_output (kernel-patches/esp4-busywait.patch, 500 us of busy-wait per
#   ESP packet) and with no change at all (the patch reverted), each built
#   incrementally as its own release (kernel_lib.sh's ktree_variant);
# - one `run --testbed vm --kernel BASE --kernel PATCHED --kernel REVERTED
#   --interleave` on clear and esp-null;
# - compare BASE against PATCHED exits 1 and names esp-null throughput as
#   the regression, clear not flagged; BASE against REVERTED exits 0.
# Then the failures a patch can bring, each a clear error that leaves
# nothing behind: a patch that does not compile (the build log's last
# lines name the error) and one that panics the kernel on the first ESP
# packet (clear still runs; esp-null fails with the panic and the
# console's last lines).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vm_lib.sh"
. "$(dirname "$0")/kernel_lib.sh"

patches="$TOP/tests/integration/kernel-patches"
kb=$(ktree_base) || fail "the tests' kernel could not be built"
ks=$(ktree_variant esp-slow "$patches/esp4-busywait.patch") || fail "the patched kernel did not build"
kr=$(ktree_variant reverted "$patches/none.patch") || fail "the reverted kernel did not build"
base=$(cat "$kb/include/config/kernel.release") slow=$(cat "$ks/include/config/kernel.release")
rev=$(cat "$kr/include/config/kernel.release")
info "kernels: $base, $slow, $rev"
[ "$slow" = "$base-esp-slow" ] && [ "$rev" = "$base-reverted" ] || fail "releases $base $slow $rev"

out="$TMP/res"
snapshot > "$TMP/before"
"$IPSECPERF" run -q --testbed vm --kernel "$kb" --kernel "$ks" --kernel "$kr" --interleave \
	--repeat 5 --duration 2 --omit 1 -o "$out" clear esp-null > "$TMP/run.out" 2> "$TMP/run.err" ||
	{ cat "$TMP/run.err" >&2; fail "the run exited $?"; }
cat "$TMP/run.out" >&2
cmp() { # new-release expected-exit what
	"$IPSECPERF" compare --base-kernel "$base" --new-kernel "$1" --metric throughput --threshold 20 \
		"$out" "$out" > "$TMP/cmp.out" 2> "$TMP/cmp.err"
	local rc=$?
	cat "$TMP/cmp.out" >&2
	[ $rc = "$2" ] || { cat "$TMP/cmp.err" >&2; fail "$3: compare exited $rc, not $2"; }
}
cmp "$slow" 1 "base against the slowed-down kernel"
"$IPSECPERF" compare --base-kernel "$base" --new-kernel "$slow" --metric throughput --threshold 20 -f json \
	"$out" "$out" > "$TMP/cmp.json"
python3 - "$TMP/cmp.json" << 'PY' || fail "compare did not name esp-null throughput alone (above)"
import json, sys
d = json.load(open(sys.argv[1]))
flagged = sorted((r["scenario"], r["metric"]) for r in d["rows"] if r["regression"])
print("  flagged:", flagged, file=sys.stderr)
assert flagged == [("esp-null", "throughput")], flagged
PY
cmp "$rev" 0 "base against the reverted kernel"
assert_vm_clean "the three-kernel run"

# a patch that does not compile: make's error, from the log, on stderr
if ktree_variant broken "$patches/esp4-broken.patch" > /dev/null 2> "$TMP/broken.err"; then
	fail "a patch that does not compile built"
fi
grep -q "kernel build: make bzImage failed" "$TMP/broken.err" || { cat "$TMP/broken.err" >&2; fail "no clear build error"; }
grep -q "esp4.c.*this_is_not_c" "$TMP/broken.err" || { cat "$TMP/broken.err" >&2; fail "the log's tail does not show the error"; }

# a patch that panics the kernel on the first ESP packet
kp=$(ktree_variant esp-panic "$patches/esp4-panic.patch") || fail "the panicking kernel did not build"
"$IPSECPERF" run -q --testbed vm --kernel "$kp" -t 1 -r 1 -o "$TMP/panic" clear esp-null \
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
