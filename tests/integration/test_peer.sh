#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The peer testbed with real ssh: a namespace plays the peer host
# with its own sshd, another plays this host; ipsecperf runs clear and
# tcp-md5 across the veth between them, esp-null and wireguard (or their
# skips), then tcp-rr and udp-rate (their
# receivers the peer agent's; a peer whose agent lacks the responder). Checks the records, that both ends
# are as they were, and a lost connection: sshd killed mid-run fails the
# run, this end is restored at once, the peer by `ipsecperf cleanup` once
# sshd is back.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/peer_lib.sh"

# What this test could leave on the host (other tests may run alongside:
# the host-wide snapshot of lib.sh would see their namespaces come and go).
mine() {
	echo "## netns"; ip netns list | grep "^ipsecperf-peertest-$$-" || true
	echo "## links"; ip -o link show | grep -o 'ippt-[lpm]*' || true
	echo "## processes"; ps -eo args= | grep -E "^(/usr/sbin/sshd -D -e -f $TMP/|$IPSECPERF peer-agent)" || true
}
mine > "$TMP/host.before"
peer_setup
run_l() { ip netns exec "$PEER_NS_L" "$@"; }

# what a session starts carries this test's lane (lib.sh), so the test
# beside it can tell a session's orphan from its own leftover
if [ -n "${IPSECPERF_TEST_LANE:-}" ]; then
	lane=$(run_l ssh -i "$TMP/id_test" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR \
		"root@$PEER_MGMT_P" printenv IPSECPERF_TEST_LANE)
	[ "$lane" = "$IPSECPERF_TEST_LANE" ] || fail "an ssh session's lane is '$lane', not '$IPSECPERF_TEST_LANE'"
fi

peer_snapshot "$PEER_NS_L" > "$TMP/l.before"
peer_snapshot "$PEER_NS_P" > "$TMP/p.before"

# --- clear and tcp-md5 ---------------------------------------------------
# (ip netns exec execs the program: $! is its pid, for the CPU sampler)
ip netns exec "$PEER_NS_L" "$IPSECPERF" run --quiet "${PEER_ARGS[@]}" --cpu-tx 0 --cpu-rx 1 -t 2 -O 1 -r 1 -o "$TMP/res" \
	clear tcp-md5 > "$TMP/run.out" 2> "$TMP/run.err" &
run=$!
python3 "$TOP/tests/integration/cpu_check.py" sample "$TMP/cpu.json" $run &
sampler=$!
wait $run
rc=$?
[ $rc = 0 ] || { cat "$TMP/run.err" >&2; fail "peer run exited $rc"; }
wait $sampler || fail "the CPU sampler exited $?"
res="$TMP/res/runs.jsonl"
assert_records "$res" '[(r["scenario"], r["load"]) for r in rs] == [("clear", "iperf3"), ("tcp-md5", "stream")]' \
	"not two records, clear with iperf3 then tcp-md5 with the stream"
assert_jsonl "$res" 'r["status"] == "ok" and r["testbed"] == "peer"' "status not ok, or testbed not peer"
assert_jsonl "$res" 'r["throughput_bps"] > 0' "no throughput"
assert_jsonl "$res" 'r["cpu_busy_s"]["sender"] > 0 and r["cpu_busy_s"]["receiver"] > 0' "no busy time on one side"
assert_jsonl "$res" 'r["cycles_per_byte_sender"] > 0 and r["cycles_per_byte_receiver"] > 0' "no cycles per byte on one side"
assert_jsonl "$res" 'abs(r["cycles_per_byte"] - r["cycles_per_byte_sender"] - r["cycles_per_byte_receiver"]) <
	1e-6 * max(r["cycles_per_byte"], 1)' "cycles_per_byte is not the sum"
