#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Several SA pairs (run --sas): esp-null with 2 SA pairs and 2 flows on
# Debian's stock 6.1 kernel in the VM testbed, 2 s, a throughput repeat and
# a counting repeat. Each pair carried its own flow: every SA counted
# packets, the pairs' data SAs each about their flow's share; esp_output
# counted per SPI over the whole load equals each out SA's own packet
# count, exactly; the policies of the flows' ports (two a port and end and
# direction) and the SAs are gone after the run; every record carries the
# kernel's xfrm_stat at both ends, none of its errors moved. The report
# and its summary have a row per pair, and one per xfrm_stat counter that
# moved (one set moved in a copy), within 72 columns. Bad --sas and
# sas = values exit 2 before anything changes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vm_lib.sh"

# bad input first: one line, exit 2 (no guest needed)
for bad in 0 17 x -1; do
	rc=0
	"$IPSECPERF" run --testbed vm --kernel /nonexistent --sas "$bad" --flows 2 esp-null > /dev/null 2> "$TMP/err" || rc=$?
	[ "$rc" = 2 ] || fail "--sas $bad: exit $rc, not 2"
	[ "$(wc -l < "$TMP/err")" = 1 ] || fail "--sas $bad: not one line: $(cat "$TMP/err")"
done
rc=0
"$IPSECPERF" run --sas 2 esp-null > /dev/null 2> "$TMP/err" || rc=$?
[ "$rc" = 2 ] && grep -q -- '--flows 2' "$TMP/err" || fail "--sas 2 with one flow: exit $rc: $(cat "$TMP/err")"
mkdir -p "$TMP/bad"
for v in 0 17 two ''; do
	sed "s/^esp-gso = off/esp-gso = off\nsas = $v/" "$TOP/scenarios/esp-null.ini" > "$TMP/bad/esp-null.ini"
	rc=0
	"$IPSECPERF" run --scenario-dir "$TMP/bad" --dry-run esp-null > /dev/null 2> "$TMP/err" || rc=$?
	[ "$rc" = 2 ] && grep -q 'sas must be' "$TMP/err" || fail "sas = '$v': exit $rc: $(cat "$TMP/err")"
done

k61=$(vm_kernel "$DEB61") || exit $?
info "kernel: $k61"
export IPSECPERF_JOURNAL_DIR="$TMP/journal"
snapshot() {
	echo "## netns"; ip netns list | awk '{print $1}' | grep -v '^ipsecperf-' | sort
	echo "## links"; ip -o link show | sed 's/^[0-9]*: //' | cut -d' ' -f1-3 | sort
	echo "## journals"; ls "$IPSECPERF_JOURNAL_DIR" 2> /dev/null
}
snapshot > "$TMP/before"
out="$TMP/res"
"$IPSECPERF" run --testbed vm --kernel "$k61" --vcpus 2 --duration 2 --omit 1 --repeat 1 --count-repeats 1 \
	--flows 2 --sas 2 -o "$out" esp-null > "$TMP/stdout" 2> "$TMP/stderr" ||
	{ rc=$?; cat "$TMP/stderr" "$TMP/stdout" >&2; fail "run exited $rc"; }
snapshot > "$TMP/after"
assert_same_snapshot "$TMP/before" "$TMP/after" "after a VM run"

python3 - "$out/runs.jsonl" << 'PY' || fail "the SA pairs' records wrong (above)"
import sys
from assert_json import records
recs = list(records(sys.argv[1]))
if not (len(recs) == 2): raise AssertionError(f"{len(recs)} records, expected a throughput and a counting repeat")
for r in recs:
    if not (r["status"] == "ok"): raise AssertionError(f"{r['status']}: {r.get('reason')}")
    if not (r["sas"] == 2 and len(r["sa_pair"]) == 2): raise AssertionError(r.get("sa_pair"))
    sas = r.get("sa_load", r["sa"])
    # two pairs, each two SAs each at both ends
    if not (len(sas) == 8 and len({s["spi"] for s in sas}) == 4): raise AssertionError(sas)
    if not ({s["pair"] for s in sas} == {0, 1}): raise AssertionError(sas)
    for s in sas:
        if not (s["packets"] > 0 and s["wire_packets"] > 0): raise AssertionError(f"an SA carried nothing: {s}")
    for p in r["sa_pair"]:
        out = next(s for s in sas if s["spi"] == p["spi"] and s["dir"] == "out")
        if not (out["netns"] == "tx" and out["pair"] == p["pair"] and p["packets"] == out["packets"] > 0): raise AssertionError((p, out))
        # one flow each: the pair's bytes are its flow's, its port the flow's
        flow = next(f for f in r["flow"] if f["port"] == p["ports"][0])
        if not (len(p["ports"]) == 1 and p["bytes"] == flow["bytes"] > 0): raise AssertionError((p, r["flow"]))
        # ESP packets of at least MTU-sized segments: the flow's bytes need that many
        if not (out["packets"] * 1500 >= p["bytes"] * 0.5): raise AssertionError((p, out))
    x = r["xfrm_stat"]
    for side in ("sender", "receiver"):
        if not (isinstance(x[side], dict) and "XfrmInNoStates" in x[side] and "XfrmInStateSeqError" in x[side]): raise AssertionError(x)
        moved = {k: v for k, v in x[side].items() if v}
        if moved: raise AssertionError(f"{side}: IPsec errors moved: {moved}")
