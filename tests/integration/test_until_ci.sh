#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# run --until-ci: a scenario repeats until the 95% interval of its median
# throughput is narrower than PCT% of the median (at least 6 runs) or
# --max-repeat runs are done; every record says where the rule stood, the
# last one says it stopped, and the report recomputes the same interval.
# The noise of a shared machine decides when it stops, so the test checks
# the rule against the records, never a number of runs. Also the refusals
# (one line, exit 2) and the simulation.
. "$(dirname "$0")/lib.sh"

expect_usage() { # what pattern args...
	local what=$1 pattern=$2
	shift 2
	expect_exit2 "$what" "^ipsecperf: run: $pattern" "$IPSECPERF" run "$@"
}
expect_usage "vm" "--until-ci is for the netns testbed, not vm" \
	--testbed vm --kernel debian:linux-image-6.1.0-57-cloud-amd64 --until-ci 5 --dry-run clear
expect_usage "zero" "--until-ci takes a percentage above 0 and at most 100, not '0'" --until-ci 0 clear
expect_usage "max alone" "--max-repeat bounds --until-ci" --max-repeat 10 clear
expect_usage "max too small" "--max-repeat takes a whole number from 6 to 1000, not '5'" --until-ci 5 --max-repeat 5 clear

out="$TMP/res"
"$IPSECPERF" run --quiet --duration 1 --omit 0 --until-ci 30 --max-repeat 9 -o "$out" clear no-gso \
	> "$TMP/stdout" 2> "$TMP/stderr" &
pid=$!
wait $pid || { rc=$?; cat "$TMP/stderr" >&2; fail "run exited $rc"; }
# other runs may share the host: what this run made carries its pid
ip netns list | grep -q "ipsecperf-$pid-" && fail "the run left its namespaces"
ls "${IPSECPERF_JOURNAL_DIR:-/run/ipsecperf}" 2>/dev/null | grep -q "journal-$pid-" && fail "the run left its journal"
python3 - "$out" <<'PY' || fail "the records do not follow the rule"
import sys
from assert_json import document, records
recs = records(sys.argv[1] + "/runs.jsonl")
meta = document(sys.argv[1] + "/meta.json")
if not (meta["params"]["until_ci"] == {"target_pct": 30.0, "max_repeat": 9}): raise AssertionError(meta["params"])
def median_ci(x):
    # stats_median_ci: order statistics k, n+1-k, k the largest with P(Bin(n, 1/2) < k) <= 2.5%
    from math import comb
    n, x = len(x), sorted(x)
    k = 0
    while sum(comb(n, i) for i in range(k + 1)) / 2 ** n <= 0.025:
        k += 1
    return (x[k - 1], x[n - k]) if k >= 1 else (None, None)
for scen in ("clear", "no-gso"):
    rs = [r for r in recs if r["scenario"] == scen]
    if not (6 <= len(rs) <= 9): raise AssertionError((scen, len(rs)))
    if not ([r["repeat"] for r in rs] == list(range(1, len(rs) + 1))): raise AssertionError
    tp = []
    for i, r in enumerate(rs):
        u = r["until_ci"]
        tp.append(r["throughput_bps"])
        if not (u["n_ok"] == len(tp) and u["target_pct"] == 30.0 and u["max_repeat"] == 9): raise AssertionError(u)
        if len(tp) < 6:
            if not (u.get("width_pct") is None and u["reached"] is False and u["last"] is False): raise AssertionError(u)
            continue
        lo, hi = median_ci(tp)
        if not (abs(u["ci95_lo_bps"] - lo) < 1 and abs(u["ci95_hi_bps"] - hi) < 1): raise AssertionError((u, lo, hi))
        med = sorted(tp)[len(tp) // 2] if len(tp) % 2 else sum(sorted(tp)[len(tp) // 2 - 1:len(tp) // 2 + 1]) / 2
        if not (abs(u["width_pct"] - 100 * (hi - lo) / med) < 1e-6): raise AssertionError((u, med))
        if not (u["reached"] == (u["width_pct"] < 30)): raise AssertionError(u)
        # it stops at the first interval narrow enough, or at --max-repeat
        if not (u["last"] == (u["reached"] or len(tp) == 9)): raise AssertionError(u)
    if not (rs[-1]["until_ci"]["last"]): raise AssertionError
PY
"$IPSECPERF" report "$out" > "$TMP/report" || fail "report: exit $?"
grep -q '^Adaptive repeats (--until-ci 30%, --max-repeat 9)' "$TMP/report" || fail "report: no adaptive section"
python3 - "$out" "$TMP/report" <<'PY' || { cat "$TMP/report" >&2; fail "report: not the records' figures"; }
import sys
from assert_json import records
recs = records(sys.argv[1] + "/runs.jsonl")
rep = open(sys.argv[2]).read().splitlines()
for scen in ("clear", "no-gso"):
    last = [r for r in recs if r["scenario"] == scen][-1]
    row = [l for l in rep if l.startswith(scen + " ")][-1].split()
    if not (int(row[1]) == last["repeat"]): raise AssertionError(row)
    if not (row[4] == "%.1f%%" % last["until_ci"]["width_pct"]): raise AssertionError((row, last["until_ci"]))
    if not (row[5] == ("yes" if last["until_ci"]["reached"] else "no")): raise AssertionError(row)
PY

# the simulation: coverage of the stopping rule's interval
"$IPSECPERF" compare --simulate-until-ci --trials 400 > "$TMP/sim" || fail "simulation: exit $?"
[ "$(grep -cE '^(normal|lognormal|stalls) ' "$TMP/sim")" = 54 ] || { cat "$TMP/sim" >&2; fail "simulation: not 54 rows"; }
awk '/^normal +2% +10% +30 / { c = $7 + 0; if (c < 90 || c > 100) exit 1; found = 1 } END { exit !found }' "$TMP/sim" ||
	{ cat "$TMP/sim" >&2; fail "simulation: coverage off"; }
exit 0
