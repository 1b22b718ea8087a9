#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The host restored exactly: a snapshot of what a run can change
# (namespaces, links, ethtool -k of every host device, ip xfrm state and
# policy, the sysctls near the path, loaded modules) is the same before and
# after a run that succeeds, one that fails, one stopped by SIGINT, one by
# SIGTERM, and one killed by SIGKILL and then cleaned up by
# `ipsecperf cleanup`. The runs use clear, tcp-md5 (the built-in stream with
# TCP_MD5SIG keys) and esp-null (on a kernel without ESP its policies go in
# and out again before the scenario is skipped; with ESP, the SAs too).
# Then a run killed in no-gso has its offloads (set through ethtool netlink)
# set back by cleanup; netlink records with names that are not plain are
# refused; the journal's xfrm undo records are replayed by cleanup against
# policies made by hand, to show they delete exactly what they name.
. "$(dirname "$0")/lib.sh"

# Our own journal folder: cleanup must not touch other runs' journals.
export IPSECPERF_JOURNAL_DIR="$TMP/journal"

# Other runs and tests may be going on this host: their namespaces (ipsecperf-*)
# are left out here, and ours are checked by name.
host_snapshot() {
	echo "## netns"; ip netns list | awk '{print $1}' | grep -v '^ipsecperf-' | sort
	echo "## links"; ip -o link show | sed 's/^[0-9]*: //' | cut -d' ' -f1-3 | sort
	for d in $(ls /sys/class/net); do
		echo "## ethtool -k $d"; ethtool -k "$d" 2> /dev/null
	done
	echo "## xfrm state"; ip xfrm state
	echo "## xfrm policy"; ip xfrm policy
	echo "## sysctl"
	sysctl net.ipv4.tcp_rmem net.ipv4.tcp_wmem net.core.rmem_max net.core.wmem_max \
		net.ipv4.ip_forward net.ipv4.conf.all.forwarding net.core.xfrm_acq_expires 2> /dev/null
	echo "## modules"; cut -d' ' -f1,3 /proc/modules 2> /dev/null | sort
	echo "## journals"; ls "$IPSECPERF_JOURNAL_DIR" 2> /dev/null
}

ours_gone() { # pid what
	if ip netns list | grep -q "^ipsecperf-$1-"; then
		fail "$2: namespaces of run $1 left: $(ip netns list | grep "^ipsecperf-$1-" | tr '\n' ' ')"
	fi
	for p in $children; do
		[ -d /proc/$p ] && fail "$2: process $p of run $1 still alive: $(cat /proc/$p/comm)"
	done
	return 0
}

# The processes in a run's namespaces (iperf3, or the stream's receiver and sender).
children=""
note_children() { # pid
	children="$(ip netns pids "$(run_netns "$1" tx)" 2> /dev/null) $(ip netns pids "$(run_netns "$1" rx)" 2> /dev/null)"
}

host_snapshot > "$TMP/before"

# 1. success: clear and tcp-md5 ok; esp-null ok or skipped
"$IPSECPERF" run --quiet -t 2 -O 1 -r 1 -o "$TMP/ok" clear tcp-md5 esp-null \
	> "$TMP/ok.out" 2> "$TMP/ok.err" || { rc=$?; cat "$TMP/ok.err" >&2; fail "successful run exited $rc"; }
grep -q 'undo:' "$TMP/ok.err" && { cat "$TMP/ok.err" >&2; fail "an undo failed"; }
assert_records "$TMP/ok/runs.jsonl" '[(r["scenario"], r["status"]) for r in rs[:2]] == [("clear", "ok"), ("tcp-md5", "ok")]' \
	"clear and tcp-md5 did not both run ok"
assert_records "$TMP/ok/runs.jsonl" 'len(rs) == 3 and rs[2]["scenario"] == "esp-null" and rs[2]["status"] in ("ok", "skipped")' \
	"esp-null neither ok nor skipped"
host_snapshot > "$TMP/after"
assert_same_snapshot "$TMP/before" "$TMP/after" "after a successful run"

# 2. failure: tcp-md5 keys and offloads that cannot be combined
"$IPSECPERF" run --quiet -t 1 -O 0 -r 1 -o "$TMP/fail" "$TOP/tests/integration/scenarios/md5-cannot-apply.ini" \
	> "$TMP/fail.out" 2> "$TMP/fail.err"
rc=$?
[ $rc = 1 ] || { cat "$TMP/fail.err" >&2; fail "failed run exited $rc, not 1"; }
assert_records "$TMP/fail/runs.jsonl" '[r["status"] for r in rs] == ["failed"]' "no failed record"
host_snapshot > "$TMP/after"
assert_same_snapshot "$TMP/before" "$TMP/after" "after a failed run"

