#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A scenario's [link] mtu on the peer testbed, whose devices are the
# hosts' own (two namespaces stand for the two hosts, peer_lib.sh):
# - clear-mtu9000 runs ok with both ends at 9000 and leaves both at their
#   MTU of before;
# - a run killed by SIGKILL while both ends are at 9000 leaves them so,
#   and `ipsecperf cleanup` puts both back (the journal's undo, here and
#   on the peer over ssh): links, addresses, offloads, xfrm and journals
#   as before;
# - a device that refuses the MTU (a veth whose other end has a native XDP
#   program: the kernel caps its maximum MTU) skips the scenario with the
#   device's reason, changing nothing.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/peer_lib.sh"

peer_setup
run_l() { ip netns exec "$PEER_NS_L" "$@"; }
mtu() { ip -n "$1" -j link show dev "$2" | python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["mtu"])'; }
peer_snapshot "$PEER_NS_L" > "$TMP/l.before"
peer_snapshot "$PEER_NS_P" > "$TMP/p.before"
restored() { # what [noprocs]
	peer_snapshot "$PEER_NS_L" > "$TMP/l.after"
	peer_snapshot "$PEER_NS_P" > "$TMP/p.after"
	if [ -n "${2:-}" ]; then # the processes left out of both
		for f in l.before l.after p.before p.after; do
			sed '/^## processes/,/^## journals/{/^## /!d}' "$TMP/$f" > "$TMP/$f.np"
		done
		assert_same_snapshot "$TMP/l.before.np" "$TMP/l.after.np" "$1: this end"
		assert_same_snapshot "$TMP/p.before.np" "$TMP/p.after.np" "$1: the peer"
	else
		assert_same_snapshot "$TMP/l.before" "$TMP/l.after" "$1: this end"
		assert_same_snapshot "$TMP/p.before" "$TMP/p.after" "$1: the peer"
	fi
	[ "$(mtu "$PEER_NS_L" "$PEER_DEV_L") $(mtu "$PEER_NS_P" "$PEER_DEV_P")" = "1500 1500" ] ||
		fail "$1: MTUs $(mtu "$PEER_NS_L" "$PEER_DEV_L") and $(mtu "$PEER_NS_P" "$PEER_DEV_P"), not 1500 as before"
}

# 1. a run at MTU 9000, ok, both ends put back
run_l "$IPSECPERF" run --quiet "${PEER_ARGS[@]}" -t 1 -O 0 -r 1 -o "$TMP/ok" clear-mtu9000 \
	> "$TMP/ok.out" 2> "$TMP/ok.err" || { rc=$?; cat "$TMP/ok.err" >&2; fail "the run exited $rc"; }
assert_records "$TMP/ok/runs.jsonl" '[r["status"] for r in rs] == ["ok"] and rs[0]["bytes"] > 0' "clear-mtu9000 not ok"
restored "after the run"

# 2. SIGKILL while both ends are at 9000, then cleanup
# not through run_l: $! must be ipsecperf itself (ip netns exec execs it), not a subshell
ip netns exec "$PEER_NS_L" "$IPSECPERF" run --quiet "${PEER_ARGS[@]}" -t 60 -O 0 -r 1 -o "$TMP/kill" clear-mtu9000 \
	> "$TMP/kill.out" 2> "$TMP/kill.err" &
pid=$!
for _ in $(seq 200); do
	[ "$(mtu "$PEER_NS_L" "$PEER_DEV_L") $(mtu "$PEER_NS_P" "$PEER_DEV_P")" = "9000 9000" ] && break
	sleep 0.1
done
[ "$(mtu "$PEER_NS_L" "$PEER_DEV_L") $(mtu "$PEER_NS_P" "$PEER_DEV_P")" = "9000 9000" ] ||
	{ cat "$TMP/kill.err" >&2; fail "the run did not set both ends to 9000 within 20 s"; }