assert_jsonl "$res" 'r["peer_kernel"] != ""' "no peer kernel"
assert_jsonl "$res" 'r["cpus"] == {"sender": 0, "receiver": 1}' "not pinned as asked"
# the sending host's busy time and cycles against /proc/stat read by a second program (cpu_check.py)
python3 "$TOP/tests/integration/cpu_check.py" check "$TMP/cpu.json" "$TMP/res" || exit 1
# the peer's probes, loaded by its agent: the same counters, on the peer's device
assert_jsonl "$res" 'set(r["counters_receiver"]) == set(r["counters"])' "counters_receiver has not the counters' names"
assert_jsonl "$res" 'r["counters"]["xmit_skbs"].get("count") is None or r["counters_receiver"]["xmit_skbs"]["count"] > 0' \
	"the peer's probes counted no xmit (its ACKs)"
# the server's JSON came back through ssh's stdout
assert_json "$TMP/res/raw/clear-r1-iperf3-server.json" 'd["end"]["sum_received"]["bytes"] > 0' \
	"the peer's iperf3 JSON is not in raw/"
assert_json "$TMP/res/meta.json" 'd["peer"]["agent"] is True and d["peer"]["receiver"]["mtu"] == d["peer"]["sender"]["mtu"]' \
	"meta.json has no usable peer section"
# both hosts' set-up as found, the peer's told by its agent, and the mail that shows them
assert_json "$TMP/res/meta.json" 'd["kernels"][0]["setup"]["nics"][0]["dev"] == "ippt-l" and
	d["kernels"][0]["setup"]["nics"][0]["driver"] == "veth" and d["kernels"][0]["setup_receiver"]["nics"][0]["dev"] == "ippt-p" and
	d["kernels"][0]["setup_receiver"]["cpu"]["cpus"] > 0 and d["kernels"][0]["setup_receiver"]["tcp_congestion_control"] != ""' \
	"meta.json lacks either host's set-up"
"$IPSECPERF" report --summary "$TMP/res" > "$TMP/mail.txt" || fail "report --summary: exit $?"
for want in "^receiver: root@$PEER_MGMT_P$" '^  nic +ippt-l: veth' '^  nic +ippt-p: veth' '^ +sender +receiver$'; do
	grep -qE "$want" "$TMP/mail.txt" || { cat "$TMP/mail.txt" >&2; fail "the mail lacks /$want/"; }
done
# the key: never in what the run wrote
if grep -rqiE '"key"|tcpm_key' "$TMP/res"; then fail "a key field in the results"; fi

peer_snapshot "$PEER_NS_L" > "$TMP/l.after"
peer_snapshot "$PEER_NS_P" > "$TMP/p.after"
assert_same_snapshot "$TMP/l.before" "$TMP/l.after" "this end after the run"
assert_same_snapshot "$TMP/p.before" "$TMP/p.after" "the peer after the run"
info "clear and tcp-md5: ok, both ends restored"

# --- request/response and packet rate: their receivers are the peer agent's --
# tcp-rr's responder and udp-rate's receiver run on the peer, started by its
# agent; the rate's kernel counters are read on both hosts.
mkdir -p "$TMP/rrsc"
cp "$TOP"/scenarios/{tcp-rr,udp-rate}.ini "$TMP/rrsc"/
printf 'step-ms = 150\nsteps = 4\n' >> "$TMP/rrsc/udp-rate.ini"
run_l "$IPSECPERF" run --quiet "${PEER_ARGS[@]}" --scenario-dir "$TMP/rrsc" -t 1 -O 1 -r 1 -o "$TMP/rr" tcp-rr udp-rate \
	> "$TMP/rr.out" 2> "$TMP/rr.err" || { rc=$?; cat "$TMP/rr.err" >&2; fail "peer tcp-rr udp-rate: exit $rc"; }
assert_records "$TMP/rr/runs.jsonl" '[(r["scenario"], r["status"], r["unit"]) for r in rs] ==
	[("tcp-rr", "ok", "transaction"), ("udp-rate", "ok", "datagram")]' "peer: tcp-rr and udp-rate not ok"