# 3, 4. SIGINT and SIGTERM in the middle of the tcp-md5 stream
for sig in INT TERM; do
	"$IPSECPERF" run --quiet -t 20 -O 0 -r 1 -o "$TMP/sig$sig" tcp-md5 > "$TMP/$sig.out" 2> "$TMP/$sig.err" &
	pid=$!
	wait_for_netns $pid 10 || fail "SIG$sig: the run did not start"
	sleep 2
	note_children $pid
	kill -$sig $pid
	wait $pid
	rc=$?
	[ $rc = $((128 + $(kill -l $sig))) ] || { cat "$TMP/$sig.err" >&2; fail "SIG$sig: exit $rc"; }
	ours_gone $pid "SIG$sig"
	host_snapshot > "$TMP/after"
	assert_same_snapshot "$TMP/before" "$TMP/after" "after SIG$sig"
done

# 5. SIGKILL: the run cannot undo; `ipsecperf cleanup` does, from the journal
"$IPSECPERF" run --quiet -t 20 -O 0 -r 1 -o "$TMP/kill" tcp-md5 > "$TMP/kill.out" 2> "$TMP/kill.err" &
pid=$!
wait_for_netns $pid 10 || fail "SIGKILL: the run did not start"
sleep 2
note_children $pid
# named by pid and start time: a later run with this pid is another name, and cleanup's undo never takes its namespace
start=$(awk '{print $22}' "/proc/$pid/stat")
[ "$(run_netns $pid tx)" = "ipsecperf-$pid-$start-tx" ] && [ "$(run_netns $pid rx)" = "ipsecperf-$pid-$start-rx" ] ||
	fail "the run's namespaces are not named by its pid and start time $start: $(ip netns list | grep "^ipsecperf-$pid-" | tr '\n' ' ')"
kill -KILL $pid
wait $pid 2> /dev/null
ls "$IPSECPERF_JOURNAL_DIR"/journal-$pid-*.jsonl > /dev/null 2>&1 || fail "SIGKILL: no journal left to clean up"
ip netns list | grep -q "^ipsecperf-$pid-" || fail "SIGKILL: the namespaces vanished by themselves?"
"$IPSECPERF" cleanup > "$TMP/cleanup.out" 2> "$TMP/cleanup.err" ||
	{ rc=$?; cat "$TMP/cleanup.err" >&2; fail "cleanup exited $rc"; }
grep -q 'undid 1 journal' "$TMP/cleanup.out" || fail "cleanup: $(cat "$TMP/cleanup.out")"
sleep 0.5 # PR_SET_PDEATHSIG kills are asynchronous
ours_gone $pid "SIGKILL + cleanup"
host_snapshot > "$TMP/after"
assert_same_snapshot "$TMP/before" "$TMP/after" "after SIGKILL and cleanup"

# 7. SIGKILL in no-gso: the offloads set through ethtool netlink are set back
# by cleanup from the journal alone. The namespace records are marked done
# first, so that cleanup leaves the namespaces, and their veths, to look at.
"$IPSECPERF" run --quiet -t 20 -O 0 -r 1 -o "$TMP/kill2" no-gso > /dev/null 2> "$TMP/kill2.err" &
pid=$!
wait_for_netns $pid 10 || fail "SIGKILL in no-gso: the run did not start"
for _ in $(seq 100); do # the load runs once the offloads are set
	[ -n "$(ip netns pids "$(run_netns $pid rx)" 2> /dev/null)" ] && break
	sleep 0.1
done
note_children $pid
kill -KILL $pid
wait $pid 2> /dev/null
k=$(run_netns $pid tx)
k=${k%-tx}
[ -n "$k" ] || fail "SIGKILL in no-gso: no namespace of run $pid"
trap 'ip netns del "$k-tx" 2> /dev/null; ip netns del "$k-rx" 2> /dev/null; rm -rf "$TMP"' EXIT
j=$(ls "$IPSECPERF_JOURNAL_DIR"/journal-$pid-*.jsonl) || fail "SIGKILL in no-gso: no journal"
python3 - "$j" "$k" << 'PY' || fail "SIGKILL in no-gso: the journal's records are not the netlink ones (above)"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
kinds = [r["kind"] for r in recs]
if not ("argv" not in kinds): raise AssertionError(kinds)  # no ip or ethtool command to undo
if not ([r["name"] for r in recs if r["kind"] == "netns"] == [sys.argv[2] + "-tx", sys.argv[2] + "-rx"]): raise AssertionError(recs)
feat = [r for r in recs if r["kind"] == "ethtool-features"]
if not (sorted(r["dev"] for r in feat) == ["ipp-rx", "ipp-tx"]): raise AssertionError(feat)
for r in feat:
    if not (r["wanted"]["tx-tcp-segmentation"] is True and r["wanted"]["tx-generic-segmentation"] is True): raise AssertionError(r)
with open(sys.argv[1], "a") as f:  # the namespaces stay, for the check below
    for r in recs:
        if r["kind"] == "netns":
            f.write(json.dumps({"done": r["seq"]}) + "\n")
PY
feature() { ip netns exec "$k-$1" ethtool -k "ipp-$1" | awk -v f="$2:" '$1 == f {print $2}'; }
[ "$(feature tx tcp-segmentation-offload)" = off ] || fail "SIGKILL in no-gso: tso was not off in the run"
"$IPSECPERF" cleanup > "$TMP/cleanup3.out" 2> "$TMP/cleanup3.err" ||
	{ rc=$?; cat "$TMP/cleanup3.err" >&2; fail "cleanup after SIGKILL in no-gso exited $rc"; }
