#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# ipsecperf compare on synthetic results directories: the exit status (0 no
# regression, 1 regression, 2 bad input), metric direction, --metric,
# --threshold, kernel and scenario matching; the comparability checks
# (a note per field, --allow-mismatch, BASE = NEW), the better/worse column
# and flags, improvements in the verdict, the notes in JSON, the JUnit
# XML's structure, several directories a side, and report's pooling.
# No root needed.
. "$(dirname "$0")/results_lib.sh" compare

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
# a side noisier than the gate's threshold: warned about, naming it, in the text and the JSON
synth "$TMP/noisy" --seed 14 --cv 0.10
expect 0 "^warning: run to run, these vary more than the gate's 5% \\(CV\\): new clear$" "$TMP/base" "$TMP/noisy"
"$IPSECPERF" compare -f json "$TMP/base" "$TMP/aa" | grep -q '"noisy"' && fail "A/A of quiet runs: a noise warning"
# a scenario no side has an ok run of: "no data", not "could not reach p"
synth "$TMP/skipa" --seed 15 --skip "esp-null:this kernel has no ESP"
synth "$TMP/skipb" --seed 16 --hour 20 --skip "esp-null:this kernel has no ESP"
expect 0 '^esp-null: n 0 vs 0: no data, no ok run on a side' "$TMP/skipa" "$TMP/skipb"
grep -q 'could not reach' "$TMP/out" && { cat "$TMP/out" >&2; fail "no data reported as gates that could not reach p"; }
tr '\n' ' ' < "$TMP/out" | sed 's/  */ /g' |
	grep -q 'verdict: no regression beyond 5% with p < 0.05; no data for 2 of 6 gates (no ok run on a side) $' ||
	{ cat "$TMP/out" >&2; fail "the verdict does not say which gates had no data"; }
grep -q 'load is not recorded' "$TMP/out" && { cat "$TMP/out" >&2; fail "a note about a scenario no side measured"; }
# a counter can be selected by name
expect 0 'xmit_skbs' --metric xmit_skbs "$TMP/base" "$TMP/aa"

# text output: 72 columns (a mail's, as the report's), ASCII; the flag in its own column, after better/worse
"$IPSECPERF" compare "$TMP/base" "$TMP/slow" > "$TMP/text"
awk 'length($0) > 72 { print; bad = 1 } END { exit bad }' "$TMP/text" || fail "compare text wider than 72 columns"
LC_ALL=C grep -q '[^ -~]' "$TMP/text" && fail "compare text is not ASCII"
grep -qE '^ +[0-9.]+ +[0-9]+% +-[0-9.]+% +[0-9.]+ +[0-9]+% +0\.0079 w +R +throughput Gbit/s' "$TMP/text" ||
	{ cat "$TMP/text" >&2; fail "no R row for the regression"; }

