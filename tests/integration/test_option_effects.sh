#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run options have their effect on the netns testbed (accepted and
# effective, or refused; test_option_testbeds.sh names this test for them).
# One short real run combines them and each is checked where it shows:
#   --tag            the default folder results/<UTC>-netns-<tag>
#   --addr-tx/-rx    the iperf3 client's own JSON: local and remote host
#   --port           ... and remote port, and the addresses in meta.json
#   --prefix-len     the sender's address in its namespace while it runs
#   --repeat-from    the record's repeat and the raw files' names
#   --scenario-dir   a scenario only that folder has, read from there
#   --profile-hz     the record's profile.hz
#   --no-probes      every counter unavailable
#   -C, --congestion the records' and meta.json's congestion control
# and a second run of an IPsec scenario, while this test holds the host-wide
# lock as another run would, shows --no-wait: it fails at once naming it.
. "$(dirname "$0")/lib.sh"

command -v iperf3 > /dev/null || skip_ours "no iperf3"
command -v perf > /dev/null || skip_ours "perf not installed (apt-get install linux-perf)"
# this test's journals and lock, apart from other runs on this host
export IPSECPERF_JOURNAL_DIR="$TMP/journal"
mkdir -p "$TMP/cwd" "$TMP/sc"
mkdir -m 0700 "$IPSECPERF_JOURNAL_DIR"
cp "$TOP/scenarios/clear.ini" "$TMP/sc/onlyhere.ini"
[ -e "$TOP/scenarios/onlyhere.ini" ] && fail "onlyhere.ini is in the tree's scenarios: pick another name"
# IPv6: the addresses' family is the run's (the other tests run IPv4)
TX=2001:db8:61::1 RX=2001:db8:61::2 PORT=5377

(cd "$TMP/cwd" && exec "$IPSECPERF" run --quiet -t 1 -O 0 -r 1 --tag effects --addr-tx $TX --addr-rx $RX \
	--prefix-len 126 --port $PORT --repeat-from 4 --scenario-dir "$TMP/sc" --profile --profile-hz 49 \
	--no-probes -C reno onlyhere) > "$TMP/run.out" 2> "$TMP/run.err" &
pid=$!
# --prefix-len: the sender's address, as the kernel has it while the run is on
addr=""
if wait_for_netns $pid 20; then
	for _ in $(seq 100); do
		addr=$(ip -n "$(run_netns $pid tx)" -o -6 addr show scope global 2> /dev/null | awk '$2 != "lo" {print $4}')
		[ -n "$addr" ] && break
		sleep 0.05
	done
fi
wait $pid || { rc=$?; cat "$TMP/run.err" >&2; fail "the run with every option exited $rc"; }
ip netns list | grep -q "^ipsecperf-$pid-" && fail "the run left its namespaces"
[ "$addr" = "$TX/126" ] || fail "--prefix-len 126: the sender's address in its namespace was '$addr', not $TX/126"

out=$(ls -d "$TMP/cwd/results/"*-netns-effects 2> /dev/null)
[ "$(echo "$out" | grep -c .)" = 1 ] ||
	fail "--tag effects: no single results/*-netns-effects folder: $(ls "$TMP/cwd/results" 2> /dev/null)"
res="$out/runs.jsonl"
assert_records "$res" '[(r["scenario"], r["repeat"], r["status"]) for r in rs] == [("onlyhere", 4, "ok")]' \
	"not one ok record of onlyhere numbered 4 (--scenario-dir, --repeat-from)"
assert_json --arg f "$TMP/sc/onlyhere.ini" "$out/meta.json" '[s["file"] for s in d["scenarios"]] == [f]' \
	"--scenario-dir: meta.json does not name the scenario file in that folder"
client="$out/raw/onlyhere-r4-iperf3-client.json"
[ -f "$client" ] || fail "--repeat-from 4: no raw/onlyhere-r4-iperf3-client.json: $(ls "$out/raw")"
assert_json --arg tx $TX --arg rx $RX --arg port $PORT "$client" \
	'[(c["local_host"], c["remote_host"], c["remote_port"]) for c in d["start"]["connected"]] == [(tx, rx, int(port))]' \
	"--addr-tx/--addr-rx/--port: iperf3 did not connect from $TX to $RX:$PORT"
assert_json --arg tx $TX --arg rx $RX "$out/meta.json" 'd["addresses"] == [tx, rx]' \
	"meta.json does not give the addresses asked for"
assert_jsonl "$res" 'r["profile"]["status"] == "ok" and r["profile"]["hz"] == 49' \
	"--profile-hz 49: the profile is not ok at 49 Hz"
assert_jsonl "$res" 'r["congestion"] == "reno"' "-C reno: the record does not say reno"
assert_json "$out/meta.json" 'd["params"]["congestion"] == "reno"' "-C reno: not in meta.json's params"
assert_jsonl "$res" 'len(r["counters"]) > 0 and all(c.get("count") is None for c in r["counters"].values())' \
	"--no-probes: a counter counted"
info "tag, addresses, port, prefix length, repeat-from, scenario-dir, profile-hz, no-probes: effective"

# --no-wait: another run holds the host-wide lock (this test, with its note)
exec 9> "$IPSECPERF_JOURNAL_DIR/hostwide.lock"
flock 9 || fail "cannot take the lock myself"
echo "$$ $(date +%s)" >&9
t0=$(date +%s)
timeout 60 "$IPSECPERF" run --quiet -t 1 -O 0 -r 1 --no-wait -o "$TMP/nowait" esp-null \
	> "$TMP/nowait.out" 2> "$TMP/nowait.err"
rc=$?
t1=$(date +%s)
exec 9>&-
rm -f "$IPSECPERF_JOURNAL_DIR/hostwide.lock"
[ $rc = 1 ] || { cat "$TMP/nowait.err" >&2; fail "--no-wait with the lock held exited $rc, not 1"; }
[ $((t1 - t0)) -lt 20 ] || fail "--no-wait took $((t1 - t0)) s: it waited"
grep -q "another ipsecperf run holds host-wide changes .*: run $$ (started .*); not waiting for it (--no-wait)" \
	"$TMP/nowait.err" || { cat "$TMP/nowait.err" >&2; fail "--no-wait: no line naming the holder"; }
assert_records "$TMP/nowait/runs.jsonl" '[(r["scenario"], r["status"]) for r in rs] == [("esp-null", "failed")]' \
	"--no-wait: esp-null did not fail"
info "no-wait: failed at once naming the holder"
left=$(ls -A "$IPSECPERF_JOURNAL_DIR")
[ -z "$left" ] || fail "journals left behind: $left"
exit 0
