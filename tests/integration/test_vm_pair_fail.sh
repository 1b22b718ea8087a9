#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The vm-pair testbed when things go wrong, each a clear error that leaves
# nothing behind:
# - bad usage: one line, exit 2, nothing made;
# - --dry-run prints the wires (`ip netns add`, the taps) and both qemus,
#   and makes none of them;
# - a receiver whose kernel panics (the tests' 6.12 with esp_output
#   patched to panic, kernel-patches/esp4-panic.patch: its first ESP ACK)
#   fails the run with the receiver's console; clear and udp-rr (its
#   responder the receiving guest's agent), before it, are kept;
# - SIGKILL of the run, then `ipsecperf cleanup`: no qemu, namespace, tap,
#   scratch folder or journal is left.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vm_lib.sh"
. "$(dirname "$0")/expect_lib.sh"
. "$(dirname "$0")/kernel_lib.sh"

k61=$(vm_kernel "$DEB61") || exit $?
# what this test's runs could leave (the whole host's snapshot would also
# see other runs on a shared machine): scratch, qemu, journal, the pair's
# namespace, taps
assert_pair_clean() { # what
	assert_vm_clean "$1"
	! ip -o link show | grep -q 'ipp-[a-z]*-\(link\|ctl\)' || fail "$1: a tap is left: $(ip -o link show)"
}

expect_exit2 "vm-pair without --kernel" '^ipsecperf: run: --testbed vm-pair needs --kernel K' \
	"$IPSECPERF" run --testbed vm-pair clear
expect_exit2 "a --peer-kernel short" '^ipsecperf: run: --peer-kernel pairs with --kernel: give one for each --kernel \(2\)' \
	"$IPSECPERF" run --testbed vm-pair --kernel "$k61" --kernel "$k61" --peer-kernel "$k61" clear
expect_exit2 "--peer-kernel on vm" '^ipsecperf: run: --peer-kernel is for the vm-pair testbed, not vm$' \
	"$IPSECPERF" run --testbed vm --kernel "$k61" --peer-kernel "$k61" clear

"$IPSECPERF" run --testbed vm-pair --kernel "$k61" --dry-run -q clear > "$TMP/dry" 2>&1 ||
	{ rc=$?; cat "$TMP/dry" >&2; fail "--dry-run exited $rc"; }
grep -q '^ip netns add ipsecperf-[0-9]*-[0-9]*-pair$' "$TMP/dry" || { cat "$TMP/dry" >&2; fail "--dry-run: no namespace"; }
grep -q 'tuntap add dev ipp-rx-link mode tap vnet_hdr$' "$TMP/dry" || fail "--dry-run: no tap"
[ "$(grep -c '^qemu-system-x86_64 .*-netdev tap,id=link,fd=3 ' "$TMP/dry")" = 2 ] || fail "--dry-run: not two qemus on taps"
assert_pair_clean "after bad usage and --dry-run"

# the receiver panics on its first ESP packet out
kp=$(ktree_variant esp-panic "$TOP/tests/integration/kernel-patches/esp4-panic.patch") ||
	fail "the panicking kernel did not build"
"$IPSECPERF" run -q --testbed vm-pair --kernel "$k61" --peer-kernel "$kp" --no-probes -t 2 -r 1 -o "$TMP/panic" \
	clear udp-rr esp-null > "$TMP/p.out" 2> "$TMP/p.err"
rc=$?
[ $rc = 1 ] || { cat "$TMP/p.err" >&2; fail "a receiver that panics: run exited $rc, not 1"; }
grep -q "the receiver's kernel panicked" "$TMP/p.err" && grep -q 'ipsecperf test patch: esp_output reached' "$TMP/p.err" ||
	{ cat "$TMP/p.err" >&2; fail "the receiver's panic and its console lines are not in the error"; }
assert_records "$TMP/panic/runs.jsonl" \
	'[(r["scenario"], r["status"]) for r in rs] == [("clear", "ok"), ("udp-rr", "ok"), ("esp-null", "failed")] and "receiver" in rs[2]["reason"] and "panic" in rs[2]["reason"]' \
	"clear and udp-rr ok and esp-null failed with the receiver's panic"
assert_records "$TMP/panic/runs.jsonl" 'rs[1]["transactions"] > 0 and rs[1]["latency_ns"]["p50"] > 0 and rs[1]["peer_kernel"] != rs[1]["kernel"]' \
	"udp-rr on vm-pair: no transactions, or not between the two guests"
assert_records "$TMP/panic/runs.jsonl" \
	'"--no-probes" in rs[0]["counters"]["esp_output"]["symbol"] and "--no-probes" in rs[0]["counters_receiver"]["esp_output"]["symbol"]' \
	"--no-probes: the counters of both guests do not say why they are unavailable"
rel=$(json_values "$TMP/panic/runs.jsonl" 'r["kernel"]' | sort -u)
grep -q 'Kernel panic' "$TMP/panic/raw/$rel/console-receiver.log" || fail "the receiver's console was not kept"
assert_pair_clean "after the receiver's panic"

# SIGKILL mid-run, then cleanup
"$IPSECPERF" run -q --testbed vm-pair --kernel "$k61" -t 60 -r 1 -o "$TMP/killed" clear > /dev/null 2>&1 &
pid=$!
for _ in $(seq 300); do
	[ "$(pgrep -f "qemu-system.*$TMP" | wc -l)" = 2 ] && ip netns list | grep -qE "ipsecperf-$pid-[0-9]+-pair" && break
	sleep 0.2
done
[ "$(pgrep -f "qemu-system.*$TMP" | wc -l)" = 2 ] || fail "the two guests did not start"
sleep 3
kill -KILL "$pid"
wait "$pid" 2> /dev/null
for _ in $(seq 50); do pgrep -f "qemu-system.*$TMP" > /dev/null || break; sleep 0.2; done
"$IPSECPERF" cleanup > "$TMP/cleanup.out" 2>&1 || { rc=$?; cat "$TMP/cleanup.out" >&2; fail "cleanup exited $rc"; }
assert_pair_clean "after SIGKILL and cleanup"
exit 0
