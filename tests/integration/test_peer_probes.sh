#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The probe options work on the peer testbed as on netns (they
# were silently ignored there): --probe-overhead makes each repeat twice,
# with and without the probes on both hosts; --probe-cost puts probe_cost
# and probe_cost_receiver (runs and ns counted by each kernel) in the
# records measured with probes;
# --probe-set tracepoints leaves the kprobes out on both hosts; the default
# set takes skbs and segments from the kernel's counters there too. Checked
# against what the same options give on netns on this host first.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/peer_lib.sh"

# --- what netns gives here --------------------------------------------------
# --probe-set all: the xmit program runs in clear (the default set attaches
# no program there on a kernel without kprobes, so nothing would be timed)
"$IPSECPERF" run --quiet -t 1 -O 0 -r 1 --probe-set all --probe-overhead --probe-cost -o "$TMP/netns" clear \
	> "$TMP/netns.out" 2> "$TMP/netns.err" || { rc=$?; cat "$TMP/netns.err" >&2; fail "netns run exited $rc"; }
assert_records "$TMP/netns/runs.jsonl" '[r["probe_cost"]["runs"] > 0 for r in rs if r.get("probes") == "on"] == [True]' \
	"netns: --probe-cost gives no probe_cost; the peer check below assumes it"

peer_setup
run_l() { ip netns exec "$PEER_NS_L" "$@"; }
peer_snapshot "$PEER_NS_L" > "$TMP/l.before"
peer_snapshot "$PEER_NS_P" > "$TMP/p.before"

# --- --probe-overhead and --probe-cost ---------------------------------------
run_l "$IPSECPERF" run --quiet "${PEER_ARGS[@]}" -t 1 -O 0 -r 2 --probe-set all --probe-overhead --probe-cost -o "$TMP/ov" clear \
	> "$TMP/ov.out" 2> "$TMP/ov.err"
rc=$?
[ $rc = 0 ] || { cat "$TMP/ov.err" >&2; fail "peer run with --probe-overhead --probe-cost exited $rc"; }
ov="$TMP/ov/runs.jsonl"
assert_records "$ov" 'sorted((r["scenario"], r["repeat"], r.get("probes")) for r in rs) ==
	[("clear", 1, "on"), ("clear", 2, "on"), ("clear+noprobes", 1, "off"), ("clear+noprobes", 2, "off")]' \
	"--probe-overhead on peer: not 4 records, one with and one without probes per repeat"
assert_jsonl "$ov" 'r["status"] == "ok" and r["testbed"] == "peer"' "--probe-overhead on peer: not ok on peer"
# the half with probes: probe_cost counted on both hosts, counters there
assert_jsonl "$ov" 'r.get("probes") != "on" or all(
	isinstance(r[k]["runs"], int) and r[k]["runs"] > 0 and isinstance(r[k]["ns"], int) and r[k]["ns"] > 0
	for k in ("probe_cost", "probe_cost_receiver"))' "--probe-cost on peer: no probe_cost/probe_cost_receiver with numbers"
assert_jsonl "$ov" 'r.get("probes") != "on" or isinstance(r["counters"]["xmit_skbs"]["count"], int)' \
	"--probe-overhead on peer: with probes, no xmit_skbs count"
# the half without: names its scenario, no probe_cost, every counter detached
assert_jsonl "$ov" 'r.get("probes") == "on" or (r["probes_off_of"] == "clear" and
	"probe_cost" not in r and "probe_cost_receiver" not in r)' \
	"--probe-overhead on peer: the off half does not name its scenario or has a probe_cost"
assert_jsonl "$ov" 'r.get("probes") == "on" or all(
	"detached for this half of --probe-overhead" in (c.get("symbol") or "")
	for k in ("counters", "counters_receiver") for c in r[k].values())' \
	"--probe-overhead on peer: without probes, counters not unavailable as detached"
[ -s "$TMP/ov/probe-overhead.json" ] || fail "no probe-overhead.json"
python3 "$TOP/tests/integration/doc_keys.py" "$TOP/docs/results-format.md" "$TMP/ov" >&2 ||
	fail "keys docs/results-format.md does not have (above)"
grep -q '^probe overhead: ' "$TMP/ov.out" || { cat "$TMP/ov.out" >&2; fail "no probe overhead table printed"; }
info "--probe-overhead and --probe-cost on peer: with/without records, probe_cost counted"

# --- --probe-set tracepoints: no kprobes on either host -----------------------
run_l "$IPSECPERF" run --quiet "${PEER_ARGS[@]}" -t 1 -O 0 -r 1 --probe-set tracepoints -o "$TMP/tp" clear \
	> "$TMP/tp.out" 2> "$TMP/tp.err"
rc=$?
[ $rc = 0 ] || { cat "$TMP/tp.err" >&2; fail "peer run with --probe-set tracepoints exited $rc"; }
assert_records "$TMP/tp/runs.jsonl" 'len(rs) == 1 and rs[0]["status"] == "ok"' "--probe-set tracepoints on peer: not one ok record"
assert_jsonl "$TMP/tp/runs.jsonl" 'all("kprobes not asked for (--probe-set tracepoints)" in r[k]["esp_output"]["symbol"]
	for k in ("counters", "counters_receiver"))' "--probe-set tracepoints on peer: esp_output not left out"
info "--probe-set tracepoints on peer: kprobes left out on both hosts"

# --- the default set: the kernel's counters on both hosts ----------------------
run_l "$IPSECPERF" run --quiet "${PEER_ARGS[@]}" -t 1 -O 0 -r 1 -o "$TMP/def" clear > "$TMP/def.out" 2> "$TMP/def.err"
rc=$?
[ $rc = 0 ] || { cat "$TMP/def.err" >&2; fail "peer run with the default probe set exited $rc"; }
assert_jsonl "$TMP/def/runs.jsonl" 'all(r[k]["xmit_skbs"]["symbol"].startswith("device statistics") and
	r[k]["xmit_segs"]["symbol"].startswith("Tcp OutSegs") and r[k]["xmit_segs"]["count"] > 0
	for k in ("counters", "counters_receiver"))' "default set on peer: skbs and segments not the kernel's counters"
info "default probe set on peer: the kernel's counters on both hosts"

peer_snapshot "$PEER_NS_L" > "$TMP/l.after"
peer_snapshot "$PEER_NS_P" > "$TMP/p.after"
assert_same_snapshot "$TMP/l.before" "$TMP/l.after" "this end after the runs"
assert_same_snapshot "$TMP/p.before" "$TMP/p.after" "the peer after the runs"
exit 0
