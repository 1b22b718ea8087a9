#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Nothing left behind: namespaces, links, processes and journals are as
# they were after success (test_netns_matrix), after a failed run, after
# SIGINT and after SIGTERM.
. "$(dirname "$0")/lib.sh"

snapshot > "$TMP/before"

# A failed run: tx checksumming off makes the kernel drop TSO, so "tso = on"
# cannot take; the run must record the failure and still restore the host.
"$IPSECPERF" run --quiet -t 1 -O 0 -r 1 -o "$TMP/fail" "$TOP/tests/integration/scenarios/cannot-apply.ini" \
	> "$TMP/fail.out" 2> "$TMP/fail.err"
rc=$?
[ $rc = 1 ] || { cat "$TMP/fail.err" >&2; fail "failed run exited $rc, not 1"; }
assert_records "$TMP/fail/runs.jsonl" '[r["status"] for r in rs] == ["failed"]' "no failed record"
assert_jsonl "$TMP/fail/runs.jsonl" 'match("did not turn on", r["reason"])' "no reason in the record"
snapshot > "$TMP/after"
assert_same_snapshot "$TMP/before" "$TMP/after" "after a failed run"

for sig in INT TERM; do
	"$IPSECPERF" run --quiet -t 30 -O 0 -r 1 -o "$TMP/sig$sig" clear > "$TMP/$sig.out" 2> "$TMP/$sig.err" &
	pid=$!
	wait_for_netns $pid 10 || fail "SIG$sig: the run did not start"
	sleep 2 # inside iperf3's run
	kill -$sig $pid
	wait $pid
	rc=$?
	expect=$((128 + $(kill -l $sig)))
	[ $rc = $expect ] || { cat "$TMP/$sig.err" >&2; fail "SIG$sig: exit $rc, expected $expect"; }
	grep -q 'restored' "$TMP/$sig.err" || fail "SIG$sig: no word that the host was restored"
	snapshot > "$TMP/after"
	assert_same_snapshot "$TMP/before" "$TMP/after" "after SIG$sig"
done
exit 0