# the counting repeat: esp_output per SPI over the whole load equals each out SA's own count, exactly
c = next(r for r in recs if r.get("purpose") == "count")
per = c["counters"]["esp_output"]["per_sa_load"]
for s in c["sa_load"]:
    if s["dir"] != "out":
        continue
    if not (per.get(s["spi"], 0) == s["packets"] == s["wire_packets"] > 0): raise AssertionError((s, per))
for p in c["sa_pair"]:
    if not (p["esp_output"] == p["packets"] and p["esp_output_back"] == p["packets_back"]): raise AssertionError(p)
t = next(r for r in recs if r.get("purpose") != "count")
print("  " + "; ".join(f"pair {p['pair']} ({p['spi']}, port {p['ports'][0]}): {p['throughput_bps']/1e6:.1f} Mbit/s, "
                       f"{p['packets']} packets" for p in t["sa_pair"]) +
      f"; esp_output per SPI == SA packets: " + ", ".join(f"{k} {v}" for k, v in sorted(per.items())), file=sys.stderr)
PY
# the report's rows of each pair
"$IPSECPERF" report "$out" > "$TMP/report" || fail "report exited $?"
grep -qE '^ *esp-null +r1 +pair 0 ' "$TMP/report" && grep -qE '^ *esp-null +r1 +pair 1 ' "$TMP/report" ||
	{ cat "$TMP/report" >&2; fail "the report has no row per SA pair"; }
# xfrm_stat in the report: a counter that moved is a row, the zeros are not
cp -r "$out" "$TMP/moved"
python3 - "$TMP/moved/runs.jsonl" << 'PY'
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
rs[0]["xfrm_stat"]["receiver"]["XfrmInStateSeqError"] = 7
open(sys.argv[1], "w").write("".join(json.dumps(r) + "\n" for r in rs))
PY
"$IPSECPERF" report "$TMP/moved" > "$TMP/report2" || fail "report exited $?"
grep -qE '^ *esp-null r1 receiver XfrmInStateSeqError 7$' "$TMP/report2" || { cat "$TMP/report2" >&2; fail "no row of the moved xfrm_stat counter"; }
! grep -q 'XfrmInNoStates' "$TMP/report2" || fail "a zero xfrm_stat counter printed"
# the summary: a row per pair over the measured run (its port, 1 run, its share of the total),
# a row per moved counter over the scenario's runs (the throughput and the counting repeat), 72 columns
"$IPSECPERF" report --summary "$TMP/moved" > "$TMP/summary" || fail "report --summary exited $?"
grep -qE '^esp-null +0 +5201 +1 +[0-9.]+ +[0-9.]+ +[0-9]+$' "$TMP/summary" &&
	grep -qE '^esp-null +1 +5202 +1 +[0-9.]+ +[0-9.]+ +[0-9]+$' "$TMP/summary" ||
	{ cat "$TMP/summary" >&2; fail "the summary has no row per SA pair"; }
awk '/^esp-null +[01] +520[12] /{ s += $(NF - 1) } END { exit !(s > 99.8 && s < 100.2) }' "$TMP/summary" ||
	fail "the pairs' shares do not add up to 100%"
grep -qE '^esp-null +receiver +XfrmInStateSeqError +1/2 +7$' "$TMP/summary" || { cat "$TMP/summary" >&2; fail "the summary has no row of the moved xfrm_stat counter"; }
! grep -q 'XfrmInNoStates' "$TMP/summary" || fail "a zero xfrm_stat counter in the summary"
awk 'length($0) > 72 { print; bad = 1 } END { exit bad }' "$TMP/summary" || fail "the summary is wider than 72 columns"
exit 0