# json and csv agree with the text
"$IPSECPERF" compare -f json "$TMP/base" "$TMP/slow" > "$TMP/json"
[ $? = 1 ] || fail "json: exit status"
python3 - "$TMP/json" <<'PY' || fail "json content"
import sys
from assert_json import document
j = document(sys.argv[1])
reg = [r for r in j["rows"] if r["regression"]]
if not (j["regressions"] == 1 and len(reg) == 1): raise AssertionError(reg)
r = reg[0]
if not (r["scenario"] == "esp-null" and r["metric"] == "throughput" and r["base"]["n"] == 5): raise AssertionError
if not (abs(r["p_mw"] - 2 / 252) < 1e-9 and r["change_pct"] < -5): raise AssertionError
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
expect 2 'ipsecperf: compare: .*/nope: No such file or directory' "$TMP/base" "$TMP/nope"
# one directory of two kernels: those two, the first as base; of three, name two; of one, no
expect 0 '^kernel k1 -> k2' "$TMP/two"
grep -q "^ipsecperf: compare: $TMP/two, kernel k1 (base) against k2 (new)$" "$TMP/out" || fail "compare DIR: not said which kernels"
synth "$TMP/three" --kernels k1,k2,k3 --seed 12 --hour 21
expect 2 "compare: $TMP/three holds 3 kernels; name two: ipsecperf compare --base-kernel k1 --new-kernel k2 $TMP/three" "$TMP/three"
expect 0 '^kernel k1 -> k3' --base-kernel k1 --new-kernel k3 "$TMP/three"
expect 2 "compare: $TMP/base holds one kernel's runs; compare it with another: ipsecperf compare BASE NEW" "$TMP/base"
# no directory: the newest under results/, said
mkdir -p "$TMP/cwd/results"
cp -r "$TMP/base" "$TMP/cwd/results/old" && cp -r "$TMP/two" "$TMP/cwd/results/new"
touch -d '2000-01-01' "$TMP/cwd/results/old/meta.json"
(cd "$TMP/cwd" && "$IPSECPERF" compare) > "$TMP/out" 2>&1 || { rc=$?; cat "$TMP/out" >&2; fail "compare with no DIR exited $rc"; }
grep -q '^ipsecperf: compare: results/new, the newest under results/$' "$TMP/out" && grep -q '^kernel k1 -> k2' "$TMP/out" ||
	{ cat "$TMP/out" >&2; fail "compare with no DIR: not the newest, or not said"; }
(cd "$TMP/cwd" && "$IPSECPERF" report --summary) > "$TMP/out" 2>&1 || { rc=$?; cat "$TMP/out" >&2; fail "report with no DIR exited $rc"; }
grep -q '^ipsecperf: report: results/new, the newest under results/$' "$TMP/out" && grep -q "^results   results/new$" "$TMP/out" ||
	{ cat "$TMP/out" >&2; fail "report with no DIR: not the newest, or not said"; }
expect 2 '--metric bogus: no such metric' --metric bogus "$TMP/base" "$TMP/aa"
expect 2 "--threshold takes a number from 0 to 1000, not 'x'" --threshold x "$TMP/base" "$TMP/aa"
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

# better/worse and flags: direction known per metric; - and + apart from R and I
"$IPSECPERF" compare "$TMP/base" "$TMP/fast" > "$TMP/text"
grep -qE '^ +[0-9.]+ +[0-9]+% +\+[0-9.]+% +[0-9.]+ +[0-9]+% +0\.0079 b +I +throughput Gbit/s' "$TMP/text" ||
	{ cat "$TMP/text" >&2; fail "no I row for the improvement"; }
grep -q '^verdict: no regression beyond 5% with p < 0.05, 1 improvement$' "$TMP/text" ||
	{ cat "$TMP/text" >&2; fail "verdict lacks the improvement"; }
grep -qE '^  improvement 6\.1\.0-28-cloud-amd64 esp-null throughput \+[0-9]+\.[0-9]% \(p 0\.0079\)' "$TMP/text" ||
	{ cat "$TMP/text" >&2; fail "improvement not listed"; }
expect 1 '^ +[0-9.]+ +[0-9]+% +\+[0-9.]+% +[0-9.]+ +[0-9]+% +0\.0079 w +R +cycles/byte' "$TMP/base" "$TMP/cpb"
# -3%: significant, below the threshold: '-', not R; not in the verdict
expect 0 '^ +[0-9.]+ +[0-9]+% +-[0-9.]+% +[0-9.]+ +[0-9]+% +0\.0079 w +- +throughput Gbit/s' "$TMP/base" "$TMP/little"
grep -q '^  REGRESSION\|^  improvement' "$TMP/out" && fail "little: a change below the threshold in the verdict"
# lower cycles per byte is better
synth "$TMP/lesscpb" --seed 13 --cpb-scale clear=0.8
expect 0 '^ +[0-9.]+ +[0-9]+% +-[0-9.]+% +[0-9.]+ +[0-9]+% +0\.0079 b +I +cycles/byte' "$TMP/base" "$TMP/lesscpb"

