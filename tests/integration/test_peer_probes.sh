#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The probe options work on the peer testbed as on netns (issue 13: they
# were silently ignored there): --probe-overhead makes each repeat twice,
# with and without the probes on both hosts; --probe-cost puts probe_cost
# and probe_cost_receiver (runs and ns counted by each kernel) in the
# records measured with probes;
# --probe-set tracepoints leaves the kprobes out on both hosts. Checked
# against what the same options give on netns on this host first.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/peer_lib.sh"

# --- what netns gives here --------------------------------------------------
"$IPSECPERF" run --quiet -t 1 -O 0 -r 1 --probe-overhead --probe-cost -o "$TMP/netns" clear \
	> "$TMP/netns.out" 2> "$TMP/netns.err" || { cat "$TMP/netns.err" >&2; fail "netns run exited $?"; }
python3 - "$TMP/netns/runs.jsonl" <<'PY' || fail "netns: --probe-cost gives no probe_cost (above); the peer check below assumes it"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
on = [r for r in recs if r.get("probes") == "on"]
assert len(on) == 1 and on[0]["probe_cost"]["runs"] > 0, recs
PY

peer_setup
run_l() { ip netns exec "$PEER_NS_L" "$@"; }
peer_snapshot "$PEER_NS_L" > "$TMP/l.before"
peer_snapshot "$PEER_NS_P" > "$TMP/p.before"

# --- --probe-overhead and --probe-cost ---------------------------------------
run_l "$IPSECPERF" run --quiet "${PEER_ARGS[@]}" -t 1 -O 0 -r 2 --probe-overhead --probe-cost -o "$TMP/ov" clear \
	> "$TMP/ov.out" 2> "$TMP/ov.err"
rc=$?
[ $rc = 0 ] || { cat "$TMP/ov.err" >&2; fail "peer run with --probe-overhead --probe-cost exited $rc"; }
python3 - "$TMP/ov/runs.jsonl" <<'PY' || fail "--probe-overhead/--probe-cost on peer: records (above)"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
ok = True
def check(cond, what, r=None):
    global ok
    if not cond:
        print(f"{what}: {json.dumps(r)[:600] if r else ''}", file=sys.stderr)
        ok = False
check(len(recs) == 4, f"expected 4 records (2 repeats x with/without probes), got {len(recs)}")
check(sorted((r["scenario"], r["repeat"], r.get("probes")) for r in recs) ==
      [("clear", 1, "on"), ("clear", 2, "on"), ("clear+noprobes", 1, "off"), ("clear+noprobes", 2, "off")],
      "not one record with and one without probes per repeat")
for r in recs:
    check(r["status"] == "ok" and r["testbed"] == "peer", "not ok on peer", r)
    if r.get("probes") == "on":
        for k in ("probe_cost", "probe_cost_receiver"):
            pc = r.get(k)
            check(isinstance(pc, dict) and isinstance(pc.get("runs"), int) and pc["runs"] > 0 and
                  isinstance(pc.get("ns"), int) and pc["ns"] > 0, f"no {k} with numbers", r)
        check(isinstance(r["counters"]["xmit_skbs"]["count"], int), "with probes: no xmit_skbs count here", r)
    else:
        check(r.get("probes_off_of") == "clear", "the off half does not name its scenario", r)
        check("probe_cost" not in r and "probe_cost_receiver" not in r, "probe_cost in a run without probes", r)
        for k in ("counters", "counters_receiver"):
            check(all("detached for this half of --probe-overhead" in (c.get("symbol") or "")
                      for c in r[k].values()), f"without probes: {k} not unavailable as detached", r)
sys.exit(0 if ok else 1)
PY
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
python3 - "$TMP/tp/runs.jsonl" <<'PY' || fail "--probe-set tracepoints on peer: records (above)"
import json, sys
r = json.loads(open(sys.argv[1]).readline())
ok = r["status"] == "ok"
for k in ("counters", "counters_receiver"):
    sym = r[k]["esp_output"]["symbol"]
    if "kprobes not asked for (--probe-set tracepoints)" not in sym:
        print(f"{k}: esp_output: {sym}", file=sys.stderr)
        ok = False
sys.exit(0 if ok else 1)
PY
info "--probe-set tracepoints on peer: kprobes left out on both hosts"

peer_snapshot "$PEER_NS_L" > "$TMP/l.after"
peer_snapshot "$PEER_NS_P" > "$TMP/p.after"
assert_same_snapshot "$TMP/l.before" "$TMP/l.after" "this end after the runs"
assert_same_snapshot "$TMP/p.before" "$TMP/p.after" "the peer after the runs"
exit 0
