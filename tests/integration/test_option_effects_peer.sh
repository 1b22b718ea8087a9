#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run options have their effect on the peer testbed (named for
# them by test_option_testbeds.sh). The devices get a second address each;
# one real peer run gives them, and each option is checked where it shows:
#   --addr-tx/-rx    the iperf3 client's JSON: local and remote host
#   --port           ... and remote port
#   --no-probes      every counter of both hosts unavailable
#   --repeat-from    the record's repeat and the raw files' names
#   --tag            the default folder results/<UTC>-peer-<tag>
#   --scenario-dir   a scenario only that folder has, read from there
# and a dry run with the same options prints the commands it would run on
# each host (the peer's through ssh), with those addresses and port, and
# changes nothing on either end.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/peer_lib.sh"

peer_setup
run_l() { ip netns exec "$PEER_NS_L" "$@"; }
TX=198.18.9.1 RX=198.18.9.2 PORT=5399
ip -n "$PEER_NS_L" addr add "$TX/24" dev "$PEER_DEV_L" || fail "cannot add $TX"
ip -n "$PEER_NS_P" addr add "$RX/24" dev "$PEER_DEV_P" || fail "cannot add $RX"
mkdir -p "$TMP/cwd" "$TMP/sc"
cp "$TOP/scenarios/clear.ini" "$TMP/sc/onlyhere.ini"
[ -e "$TOP/scenarios/onlyhere.ini" ] && fail "onlyhere.ini is in the tree's scenarios: pick another name"
OPTS=(--addr-tx "$TX" --addr-rx "$RX" --port "$PORT" --no-probes --repeat-from 7 --tag peerfx --scenario-dir "$TMP/sc"
      --congestion reno)

peer_snapshot "$PEER_NS_L" > "$TMP/l.before"
peer_snapshot "$PEER_NS_P" > "$TMP/p.before"

# --- the dry run: its commands --------------------------------------------
(cd "$TMP/cwd" && run_l "$IPSECPERF" run --dry-run --quiet "${PEER_ARGS[@]}" "${OPTS[@]}" -t 1 -O 0 -r 1 onlyhere) \
	> "$TMP/dry.out" 2> "$TMP/dry.err" || { rc=$?; cat "$TMP/dry.err" >&2; fail "the dry run exited $rc"; }
grep -qE "^ssh .*root@$PEER_MGMT_P .*iperf3 -s .*-B $RX -p $PORT'?( |$)" "$TMP/dry.out" ||
	{ cat "$TMP/dry.out" >&2; fail "dry run: no iperf3 server on the peer, through ssh, on $RX port $PORT"; }
grep -qE "^iperf3 -c $RX -B $TX -p $PORT -t 1 -O 0 -J -C reno" "$TMP/dry.out" ||
	{ cat "$TMP/dry.out" >&2; fail "dry run: no iperf3 client from $TX to $RX port $PORT here"; }
grep -q "^# scenario onlyhere: " "$TMP/dry.out" || { cat "$TMP/dry.out" >&2; fail "dry run: no scenario onlyhere"; }
[ -e "$TMP/cwd/results" ] && fail "the dry run made a results folder"
info "dry run: prints the peer's and this end's commands with the addresses and port given"

# --- the run ------------------------------------------------------------
(cd "$TMP/cwd" && run_l "$IPSECPERF" run --quiet "${PEER_ARGS[@]}" "${OPTS[@]}" -t 1 -O 0 -r 1 onlyhere) \
	> "$TMP/run.out" 2> "$TMP/run.err" || { rc=$?; cat "$TMP/run.err" >&2; fail "the peer run exited $rc"; }
out=$(ls -d "$TMP/cwd/results/"*-peer-peerfx 2> /dev/null)
[ "$(echo "$out" | grep -c .)" = 1 ] ||
	fail "--tag peerfx: no single results/*-peer-peerfx folder: $(ls "$TMP/cwd/results" 2> /dev/null)"
res="$out/runs.jsonl"
assert_records "$res" '[(r["scenario"], r["repeat"], r["status"], r["testbed"]) for r in rs] == [("onlyhere", 7, "ok", "peer")]' \
	"not one ok peer record of onlyhere numbered 7 (--scenario-dir, --repeat-from)"
assert_jsonl "$res" 'r["congestion"] == "reno"' "--congestion reno: the record does not say reno"
assert_json --arg f "$TMP/sc/onlyhere.ini" "$out/meta.json" '[s["file"] for s in d["scenarios"]] == [f]' \
	"--scenario-dir: meta.json does not name the scenario file in that folder"
client="$out/raw/onlyhere-r7-iperf3-client.json"
[ -f "$client" ] || fail "--repeat-from 7: no raw/onlyhere-r7-iperf3-client.json: $(ls "$out/raw")"
assert_json --arg tx $TX --arg rx $RX --arg port $PORT "$client" \
	'[(c["local_host"], c["remote_host"], c["remote_port"]) for c in d["start"]["connected"]] == [(tx, rx, int(port))]' \
	"--addr-tx/--addr-rx/--port: iperf3 did not connect from $TX to $RX:$PORT"
assert_json --arg rx $RX --arg port $PORT "$out/raw/onlyhere-r7-iperf3-server.json" \
	'd["start"]["connected"][0]["local_host"] == rx and d["start"]["connected"][0]["local_port"] == int(port)' \
	"the peer's iperf3 server did not serve on $RX:$PORT"
assert_jsonl "$res" 'all(len(r[k]) > 0 and all(c.get("count") is None for c in r[k].values())
	for k in ("counters", "counters_receiver"))' "--no-probes: a counter counted on one of the hosts"
info "addresses, port, no-probes, repeat-from, tag, scenario-dir: effective on peer"

peer_snapshot "$PEER_NS_L" > "$TMP/l.after"
peer_snapshot "$PEER_NS_P" > "$TMP/p.after"
assert_same_snapshot "$TMP/l.before" "$TMP/l.after" "this end after the runs"
assert_same_snapshot "$TMP/p.before" "$TMP/p.after" "the peer after the runs"
exit 0