# comparability: one note per field that differs, exit 2 unless allowed
"$IPSECPERF" compare --help > "$TMP/help" || fail "compare --help"
check_field() { # field synth-options...
	local field=$1
	shift
	synth "$TMP/f-$field" --seed 2 "$@"
	"$IPSECPERF" compare "$TMP/base" "$TMP/f-$field" > "$TMP/out" 2> "$TMP/err"
	local rc=$?
	[ $rc = 2 ] || { cat "$TMP/out" "$TMP/err" >&2; fail "$field: exit $rc, not 2"; }
	[ -s "$TMP/out" ] && { cat "$TMP/out" >&2; fail "$field: refused, yet a table on stdout"; }
	[ "$(grep -c 'not comparable: ' "$TMP/err")" = 1 ] || { cat "$TMP/err" >&2; fail "$field: not one note"; }
	grep -qE "^ipsecperf: compare: not comparable: ([a-z0-9_]+ of )?$field( of scenario [a-z-]+| [a-z-]+.s definition)? differs: .* in base $TMP/base, .* in new $TMP/f-$field\.( Also in scenarios? .*)?\$" "$TMP/err" ||
		{ cat "$TMP/err" >&2; fail "$field: no note naming it and both directories"; }
	grep -q -- "--allow-mismatch $field\$" "$TMP/err" || { cat "$TMP/err" >&2; fail "$field: no way out named"; }
	grep -qw -- "$field" "$TMP/help" || fail "$field: not in compare --help"
	expect 0 "^mismatch \\(allowed\\): ([a-z0-9_]+ of )?$field" --allow-mismatch "$field" "$TMP/base" "$TMP/f-$field"
}
synth "$TMP/vm1" --testbed vm --seed 1
synth "$TMP/vm-kvm" --testbed vm --accel kvm --seed 2
check_field host --host other-host
check_field cpu_model --cpu-model "Other CPU"
check_field cpu_count --cpu-count 4
check_field testbed --testbed peer
check_field duration --duration 5
check_field omit --omit 3
check_field load --load esp-null=stream
check_field scenario --define esp-null:esp-gso=on
check_field profile --profile 99
check_field probe_set --probe-set esp
check_field tool_version --tool-version v2.0
check_field iperf3_version --iperf3-version "iperf 3.16"
# accel: two VM runs, TCG against KVM
expect 2 "not comparable: accel differs: tcg in base $TMP/vm1, kvm in new $TMP/vm-kvm" "$TMP/vm1" "$TMP/vm-kvm"
expect 0 'mismatch \(allowed\): accel differs' --allow-mismatch accel "$TMP/vm1" "$TMP/vm-kvm"
grep -qw accel "$TMP/help" || fail "accel: not in compare --help"
# the scenario's definition by content: comments, spacing, description do not count
"$IPSECPERF" compare --allow-mismatch scenario "$TMP/base" "$TMP/f-scenario" | tr '\n' ' ' | tr -s ' ' |
	grep -q "mismatch (allowed): scenario esp-null's definition differs: nothing in base .*, 'esp-gso=on' in new" ||
	fail "scenario: first difference not shown"
python3 - "$TMP/aa/meta.json" <<'PY' || fail "rewrite aa's scenario texts"
import json, sys
m = json.load(open(sys.argv[1]))
for s in m["scenarios"]:
    s["text"] = s["text"].replace("tso = on", "tso=on   ; a comment").replace("description = ", "description = other ")
