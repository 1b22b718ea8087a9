#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The peer testbed works in its hosts' own namespaces, beside what others
# made there:
# - an xfrm policy with the selector of one of the run's, already there on
#   this host or on the peer, skips the scenario naming it, and is still
#   there after the run and after `ipsecperf cleanup`;
# - offloads of the shared devices are changed under the host-wide lock: a
#   second run fails with --no-wait, naming the first, and without it waits
#   (saying for whom) and then runs; both ends are restored after all three.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/peer_lib.sh"

peer_setup
run_l() { ip netns exec "$PEER_NS_L" "$@"; }
policies() { ip -n "$1" xfrm policy | grep -c '^src'; }

# --- a policy that is in the way -------------------------------------------------
for side in here peer; do
	if [ $side = here ]; then
		ns=$PEER_NS_L src=$PEER_ADDR_L dst=$PEER_ADDR_P where="on this host"
	else
		ns=$PEER_NS_P src=$PEER_ADDR_P dst=$PEER_ADDR_L where="on the peer"
	fi
	ip -n "$ns" xfrm policy add src "$src/32" dst "$dst/32" dir out tmpl proto esp mode transport ||
		fail "cannot add the policy in the way"
	peer_snapshot "$PEER_NS_L" > "$TMP/l.before"
	peer_snapshot "$PEER_NS_P" > "$TMP/p.before"
	run_l "$IPSECPERF" run --quiet "${PEER_ARGS[@]}" -t 1 -O 0 -r 1 -o "$TMP/clash-$side" esp-null \
		> "$TMP/clash-$side.out" 2> "$TMP/clash-$side.err"
	rc=$?
	[ $rc = 0 ] || { cat "$TMP/clash-$side.err" >&2; fail "$side: a run skipping its scenario exited $rc"; }
	json_check --all --arg want "policy out $src -> $dst is there already $where, not made by this run" \
		"$TMP/clash-$side/runs.jsonl" '[r["status"] for r in rs] == ["skipped"] and rs[0]["reason"].startswith(want)' ||
		{ cat "$TMP/clash-$side.err" >&2; fail "$side: not skipped naming the policy in the way"; }
	reason=$(json_values "$TMP/clash-$side/runs.jsonl" 'r["status"] + ": " + r["reason"]')
	[ "$(policies "$ns")" = 1 ] || { ip -n "$ns" xfrm policy >&2; fail "$side: the policy in the way is gone, or others are left"; }
	run_l "$IPSECPERF" cleanup > "$TMP/cleanup-$side.out" 2> "$TMP/cleanup-$side.err" ||
		{ rc=$?; cat "$TMP/cleanup-$side.err" >&2; fail "$side: cleanup exited $rc"; }
	[ "$(policies "$ns")" = 1 ] || fail "$side: cleanup removed the policy that was in the way"
	peer_snapshot "$PEER_NS_L" > "$TMP/l.after"
	peer_snapshot "$PEER_NS_P" > "$TMP/p.after"
	assert_same_snapshot "$TMP/l.before" "$TMP/l.after" "$side: this end after the run and cleanup"
	assert_same_snapshot "$TMP/p.before" "$TMP/p.after" "$side: the peer after the run and cleanup"
	ip -n "$ns" xfrm policy del src "$src/32" dst "$dst/32" dir out
	info "$side: skipped with \"${reason:9:90}...\", the policy left"
done

# --- the host-wide lock ---------------------------------------------------------
# The first run holds the lock (no-tso changes the shared devices' offloads)
# until the test stops it with SIGINT, once the waiting run has said it waits.
peer_snapshot "$PEER_NS_L" > "$TMP/l.before"
peer_snapshot "$PEER_NS_P" > "$TMP/p.before"
ip netns exec "$PEER_NS_L" "$IPSECPERF" run --quiet "${PEER_ARGS[@]}" -t 300 -O 0 -r 1 -o "$TMP/first" no-tso \
	> "$TMP/first.out" 2> "$TMP/first.err" &
first=$!
lock="$IPSECPERF_JOURNAL_DIR/hostwide.lock"
for _ in $(seq 600); do
	[ "$(cut -d' ' -f1 "$lock" 2> /dev/null)" = "$first" ] && break
	sleep 0.1
done
[ "$(cut -d' ' -f1 "$lock" 2> /dev/null)" = "$first" ] || { kill $first; fail "the first run did not take the host-wide lock"; }

run_l "$IPSECPERF" run --quiet "${PEER_ARGS[@]}" --no-wait --port 5202 -t 1 -O 0 -r 1 -o "$TMP/nowait" no-tso \
	> "$TMP/nowait.out" 2> "$TMP/nowait.err"
rc=$?
[ $rc = 1 ] || { cat "$TMP/nowait.err" >&2; kill $first; fail "--no-wait exited $rc, not 1"; }
grep -q "another ipsecperf run holds host-wide changes (kernel modules, offloads of shared devices): run $first (started [0-9T:Z-]*); not waiting for it (--no-wait)" \
	"$TMP/nowait.err" || { cat "$TMP/nowait.err" >&2; kill $first; fail "--no-wait: no line naming the run in the way"; }
json_check --all "$TMP/nowait/runs.jsonl" '[r["status"] for r in rs] == ["failed"]' ||
	{ kill $first; fail "--no-wait: the scenario did not fail"; }

ip netns exec "$PEER_NS_L" "$IPSECPERF" run --quiet "${PEER_ARGS[@]}" --port 5202 -t 1 -O 0 -r 1 -o "$TMP/waits" no-tso \
	> "$TMP/waits.out" 2> "$TMP/waits.err" &
waits=$!
for _ in $(seq 1200); do
	grep -q 'waiting for run' "$TMP/waits.err" && break
	sleep 0.1
done
grep -q "^ipsecperf: waiting for run $first (started [0-9T:Z-]*) to release host-wide changes$" "$TMP/waits.err" ||
	{ cat "$TMP/waits.err" >&2; kill $first $waits; fail "the second run did not say for whom it waits"; }
sleep 1
[ -s "$TMP/waits/runs.jsonl" ] && { kill $first $waits; fail "the second run measured while the first held the lock"; }
released=$(date -u +%Y-%m-%dT%H:%M:%S.%NZ)
kill -INT $first
wait $first
rc=$?
[ $rc = 130 ] || { cat "$TMP/first.err" >&2; kill $waits; fail "the first run exited $rc after SIGINT, not 130"; }
wait $waits || { rc=$?; cat "$TMP/waits.err" >&2; fail "the waiting run exited $rc"; }
assert_records "$TMP/waits/runs.jsonl" '[r["status"] for r in rs] == ["ok"]' "the waiting run did not run ok"
# it measured after the first one let go
assert_jsonl --arg released "${released:0:23}" "$TMP/waits/runs.jsonl" 'r["start"] > released' \
	"the waiting run measured before the first one let go ($released)"
[ -e "$lock" ] && fail "the lock file is left after the runs"
peer_snapshot "$PEER_NS_L" > "$TMP/l.after"
peer_snapshot "$PEER_NS_P" > "$TMP/p.after"
assert_same_snapshot "$TMP/l.before" "$TMP/l.after" "this end after three runs"
assert_same_snapshot "$TMP/p.before" "$TMP/p.after" "the peer after three runs"
info "host-wide lock: --no-wait failed naming the holder, the other waited, then ran once the first let go"
exit 0