assert_records "$TMP/rr/runs.jsonl" 'rs[0]["transactions"] > 0 and rs[0]["cycles_per_transaction_sender"] > 0 and
	rs[0]["cycles_per_transaction_receiver"] > 0' "peer: tcp-rr without transactions or either host's cycles"
assert_records "$TMP/rr/runs.jsonl" 'rs[1]["kernel_drops"]["receiver"]["UdpInDatagrams"] == rs[1]["datagrams"] > 0' \
	"peer: the peer's UdpInDatagrams is not the receiver's count"
peer_snapshot "$PEER_NS_L" > "$TMP/l.after"
peer_snapshot "$PEER_NS_P" > "$TMP/p.after"
assert_same_snapshot "$TMP/l.before" "$TMP/l.after" "this end after tcp-rr and udp-rate"
assert_same_snapshot "$TMP/p.before" "$TMP/p.after" "the peer after tcp-rr and udp-rate"
# a peer whose ipsecperf has no responder (a stand-in: the real agent, never told of rr-serve)
printf '#!/bin/sh\nsed -u '"'"'s/"op":"rr-serve"/"op":"rr-serve-unknown"/'"'"' | "%s" "$@"\n' "$IPSECPERF" > "$TMP/no-rr"
chmod +x "$TMP/no-rr"
run_l "$IPSECPERF" run --quiet "${PEER_ARGS[@]}" --peer-ipsecperf "$TMP/no-rr" --scenario-dir "$TMP/rrsc" -t 1 -O 1 -r 1 \
	-o "$TMP/norr" tcp-rr > "$TMP/norr.out" 2> "$TMP/norr.err"
rc=$?
[ $rc = 1 ] || { cat "$TMP/norr.err" >&2; fail "a peer without the responder: exit $rc, not 1"; }
assert_records "$TMP/norr/runs.jsonl" '[r["status"] for r in rs] == ["failed"] and
	match("the peer.s ipsecperf has no tcp-rr responder .*install this version there", rs[0]["reason"])' \
	"a peer without the responder: not failed saying so"
peer_snapshot "$PEER_NS_L" > "$TMP/l.after"
peer_snapshot "$PEER_NS_P" > "$TMP/p.after"
assert_same_snapshot "$TMP/l.before" "$TMP/l.after" "this end after a peer without the responder"
assert_same_snapshot "$TMP/p.before" "$TMP/p.after" "the peer after a peer without the responder"
info "tcp-rr and udp-rate: ok through the agent; a peer without the responder: failed, saying so, both ends restored"

# --- ESP: SAs and policies on both ends ------------------------------------
# On a kernel with ESP the run measures and every SA counts packets; on one
# without (a cloud VM's own kernel) the policies still go in on both ends and
# out again, and the scenario is skipped saying why.
run_l "$IPSECPERF" run --quiet "${PEER_ARGS[@]}" -t 2 -O 1 -r 1 -o "$TMP/esp" esp-null \
	> "$TMP/esp.out" 2> "$TMP/esp.err"
rc=$?
assert_records "$TMP/esp/runs.jsonl" 'len(rs) == 1' "esp-null: not one record"
st=$(json_values "$TMP/esp/runs.jsonl" 'r["status"]')
case "$st" in
ok)
	[ $rc = 0 ] || fail "esp-null ok but exit $rc"
	assert_jsonl "$TMP/esp/runs.jsonl" 'sorted((s["host"], s["dir"], s["packets"] > 0) for s in r["sa"]) ==
		[("receiver", "in", True), ("receiver", "out", True), ("sender", "in", True), ("sender", "out", True)]' \
		"esp-null: not every SA on both hosts counted packets"
	info "esp-null: ok, four SAs on two hosts counted packets" ;;
skipped)
	json_check --each "$TMP/esp/runs.jsonl" 'match("no ESP|cannot make|lacks", r["reason"])' ||
		{ cat "$TMP/esp/runs.jsonl" >&2; fail "esp-null skipped for another reason than a kernel without ESP"; }
	info "esp-null: skipped (this kernel has no ESP): $(json_values "$TMP/esp/runs.jsonl" 'r["reason"]' | cut -c1-90)" ;;