json.dump(m, open(sys.argv[1], "w"))
PY
expect 0 'verdict: no regression' "$TMP/base" "$TMP/aa"
grep -q 'scenario' <(grep '^mismatch' "$TMP/out") && fail "a comment or description counted as a definition change"
# two fields: two notes, one line to allow both; all allows all
synth "$TMP/two-fields" --seed 2 --host h2 --duration 60
expect 2 'accept the difference with --allow-mismatch host,duration$' "$TMP/base" "$TMP/two-fields"
[ "$(grep -c 'not comparable: ' "$TMP/out")" = 2 ] || { cat "$TMP/out" >&2; fail "two fields: not two notes"; }
expect 0 'verdict: no regression' --allow-mismatch all "$TMP/base" "$TMP/two-fields"
expect 0 'verdict: no regression' --allow-mismatch host --allow-mismatch duration "$TMP/base" "$TMP/two-fields"
expect 2 "--allow-mismatch bogus: 'bogus' is not a field" --allow-mismatch bogus "$TMP/base" "$TMP/aa"
# directories of older versions: what is not recorded is said, not guessed
synth "$TMP/old1" --old --seed 1 --testbed vm
synth "$TMP/old2" --old --seed 2 --testbed vm
expect 0 'verdict: no regression' "$TMP/old1" "$TMP/old2"
for want in "note: scenario is not recorded in base $TMP/old1 for scenario clear: not checked\." \
	"note: accel is not recorded in base $TMP/old1: not checked\." "testbed vm \(accelerator not recorded\)" \
	"note: probe_set is not recorded in base $TMP/old1: not checked\."; do
	tr '\n' ' ' < "$TMP/out" | tr -s ' ' | grep -qE "$want" || { cat "$TMP/out" >&2; fail "old: lacks /$want/"; }
done

# BASE = NEW: the same directory, another path to it, or a copy
expect 2 "BASE and NEW are the same runs of kernel 6.1.0-28-cloud-amd64 \\($TMP/base is on both sides\\)" "$TMP/base" "$TMP/base"
expect 2 'BASE and NEW are the same runs .* is on both sides' "$TMP/base" "$TMP/../$(basename "$TMP")/base/"
cp -r "$TMP/base" "$TMP/copy"
expect 2 'BASE and NEW are the same runs .*identical records in both: one directory is a copy' "$TMP/base" "$TMP/copy"
expect 2 'runs of kernel 6.1.0-28-cloud-amd64 are on both sides' "$TMP/base" -- "$TMP/aa" "$TMP/copy"

# JSON carries every note, with a code
json_notes() { # file python-assertions
	python3 - "$1" "$2" <<'PY' || fail "json notes: $2"
import sys
from assert_json import document
j = document(sys.argv[1])
codes = [n["code"] for n in j["notes"]]
if not (all(n["text"] for n in j["notes"])): raise AssertionError(j["notes"])
exec(sys.argv[2])
PY
}
"$IPSECPERF" compare -f json "$TMP/n3a" "$TMP/n3b" > "$TMP/j1"
json_notes "$TMP/j1" '
if not ("too_few_runs" in codes): raise AssertionError(codes)
if not (j["undecided"] == 6 and j["exit_status"] == 0): raise AssertionError(j)
if not (all(not r["decidable"] and "too few runs" in r["undecided"] for r in j["rows"] if r["selected"])): raise AssertionError'
"$IPSECPERF" compare -f json --base-kernel k1 --new-kernel k2 "$TMP/two" "$TMP/two" > "$TMP/j2"
json_notes "$TMP/j2" '
if not ("run_order" in codes and "emulated" in codes): raise AssertionError(codes)'
"$IPSECPERF" compare -f json --common "$TMP/base" "$TMP/fewer" > "$TMP/j3"
json_notes "$TMP/j3" '
if not ("common" in codes): raise AssertionError(codes)'
synth "$TMP/failing" --seed 14 --fail clear:2
"$IPSECPERF" compare -f json "$TMP/base" "$TMP/failing" > "$TMP/j4"
json_notes "$TMP/j4" '
if not ("not_ok" in codes): raise AssertionError(codes)'
"$IPSECPERF" compare -f json --allow-mismatch host "$TMP/base" "$TMP/f-host" > "$TMP/j5"
json_notes "$TMP/j5" '
m = [n for n in j["notes"] if n["code"] == "mismatch"]
if not (len(m) == 1 and m[0]["field"] == "host" and m[0]["allowed"] is True): raise AssertionError(m)
if not (j["base_dirs"][0]["host"] == "synth" and j["new_dirs"][0]["host"] == "other-host"): raise AssertionError(j["new_dirs"])'
"$IPSECPERF" compare -f json "$TMP/base" "$TMP/f-host" > "$TMP/j6" 2> /dev/null
[ $? = 2 ] || fail "json: refused mismatch: exit status"
json_notes "$TMP/j6" '
if not (j["status"] == "not_comparable" and j["exit_status"] == 2 and j["rows"] == []): raise AssertionError(j)
if not ([n["allowed"] for n in j["notes"] if n["code"] == "mismatch"] == [False]): raise AssertionError'
"$IPSECPERF" compare -f json "$TMP/base" "$TMP/fast" > "$TMP/j7"
json_notes "$TMP/j7" '
if not (j["improvements"] == 1 and j["regressions"] == 0): raise AssertionError(j)
r = [r for r in j["rows"] if r["improvement"]][0]
if not (r["scenario"] == "esp-null" and r["metric"] == "throughput" and r["flag"] == "I" and r["direction"] == "better"):
    raise AssertionError(r)
