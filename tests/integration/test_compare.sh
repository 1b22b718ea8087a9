#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# ipsecperf compare on synthetic results directories: the exit status (0 no
# regression, 1 regression, 2 bad input), metric direction, --metric,
# --threshold, kernel and scenario matching. No root needed.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
IPSECPERF=${IPSECPERF:-"$TOP/build/ipsecperf"}
SYNTH="$TOP/tests/integration/synth_results.py"
TMP=$(mktemp -d /tmp/ipsecperf-test-compare.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -x "$IPSECPERF" ] || fail "build/ipsecperf missing: run make"
command -v python3 > /dev/null || { echo "SKIP: python3 missing" >&2; exit 4; }

synth() { python3 "$SYNTH" "$@" || fail "synth $*"; }
expect() { # rc pattern args... (pattern on stdout+stderr)
	local want=$1 pattern=$2
	shift 2
	"$IPSECPERF" compare "$@" > "$TMP/out" 2>&1
	local rc=$?
	[ $rc = "$want" ] || { cat "$TMP/out" >&2; fail "compare $*: exit $rc, not $want"; }
	grep -qE -e "$pattern" "$TMP/out" || { cat "$TMP/out" >&2; fail "compare $*: lacks /$pattern/"; }
}

synth "$TMP/base" --seed 1
synth "$TMP/aa" --seed 2                          # A/A: same distribution
synth "$TMP/slow" --seed 3 --scale esp-null=0.90  # throughput -10%
synth "$TMP/fast" --seed 4 --scale esp-null=1.10  # throughput +10%
synth "$TMP/cpb" --seed 5 --cpb-scale clear=1.10  # cycles per byte +10%
synth "$TMP/little" --seed 6 --scale esp-null=0.97 # -3%, below the threshold
synth "$TMP/fewer" --seed 7 --scenarios clear,no-gso
synth "$TMP/n3a" --seed 8 --repeat 3
synth "$TMP/n3b" --seed 9 --repeat 3 --scale esp-null=0.8

expect 0 'verdict: no regression' "$TMP/base" "$TMP/aa"
expect 1 'REGRESSION .* esp-null throughput -(9|10|11)\.[0-9]% \(p 0\.0079\)' "$TMP/base" "$TMP/slow"
expect 0 'verdict: no regression' "$TMP/base" "$TMP/fast"
expect 1 'REGRESSION .* clear cycles_per_byte \+' "$TMP/base" "$TMP/cpb"
expect 0 'verdict: no regression' --metric throughput "$TMP/base" "$TMP/cpb"
expect 0 'verdict: no regression' "$TMP/base" "$TMP/little"
expect 1 'REGRESSION .* esp-null throughput' --threshold 2 "$TMP/base" "$TMP/little"
expect 1 'REGRESSION' --test welch "$TMP/base" "$TMP/slow"
expect 0 'too few runs to reach p < 0.05' "$TMP/n3a" "$TMP/n3b"
expect 1 'REGRESSION .* esp-null throughput' --test welch "$TMP/n3a" "$TMP/n3b"
# a counter can be selected by name
expect 0 'xmit_skbs' --metric xmit_skbs "$TMP/base" "$TMP/aa"

# text output: 72 columns, ASCII
"$IPSECPERF" compare "$TMP/base" "$TMP/slow" > "$TMP/text"
awk 'length($0) > 72 { bad = 1 } END { exit bad }' "$TMP/text" || fail "compare text wider than 72 columns"
LC_ALL=C grep -q '[^ -~]' "$TMP/text" && fail "compare text is not ASCII"
grep -qE '^ +[0-9.]+ +[0-9]+% +-[0-9.]+% +[0-9.]+ +[0-9]+% 0\.0079R throughput Gbit/s' "$TMP/text" ||
	{ cat "$TMP/text" >&2; fail "no R row for the regression"; }

# json and csv agree with the text
"$IPSECPERF" compare -f json "$TMP/base" "$TMP/slow" > "$TMP/json"
[ $? = 1 ] || fail "json: exit status"
python3 - "$TMP/json" <<'PY' || fail "json content"
import json, sys
j = json.load(open(sys.argv[1]))
reg = [r for r in j["rows"] if r["regression"]]
assert j["regressions"] == 1 and len(reg) == 1, reg
r = reg[0]
assert r["scenario"] == "esp-null" and r["metric"] == "throughput" and r["base"]["n"] == 5
assert abs(r["p_mw"] - 2 / 252) < 1e-9 and r["change_pct"] < -5
PY
"$IPSECPERF" compare -f csv "$TMP/base" "$TMP/slow" | head -1 | grep -q '^kernel_base,kernel_new,scenario,metric' ||
	fail "csv header"

# mismatches: exit 2, one line naming the file and line
expect 2 'scenario sets differ .*esp-null only in .*/base/runs.jsonl \(line 11\); add --common' "$TMP/base" "$TMP/fewer"
expect 0 'no regression' --common "$TMP/base" "$TMP/fewer"
synth "$TMP/two" --kernels k1,k2 --seed 10
synth "$TMP/other" --kernels k1,k3 --seed 11
expect 2 'the kernels differ: .*two/runs.jsonl has k1, k2; .*other/runs.jsonl has k1, k3' "$TMP/two" "$TMP/other"
expect 0 '^kernel k1 -> k2' --base-kernel k1 --new-kernel k2 "$TMP/two" "$TMP/two"
grep -q '^note: all runs of k1 came before or after all runs of k2' "$TMP/out" ||
	{ cat "$TMP/out" >&2; fail "no note on kernels run in sequence"; }
expect 2 "no runs of kernel 'k9'" --base-kernel k9 "$TMP/two" "$TMP/two"
expect 2 'ipsecperf: .*/nope: No such file or directory' "$TMP/base" "$TMP/nope"
expect 2 'two results directories expected' "$TMP/base"
expect 2 '--metric bogus: no such metric' --metric bogus "$TMP/base" "$TMP/aa"
expect 2 '--threshold x: a number' --threshold x "$TMP/base" "$TMP/aa"
# a last line torn by a killed run: a warning, the 15 whole records are compared
cp -r "$TMP/aa" "$TMP/torn"
printf '{"version":1,"kernel":"6.1.0-28-cloud-amd64","scen' >> "$TMP/torn/runs.jsonl"
expect 0 'verdict: no regression' "$TMP/base" "$TMP/torn"
grep -qE '^ipsecperf: .*/torn/runs.jsonl:16: the last record is incomplete .*using the 15 records before it' "$TMP/out" ||
	{ cat "$TMP/out" >&2; fail "torn line: no warning naming the file and line"; }
# ... but a torn line with records after it is an error, as any malformed line
cp -r "$TMP/aa" "$TMP/broken"
sed -i '7s/"scenario".*$/"scen/' "$TMP/broken/runs.jsonl"
expect 2 'broken/runs.jsonl:7: not a JSON object' "$TMP/base" "$TMP/broken"

# the simulation runs and is reproducible
"$IPSECPERF" compare --simulate --trials 200 > "$TMP/sim1" || fail "simulate"
"$IPSECPERF" compare --simulate --trials 200 > "$TMP/sim2" || fail "simulate"
cmp -s "$TMP/sim1" "$TMP/sim2" || fail "simulate is not reproducible"
grep -qE '^mw +5 +2% +0% +0% ' "$TMP/sim1" || fail "simulate: no mw n=5 cv=2% A/A row"
exit 0