*)
	cat "$TMP/esp.err" >&2; fail "esp-null: status '$st'" ;;
esac
# WireGuard likewise: its devices on both hosts (the peer's by its agent),
# or skipped where the kernel has no wireguard module, saying so.
run_l "$IPSECPERF" run --quiet "${PEER_ARGS[@]}" -t 2 -O 1 -r 1 -o "$TMP/wg" wireguard > "$TMP/wg.out" 2> "$TMP/wg.err" ||
	json_check --each "$TMP/wg/runs.jsonl" 'r["status"] == "skipped"' || { rc=$?; cat "$TMP/wg.err" >&2; fail "wireguard: exit $rc"; }
python3 - "$TMP/wg/runs.jsonl" << 'PY' || fail "wireguard on the peer testbed (above)"
import sys
from assert_json import records
from enclink_check import check_enclink
rs = records(sys.argv[1])
if not (len(rs) == 1): raise AssertionError(f"{len(rs)} records")
r = rs[0]
if r["status"] == "skipped":
    if not ("no WireGuard" in r["reason"] and "CONFIG_WIREGUARD" in r["reason"]): raise AssertionError(r["reason"])
    print(f"  wireguard: skipped: {r['reason'][:90]}", file=sys.stderr)
else:
    check_enclink(r, "wireguard", "chacha20-poly1305")
PY
peer_snapshot "$PEER_NS_L" > "$TMP/l.after"
peer_snapshot "$PEER_NS_P" > "$TMP/p.after"
assert_same_snapshot "$TMP/l.before" "$TMP/l.after" "this end after esp-null and wireguard"
assert_same_snapshot "$TMP/p.before" "$TMP/p.after" "the peer after esp-null and wireguard"

# ssh over the link under test: ESP policies would take it, so ESP is refused
run_l "$IPSECPERF" run --quiet "${PEER_ARGS[@]}" --peer "root@$PEER_ADDR_P" -t 1 -r 1 -o "$TMP/esplink" esp-null \
	> "$TMP/esplink.out" 2> "$TMP/esplink.err"
json_check --all "$TMP/esplink/runs.jsonl" '[r["status"] for r in rs] == ["skipped"] and
	rs[0]["reason"].startswith("ssh reaches the peer over the link under test")' ||
	{ cat "$TMP/esplink.err" >&2; fail "ESP with ssh over the link under test was not refused"; }

# --- the agent runs the peer's commands ----------------------------------------
# Once it answers, the checks' and the offloads' commands on the peer go to
# the agent (no ssh connection and remote shell each); the undo of a change
# is journaled as before, for ssh to run (here and by `cleanup`).
run_l "$IPSECPERF" -v -v run "${PEER_ARGS[@]}" -t 1 -O 0 -r 1 -o "$TMP/byagent" no-tso \
	> "$TMP/byagent.out" 2> "$TMP/byagent.err" || { cat "$TMP/byagent.err" >&2; fail "a -v -v no-tso run failed"; }
for c in "ip -j addr show dev $PEER_DEV_P" "ethtool $PEER_DEV_P" "uname -r" "printenv SSH_CONNECTION" \
	"ethtool -K $PEER_DEV_P tso off"; do
	grep -qF "+ by the agent on root@$PEER_MGMT_P: $c" "$TMP/byagent.err" ||
		{ cat "$TMP/byagent.err" >&2; fail "the agent did not run '$c' on the peer"; }
done
grep -E "^ipsecperf: \+ ssh .* '(ip -j addr|ethtool [^-]|ethtool -[ik] |uname)" "$TMP/byagent.err" && { grep -E "^ipsecperf: \+ ssh" "$TMP/byagent.err" >&2;
	fail "a check's command went through ssh although the agent answered"; }