if not (all(r["direction"] in ("better", "worse", "same") for r in j["rows"])): raise AssertionError'

# JUnit: the structure of the JUnit schema (Jenkins xunit's junit-10.xsd)
junit() { # name expect-rc compare-args...
	local name=$1 want=$2
	shift 2
	"$IPSECPERF" compare -f junit "$@" > "$TMP/$name.xml" 2> /dev/null
	local rc=$?
	[ $rc = "$want" ] || fail "junit $name: exit $rc, not $want"
	if command -v xmllint > /dev/null; then
		xmllint --noout "$TMP/$name.xml" || fail "junit $name: not well-formed XML"
	fi
}
junit slow 1 "$TMP/base" "$TMP/slow"
junit few 0 "$TMP/n3a" "$TMP/n3b"
junit refused 2 "$TMP/base" "$TMP/f-duration"
synth "$TMP/esc-a" --seed 1 --kernels "k&<\"'>1"
synth "$TMP/esc-b" --seed 3 --kernels "k&<\"'>1" --scale esp-null=0.9
junit escaped 1 "$TMP/esc-a" "$TMP/esc-b"
# what XML forbids: a scenario named with U+FFFE and U+FFFF (legal JSON, which
# jansson takes), a directory whose name holds lead bytes F5-F7 (not UTF-8)
bad="$TMP/bad-$(printf '\365\200\200\200\366\367')"
for d in esc-a esc-b; do
	cp -r "$TMP/$d" "$TMP/$d-ff"
	sed -i 's/"clear"/"clear\\ufffe\\uffff"/' "$TMP/$d-ff/runs.jsonl" "$TMP/$d-ff/meta.json"
done
mv "$TMP/esc-b-ff" "$bad"
junit forbidden 1 "$TMP/esc-a-ff" "$bad"
python3 - "$TMP" <<'PY' || fail "junit structure"
import sys, xml.etree.ElementTree as ET
tmp = sys.argv[1]
# elements, their allowed attributes (required ones first) and children, after junit-10.xsd
SCHEMA = {
    "testsuites": (set(), {"name", "time", "tests", "failures", "errors"}, {"testsuite"}),
    "testsuite": ({"name", "tests", "failures", "errors"},
                  {"group", "time", "skipped", "timestamp", "hostname", "id", "package", "file", "log", "url"},
                  {"testsuite", "properties", "testcase", "system-out", "system-err"}),
    "properties": (set(), set(), {"property"}),
    "property": ({"name", "value"}, set(), set()),
    "testcase": ({"name"}, {"time", "classname", "group"}, {"skipped", "error", "failure", "system-out", "system-err"}),
    "failure": (set(), {"type", "message"}, set()),
    "error": (set(), {"type", "message"}, set()),
    "skipped": (set(), {"type", "message"}, set()),
    "system-out": (set(), set(), set()),
    "system-err": (set(), set(), set()),
}
def check(e):
    if not (e.tag in SCHEMA): raise AssertionError(e.tag)
    req, opt, kids = SCHEMA[e.tag]
    if not (req <= set(e.attrib)): raise AssertionError((e.tag, req - set(e.attrib)))
    if not (set(e.attrib) <= req | opt): raise AssertionError((e.tag, set(e.attrib) - req - opt))
    for c in e:
        if not (c.tag in kids): raise AssertionError((e.tag, c.tag))
        check(c)
    if "time" in e.attrib:
        float(e.attrib["time"])