[ "$(cat /proc/$pid/comm 2> /dev/null)" = ipsecperf ] || fail "pid $pid is not the run: $(cat /proc/$pid/comm 2> /dev/null)"
kill -9 $pid
wait $pid 2> /dev/null
[ "$(mtu "$PEER_NS_L" "$PEER_DEV_L") $(mtu "$PEER_NS_P" "$PEER_DEV_P")" = "9000 9000" ] ||
	fail "the killed run's MTUs changed without cleanup: the test shows nothing"
run_l "$IPSECPERF" cleanup > "$TMP/cleanup.out" 2> "$TMP/cleanup.err" ||
	{ rc=$?; cat "$TMP/cleanup.out" "$TMP/cleanup.err" >&2; fail "cleanup exited $rc"; }
# Processes aside: a kill that falls between the peer's one-off iperf3 server
# and its client leaves that server to its timeout(1) bound (the peer
# testbed's way, not the MTU's); the test's own are stopped here, by pid.
restored "after SIGKILL and cleanup" noprocs
for p in $(ip netns pids "$PEER_NS_P"); do
	[[ "$(cat /proc/$p/comm 2> /dev/null)" =~ ^(iperf3|timeout)$ ]] || continue
	# an orphan of the killed ssh session: the test beside this one knows it
	# as this test's only by the lane in its own environment (peer_lib.sh)
	env=$(tr '\0' '\n' < /proc/$p/environ 2> /dev/null) # empty once it is gone
	if [ -n "${IPSECPERF_TEST_LANE:-}" ] && [ -n "$env" ]; then
		grep -qx "IPSECPERF_TEST_LANE=$IPSECPERF_TEST_LANE" <<< "$env" ||
			fail "the peer's $(cat /proc/$p/comm 2> /dev/null) $p does not carry this test's lane"
	fi
	kill "$p" 2> /dev/null
done

# 3. a device that refuses 9000: a native XDP program on the peer's end caps this end's maximum
cat > "$TMP/xdp.c" << 'EOF'
__attribute__((section("xdp"), used)) int pass(void *ctx) { return 2; /* XDP_PASS */ }
char _license[] __attribute__((section("license"), used)) = "GPL";
EOF
clang -O2 -target bpf -c "$TMP/xdp.c" -o "$TMP/xdp.o" || fail "cannot build the XDP program"
ip -n "$PEER_NS_P" link set dev "$PEER_DEV_P" xdpdrv obj "$TMP/xdp.o" sec xdp || skip "veth takes no native XDP here"
if ip -n "$PEER_NS_L" link set dev "$PEER_DEV_L" mtu 9000 2> /dev/null; then
	ip -n "$PEER_NS_L" link set dev "$PEER_DEV_L" mtu 1500
	skip "this kernel does not cap a veth's MTU under its peer's XDP"
fi
peer_snapshot "$PEER_NS_L" > "$TMP/l.xdp"
run_l "$IPSECPERF" run --quiet "${PEER_ARGS[@]}" -t 1 -O 0 -r 1 -o "$TMP/refused" clear-mtu9000 \
	> "$TMP/refused.out" 2> "$TMP/refused.err" || { rc=$?; cat "$TMP/refused.err" >&2; fail "a skipping run exited $rc"; }
json_check --all --arg want "$PEER_DEV_L refuses MTU 9000: " "$TMP/refused/runs.jsonl" \
	'[r["status"] for r in rs] == ["skipped"] and rs[0]["reason"].startswith(want) and "maximum" in rs[0]["reason"]' ||
	fail "not skipped with the device's reason: $(cat "$TMP/refused/runs.jsonl")"
peer_snapshot "$PEER_NS_L" > "$TMP/l.after"
assert_same_snapshot "$TMP/l.xdp" "$TMP/l.after" "after the refused MTU"
ip -n "$PEER_NS_P" link set dev "$PEER_DEV_P" xdpdrv off
info "MTU 9000 set and put back (run, SIGKILL + cleanup); refused: $(json_values "$TMP/refused/runs.jsonl" 'r["reason"]')"
exit 0