peer_snapshot "$PEER_NS_P" > "$TMP/p.after"
assert_same_snapshot "$TMP/p.before" "$TMP/p.after" "the peer after no-tso by the agent"

# --- a peer without ipsecperf -------------------------------------------------
# clear still runs (the peer's busy time from its /proc/stat through ssh);
# tcp-md5 needs the agent for its key and is skipped, saying so.
run_l "$IPSECPERF" run --quiet "${PEER_ARGS[@]}" --peer-ipsecperf /nonexistent/ipsecperf -t 2 -O 1 -r 1 \
	-o "$TMP/noagent" clear tcp-md5 tcp-rr > "$TMP/noagent.out" 2> "$TMP/noagent.err"
rc=$?
[ $rc = 0 ] || { cat "$TMP/noagent.err" >&2; fail "without the agent: exit $rc"; }
na="$TMP/noagent/runs.jsonl"
assert_records "$na" '[(r["scenario"], r["status"]) for r in rs] ==
	[("clear", "ok"), ("tcp-md5", "skipped"), ("tcp-rr", "skipped")]' "without the agent: not clear ok, tcp-md5 and tcp-rr skipped"
assert_records "$na" 'match("needs ipsecperf on the peer", rs[1]["reason"]) and match("needs ipsecperf on the peer", rs[2]["reason"])' \
	"without the agent: tcp-md5's or tcp-rr's reason does not say it needs ipsecperf on the peer"
# the skipped record has no figures: only the ok one is asked for them; its
# receiver cycles are null by design (nothing on the peer counts them)
assert_jsonl "$na" 'r["status"] == "skipped" or
	(r["cpu_busy_s"]["receiver"] > 0 and "cycles_per_byte_receiver" in r and r.get("cycles_per_byte_receiver") is None)' \
	"without the agent: no receiver busy time, or cycles where none can be counted"
peer_snapshot "$PEER_NS_L" > "$TMP/l.after"
peer_snapshot "$PEER_NS_P" > "$TMP/p.after"
assert_same_snapshot "$TMP/l.before" "$TMP/l.after" "this end after the run without the agent"
assert_same_snapshot "$TMP/p.before" "$TMP/p.after" "the peer after the run without the agent"
info "without ipsecperf on the peer: clear ok, tcp-md5 and tcp-rr skipped with the reason"
# the message says how to install it there, exactly
semver=$(awk 'NR == 1 { gsub(/[()]/, ""); print $2; exit }' "$TOP/debian/changelog")
deb="ipsecperf_${semver}_$(dpkg --print-architecture).deb"
install_cmd="scp $deb root@$PEER_MGMT_P:/tmp/ && ssh root@$PEER_MGMT_P apt-get install -y --no-install-recommends /tmp/$deb"
grep -qF "$install_cmd" "$TMP/noagent.err" ||
	{ cat "$TMP/noagent.err" >&2; fail "without the agent: the warning does not give the install command '$install_cmd'"; }

assert_json "$TMP/noagent/meta.json" '"does not run on the peer" in d["kernels"][0]["setup_receiver"]["unavailable"]' \
	"without the agent: the peer's set-up does not say why it is not known"
# every key of the peer's records and meta.json is on docs/results-format.md
python3 "$TOP/tests/integration/doc_keys.py" "$TOP/docs/results-format.md" "$TMP/res" "$TMP/noagent" >&2 ||
	fail "the peer testbed writes keys docs/results-format.md does not have (above)"

# --- a peer with another release of ipsecperf ------------------------------
# A stand-in for the peer's program: the real agent, whose hello says 0.0.1.
cat > "$TMP/other-release" << EOF
#!/bin/sh
"$IPSECPERF" "\$@" | sed -u -E '1s/"version": ?"[^"]*"/"version": "0.0.1"/'
EOF
chmod +x "$TMP/other-release"
run_l "$IPSECPERF" run --quiet "${PEER_ARGS[@]}" --peer-ipsecperf "$TMP/other-release" -t 1 -O 1 -r 1 \
	-o "$TMP/other" clear > "$TMP/other.out" 2> "$TMP/other.err"