def counts(suite):
    cases = suite.findall("testcase")
    n = lambda tag: sum(1 for c in cases if c.find(tag) is not None)
    if not (int(suite.get("tests")) == len(cases)): raise AssertionError(suite.get("name"))
    if not (int(suite.get("failures")) == n("failure")): raise AssertionError(suite.get("name"))
    if not (int(suite.get("errors")) == n("error")): raise AssertionError(suite.get("name"))
    if not (int(suite.get("skipped", "0")) == n("skipped")): raise AssertionError(suite.get("name"))
    return len(cases), n("failure"), n("error")
def load(name):
    root = ET.parse("%s/%s.xml" % (tmp, name)).getroot()
    if not (root.tag == "testsuites"): raise AssertionError
    check(root)
    t = [counts(s) for s in root.findall("testsuite")]
    if not (int(root.get("tests")) == sum(x[0] for x in t)): raise AssertionError
    if not (int(root.get("failures")) == sum(x[1] for x in t)): raise AssertionError
    if not (int(root.get("errors")) == sum(x[2] for x in t)): raise AssertionError
    return root
# a regression: a failure with the figures; one testcase per scenario x selected metric
r = load("slow")
suites = r.findall("testsuite")
if not (suites[0].get("name") == "ipsecperf compare: comparability" and int(suites[0].get("errors")) == 0): raise AssertionError
k = suites[1]
if not (k.get("name") == "ipsecperf compare 6.1.0-28-cloud-amd64"): raise AssertionError(k.get("name"))
if not (sorted((c.get("classname"), c.get("name")) for c in k.findall("testcase")) == sorted(
    (s, m) for s in ("clear", "no-gso", "esp-null") for m in ("throughput", "cycles_per_byte"))): raise AssertionError
f = [c for c in k.findall("testcase") if c.find("failure") is not None]
if not (len(f) == 1 and f[0].get("classname") == "esp-null" and f[0].get("name") == "throughput"): raise AssertionError
fl = f[0].find("failure")
if not (fl.get("type") == "regression" and fl.get("message").startswith("esp-null throughput -")): raise AssertionError(fl.attrib)
if not ("(p 0.0079): worse by more than 5% with p < 0.05" in fl.get("message")): raise AssertionError(fl.attrib)
if not ("base median" in fl.text and "new median" in fl.text and "n 5" in fl.text): raise AssertionError(fl.text)
# too few runs: skipped with the reason, never passed
r = load("few")
k = r.findall("testsuite")[1]
sk = [c.find("skipped") for c in k.findall("testcase")]
if not (len(sk) == 6 and all(s is not None and "too few runs" in s.get("message") for s in sk)): raise AssertionError(sk)
if not ("too_few_runs" in r.findall("testsuite")[0].find("system-out").text): raise AssertionError
# a refused mismatch: the comparability suite's error, no metric suites
r = load("refused")
suites = r.findall("testsuite")
if not (len(suites) == 1 and suites[0].get("errors") == "1"): raise AssertionError
e = [c for c in suites[0].findall("testcase") if c.find("error") is not None]
if not (len(e) == 1 and e[0].get("name") == "duration" and "differs" in e[0].find("error").get("message")): raise AssertionError
# strings from results directories are escaped
r = load("escaped")
if not (r.findall("testsuite")[1].get("name") == "ipsecperf compare k&<\"'>1"): raise AssertionError(r.findall("testsuite")[1].get("name"))
# U+FFFE, U+FFFF (each byte) and bytes that start no UTF-8 character: U+FFFD
r = load("forbidden")
names = {c.get("classname") for s in r.findall("testsuite")[1:] for c in s.findall("testcase")}
if not ("clear" + "\ufffd" * 6 in names): raise AssertionError(names)
vals = [p.get("value") for p in r.iter("property")]
if not (any(v.endswith("bad-" + "\ufffd" * 6) for v in vals)): raise AssertionError(vals)
PY