for end in tx rx; do
	[ "$(feature $end tcp-segmentation-offload)/$(feature $end generic-segmentation-offload)" = on/on ] ||
		fail "cleanup did not set the offloads of ipp-$end back: $(ip netns exec "$k-$end" ethtool -k "ipp-$end" | grep -E 'segmentation-offload|receive-offload')"
done
ip netns del "$k-tx"
ip netns del "$k-rx"
sleep 0.5
ours_gone $pid "SIGKILL in no-gso + cleanup"
info "SIGKILL in no-gso: cleanup set the offloads back through ethtool netlink"

# 8. Netlink records are hostile input too: names that are not plain, and a
# namespace that is not ipsecperf's, are refused (said, kept, never retried).
other="ipp-notours-$$"
ip netns add "$other" || fail "cannot make namespace $other"
cat > "$IPSECPERF_JOURNAL_DIR/journal-999999998.jsonl" << EOF
{"kind":"netns","name":"$other","seq":1}
{"kind":"netns","name":"../../etc/passwd","seq":2}
{"kind":"netns","seq":3}
{"kind":"ethtool-features","netns":"../x","dev":"lo","wanted":{"rx-gro":true},"seq":4}
{"kind":"ethtool-features","netns":"$other","dev":"lo;id","wanted":{"rx-gro":true},"seq":5}
{"kind":"ethtool-features","netns":"$other","dev":"lo","wanted":{"rx gro":true},"seq":6}
{"kind":"ethtool-features","netns":"$other","dev":"lo","wanted":{"rx-gro":"yes"},"seq":7}
EOF
"$IPSECPERF" cleanup > "$TMP/hostile.out" 2> "$TMP/hostile.err"
rc=$?
ip netns list | grep -q "^$other" || fail "cleanup deleted a namespace that is not ipsecperf's"
ip netns del "$other"
[ $rc = 1 ] || { cat "$TMP/hostile.err" >&2; fail "cleanup of hostile netlink records exited $rc, not 1"; }
[ "$(grep -c 'bad name: not deleted' "$TMP/hostile.err")" = 3 ] &&
	[ "$(grep -c 'ethtool-features record with a bad' "$TMP/hostile.err")" = 4 ] ||
	{ cat "$TMP/hostile.err" >&2; fail "hostile netlink records: not each refused with its line"; }
[ -e /etc/passwd ] || fail "cleanup removed /etc/passwd"
rm -f "$IPSECPERF_JOURNAL_DIR/journal-999999998.jsonl"
info "hostile netlink records refused"

# 6. The xfrm undo records, replayed by cleanup after a "dead" run: two
# policies made by hand in a namespace of ours, an SA record for an SA
# that was never made (the run died before the kernel answered).
ns="ipsecperf-restore-$$"
ip netns add "$ns" || fail "cannot make namespace $ns"
trap 'ip netns del "$ns" 2> /dev/null; rm -rf "$TMP"' EXIT
ip -n "$ns" xfrm policy add src 198.18.0.1/32 dst 198.18.0.2/32 dir out tmpl proto esp mode transport ||
	fail "ip xfrm policy add failed"
ip -n "$ns" xfrm policy add src 198.18.0.2/32 dst 198.18.0.1/32 dir in tmpl proto esp mode transport
ip -n "$ns" xfrm policy add src 198.18.0.9/32 dst 198.18.0.2/32 dir out tmpl proto esp mode transport
cat > "$IPSECPERF_JOURNAL_DIR/journal-999999999.jsonl" << EOF
{"kind":"xfrm-policy","family":4,"src":"198.18.0.1","dst":"198.18.0.2","dir":"out","netns":"$ns","seq":1}
{"kind":"xfrm-policy","family":4,"src":"198.18.0.2","dst":"198.18.0.1","dir":"in","netns":"$ns","seq":2}
{"kind":"xfrm-state","family":4,"dst":"198.18.0.2","spi":"0x00001234","proto":"esp","netns":"$ns","seq":3}
EOF
"$IPSECPERF" cleanup > "$TMP/cleanup2.out" 2> "$TMP/cleanup2.err" ||
	{ rc=$?; cat "$TMP/cleanup2.err" >&2; fail "cleanup of xfrm records exited $rc"; }
left=$(ip -n "$ns" xfrm policy | grep -c '^src')
[ "$left" = 1 ] || { ip -n "$ns" xfrm policy >&2; fail "cleanup left $left policies, expected only the one not journaled"; }
ip -n "$ns" xfrm policy | grep -q 'src 198.18.0.9/32' || fail "cleanup deleted a policy it did not journal"
[ -e "$IPSECPERF_JOURNAL_DIR/journal-999999999.jsonl" ] && fail "cleanup kept a journal it undid"
ip netns del "$ns"
exit 0