rc=$?
[ $rc = 0 ] || { cat "$TMP/other.err" >&2; fail "with another release on the peer: exit $rc"; }
grep -q "the peer's ipsecperf is 0\.0\.1 .*this one $semver (.*install this version there: " "$TMP/other.err" &&
	grep -qF "$install_cmd" "$TMP/other.err" ||
	{ cat "$TMP/other.err" >&2; fail "another release on the peer: no warning with the install command"; }
info "another release on the peer: said so, with '$install_cmd'"

# --- checks before a run ---------------------------------------------------
ip -n "$PEER_NS_P" link set "$PEER_DEV_P" mtu 1400
run_l "$IPSECPERF" run --quiet "${PEER_ARGS[@]}" -t 1 -r 1 -o "$TMP/mtu" clear > "$TMP/mtu.out" 2> "$TMP/mtu.err"
rc=$?
ip -n "$PEER_NS_P" link set "$PEER_DEV_P" mtu 1500
[ $rc = 1 ] || { cat "$TMP/mtu.err" >&2; fail "an MTU mismatch exited $rc, not 1"; }
grep -q 'MTU differs: 1500 on ippt-l here, 1400 on ippt-p' "$TMP/mtu.err" || { cat "$TMP/mtu.err" >&2; fail "no MTU message"; }
run_l "$IPSECPERF" run --quiet "${PEER_ARGS[@]}" --addr-rx 198.18.7.99 -t 1 -r 1 -o "$TMP/addr" clear \
	> "$TMP/addr.out" 2> "$TMP/addr.err"
[ $? = 1 ] && grep -q '198.18.7.99 is not an address of ippt-p' "$TMP/addr.err" ||
	{ cat "$TMP/addr.err" >&2; fail "a wrong --addr-rx was not refused clearly"; }
run_l "$IPSECPERF" run --quiet --testbed peer --peer "root@$PEER_ADDR_P" --ssh-option BatchMode=no \
	--ssh-option IdentityFile=/nonexistent --ssh-option StrictHostKeyChecking=no --ssh-option UserKnownHostsFile=/dev/null \
	--dev "$PEER_DEV_L" --peer-dev "$PEER_DEV_P" -t 1 -r 1 -o "$TMP/nokey" clear < /dev/null > "$TMP/nokey.out" 2> "$TMP/nokey.err"
[ $? = 1 ] && grep -q 'cannot reach the peer with ssh' "$TMP/nokey.err" ||
	{ cat "$TMP/nokey.err" >&2; fail "no key: not refused clearly (or a prompt)"; }
info "checks: MTU mismatch, foreign address, no ssh key: refused"

# the stream's receiver is a second agent process on the peer: wait (30 s at most) for it
wait_stream_rx() {
	for _ in $(seq 300); do
		[ "$(peer_procs "$PEER_NS_P" | grep -c 'peer-agent')" -ge 2 ] && return 0
		sleep 0.1
	done
	return 1
}

# --- Ctrl-C mid-run: both ends restored at once ---------------------------
# not through run_l: $! must be ipsecperf itself (ip netns exec execs it), not a subshell
ip netns exec "$PEER_NS_L" "$IPSECPERF" run --quiet "${PEER_ARGS[@]}" -t 20 -O 1 -r 1 -o "$TMP/int" tcp-md5 \
	> "$TMP/int.out" 2> "$TMP/int.err" &
pid=$!
wait_stream_rx || true # the SIGINT must come mid-run either way
sleep 2
kill -INT $pid
wait $pid
rc=$?
[ $rc = 130 ] || { cat "$TMP/int.err" >&2; fail "SIGINT: exit $rc, not 130"; }
for _ in $(seq 50); do [ -z "$(peer_procs "$PEER_NS_P")" ] && break; sleep 0.1; done
peer_snapshot "$PEER_NS_L" > "$TMP/l.after"
peer_snapshot "$PEER_NS_P" > "$TMP/p.after"
assert_same_snapshot "$TMP/l.before" "$TMP/l.after" "this end after SIGINT"
assert_same_snapshot "$TMP/p.before" "$TMP/p.after" "the peer after SIGINT"
info "SIGINT mid-run: exit 130, both ends restored"