# several directories a side: pooled, each one's provenance shown
synth "$TMP/b2" --seed 21
synth "$TMP/s2" --seed 22 --scale esp-null=0.90
expect 1 '^esp-null: n 10 vs 10$' "$TMP/base" "$TMP/b2" -- "$TMP/slow" "$TMP/s2"
for d in base b2 slow s2; do
	grep -q "^      $TMP/$d\$\|^base  $TMP/$d\$\|^new   $TMP/$d\$" "$TMP/out" || { cat "$TMP/out" >&2; fail "pooled: $d not in the header"; }
done
[ "$(grep -c '^        testbed netns, host synth' "$TMP/out")" = 4 ] || { cat "$TMP/out" >&2; fail "pooled: not 4 provenance lines"; }
"$IPSECPERF" compare -f json "$TMP/base" "$TMP/b2" -- "$TMP/slow" "$TMP/s2" > "$TMP/j8"
json_notes "$TMP/j8" '
if not (len(j["base_dirs"]) == 2 and len(j["new_dirs"]) == 2 and j["regressions"] == 1): raise AssertionError(j)'
# refused where a side's directories differ, and allowed
synth "$TMP/b3" --seed 23 --host elsewhere
expect 2 "not comparable: host differs: synth in base $TMP/base, elsewhere in base $TMP/b3" "$TMP/base" "$TMP/b3" -- "$TMP/aa"
expect 0 'mismatch \(allowed\): host differs' --allow-mismatch host "$TMP/base" "$TMP/b3" -- "$TMP/aa"
expect 2 'given twice' "$TMP/base" "$TMP/base" -- "$TMP/aa"
expect 2 'results directories expected on both sides of --' "$TMP/base" --
expect 0 'verdict: no regression' -- "$TMP/base" "$TMP/aa"

# report pools directories only where they were measured alike
"$IPSECPERF" report "$TMP/base" "$TMP/b2" > "$TMP/rep" || fail "report: two comparable directories"
grep -qE '^esp-null +10 ' "$TMP/rep" || { cat "$TMP/rep" >&2; fail "report: runs not pooled"; }
"$IPSECPERF" report "$TMP/base" "$TMP/b3" > "$TMP/rep" 2> "$TMP/err"
[ $? = 2 ] || fail "report: pooled a different host"
grep -q "^ipsecperf: report: not comparable: host differs: synth in $TMP/base, elsewhere in $TMP/b3" "$TMP/err" ||
	{ cat "$TMP/err" >&2; fail "report: no note"; }
"$IPSECPERF" report --allow-mismatch host "$TMP/base" "$TMP/b3" > "$TMP/rep" || fail "report --allow-mismatch"
grep -q '^mismatch (allowed): host differs' "$TMP/rep" || { cat "$TMP/rep" >&2; fail "report: allowed mismatch not noted"; }

# the simulation runs and is reproducible
"$IPSECPERF" compare --simulate --trials 200 > "$TMP/sim1" || fail "simulate"
"$IPSECPERF" compare --simulate --trials 200 > "$TMP/sim2" || fail "simulate"
cmp -s "$TMP/sim1" "$TMP/sim2" || fail "simulate is not reproducible"
grep -qE '^mw +5 +2% +0% +0% ' "$TMP/sim1" || fail "simulate: no mw n=5 cv=2% A/A row"
exit 0