# --- a lost connection -----------------------------------------------------
ip netns exec "$PEER_NS_L" "$IPSECPERF" run --quiet "${PEER_ARGS[@]}" -t 8 -O 1 -r 1 -o "$TMP/lost" tcp-md5 clear \
	> "$TMP/lost.out" 2> "$TMP/lost.err" &
pid=$!
wait_stream_rx || { kill $pid; fail "the stream did not start on the peer"; }
sleep 2
sshd_stop
wait $pid
rc=$?
[ $rc = 1 ] || { cat "$TMP/lost.err" >&2; fail "a lost connection exited $rc, not 1"; }
json_values "$TMP/lost/runs.jsonl" 'r["status"] + " " + r.get("reason", "")' > "$TMP/lost.status"
grep -q '^failed .*ssh connection to the peer was lost' "$TMP/lost.status" ||
	{ cat "$TMP/lost.status" "$TMP/lost.err" >&2; fail "no failed record saying the connection was lost"; }
grep -q "undo on root@$PEER_MGMT_P: \`ethtool -K ippt-p" "$TMP/lost.err" ||
	{ cat "$TMP/lost.err" >&2; fail "what could not be undone on the peer is not listed"; }
peer_snapshot "$PEER_NS_L" | grep -v '^journal-' > "$TMP/l.after"
grep -v '^journal-' "$TMP/l.before" | diff -u - "$TMP/l.after" >&2 || fail "this end is not restored after the lost connection"
# the peer's changes are journaled where a reboot of this host leaves them
ls "$IPSECPERF_PEER_JOURNAL_DIR" | grep -q '^journal-' || fail "no journal kept for the peer's changes"
cat "$IPSECPERF_PEER_JOURNAL_DIR"/journal-* > "$TMP/peer-journal.jsonl"
assert_records "$TMP/peer-journal.jsonl" 'any(r.get("kind") == "remote-argv" for r in rs)' "the peer's journal holds no remote-argv record"
ls "$IPSECPERF_JOURNAL_DIR" | grep -q '^journal-' && fail "a journal of this host's changes is left, though they were undone"
# the agent saw the end of its input and stopped its receiver
for _ in $(seq 50); do [ -z "$(peer_procs "$PEER_NS_P")" ] && break; sleep 0.1; done
[ -z "$(peer_procs "$PEER_NS_P")" ] || { peer_procs "$PEER_NS_P" >&2; fail "processes left on the peer"; }

# this host reboots (its /run, a tmpfs, is empty again), sshd comes back:
# cleanup reaches the peer through the journal's ssh options
rm -rf "$IPSECPERF_JOURNAL_DIR"
sshd_start
run_l "$IPSECPERF" cleanup > "$TMP/cleanup.out" 2> "$TMP/cleanup.err" ||
	{ cat "$TMP/cleanup.out" "$TMP/cleanup.err" >&2; fail "cleanup after the lost connection failed"; }
peer_snapshot "$PEER_NS_L" > "$TMP/l.after"
peer_snapshot "$PEER_NS_P" > "$TMP/p.after"
assert_same_snapshot "$TMP/l.before" "$TMP/l.after" "this end after cleanup"
assert_same_snapshot "$TMP/p.before" "$TMP/p.after" "the peer after cleanup"
info "lost connection: run failed with the reason, this end restored, the peer by cleanup"

# --- nothing left on the host ------------------------------------------------
sshd_stop
ip netns del "$PEER_NS_L"
ip netns del "$PEER_NS_P"
sshd_dir_release
mine > "$TMP/host.after"
assert_same_snapshot "$TMP/host.before" "$TMP/host.after" "the host after the test"
exit 0
