#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The tests' own JSON assertions (assert_lib.sh, assert_json.py) fail when
# they should: a missing key, a null, an exception, a false, a non-bool, an
# empty file and a torn line each fail with exit 1 and one line naming the
# file, the line and the expression; a true one passes silently; all of
# it also under PYTHONOPTIMIZE, and no test's Python has an assert
# statement. Needs neither root nor the program.
set -u
TMP=$(mktemp -d /tmp/ipsecperf-test-asserts.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# (under make test, which installed python3, its absence is a failure: lib.sh's skip_ours)
command -v python3 > /dev/null || { [ -n "${IPSECPERF_TEST_DEPS:-}" ] && fail "python3 missing (make test installed it)"
	echo "SKIP: python3 missing" >&2; exit 4; }
. "$(dirname "$0")/assert_lib.sh"

# two records as a run writes them; the second lacks cycles_per_byte and
# has a null receiver figure, as a broken writer could
f="$TMP/runs.jsonl"
cat > "$f" << 'EOF'
{"scenario": "clear", "repeat": 1, "status": "ok", "cycles_per_byte": 1.5, "rx": 2, "reason": null, "sa": []}
{"scenario": "no-gso", "repeat": 1, "status": "ok", "rx": null, "reason": null, "sa": [{"packets": 3}, null]}
EOF
printf '{"kernels": [{"release": "6.1.0"}], "vm": null}\n' > "$TMP/meta.json"

# expect_fail WHAT ERE FUNCTION ARGS...: the assertion exits 1 (the test
# would stop there) with exactly one line on stderr matching ERE
expect_fail() { # what pattern function args...
	local what=$1 pattern=$2 rc
	shift 2
	("$@") > "$TMP/out" 2> "$TMP/err"
	rc=$?
	[ $rc = 1 ] || { cat "$TMP/err" >&2; fail "$what: exit $rc, not 1"; }
	[ ! -s "$TMP/out" ] || fail "$what: printed on stdout"
	[ "$(wc -l < "$TMP/err")" = 1 ] || { cat "$TMP/err" >&2; fail "$what: not one line"; }
	grep -qE -e "$pattern" "$TMP/err" || { cat "$TMP/err" >&2; fail "$what: message lacks /$pattern/"; }
	echo "  $what: $(cat "$TMP/err")" >&2
}
expect_pass() { # what function args...
	local what=$1
	shift
	("$@") > "$TMP/out" 2> "$TMP/err" || { cat "$TMP/err" >&2; fail "$what: failed"; }
	[ ! -s "$TMP/err" ] || { cat "$TMP/err" >&2; fail "$what: said something"; }
}

# the case of the issue: a record without cycles_per_byte
expect_fail "missing key" \
	"^FAIL: cpb: $f line 2 \(scenario no-gso, repeat 1, status ok\): r\[\"cycles_per_byte\"\] > 0: missing key 'cycles_per_byte'\$" \
	assert_jsonl "$f" 'r["cycles_per_byte"] > 0' cpb
expect_fail "null value" "^FAIL: $f line 2 .*: r\[\"rx\"\] >= 0: key 'rx' is null\$" \
	assert_jsonl "$f" 'r["rx"] >= 0'
expect_fail "null compared" "^FAIL: $f line 1 .*: key 'reason' is null\$" \
	assert_jsonl "$f" 'r["reason"] != "x"'
expect_fail "null element" "^FAIL: $f line 2 .*: element 1 is null\$" \
	assert_jsonl "$f" 'all(s["packets"] > 0 for s in r["sa"])'
expect_fail "missing element" "^FAIL: $f line 1 .*: r\[\"sa\"\]\[0\] == 1: no element 0 \(of 0\)\$" \
	assert_jsonl "$f" 'r["sa"][0] == 1'
expect_fail "exception" "^FAIL: $f line 1 .*: TypeError: .*'<'" \
	assert_jsonl "$f" 'r["scenario"] < 3'
expect_fail "exception from .get()" "^FAIL: $f line 2 .*: TypeError: " \
	assert_jsonl "$f" 'r.get("rx") > 0'
expect_fail "false" "^FAIL: throughput: $f line 2 \(scenario no-gso.*\): r\[\"scenario\"\] == \"clear\": is False\$" \
	assert_jsonl "$f" 'r["scenario"] == "clear"' throughput
expect_fail "non-bool" "^FAIL: $f line 1 .*: r\[\"repeat\"\]: is int '1', not True\$" \
	assert_jsonl "$f" 'r["repeat"]'
expect_fail "truthy string" "^FAIL: $f line 1 .*: is str 'ok', not True\$" \
	assert_jsonl "$f" 'r["repeat"] == 1 and r["status"]'
expect_fail "a multi-line expression, on one line" "^FAIL: $f line 2 .*: r\[\"status\"\] == \"ok\" and r\[\"rx\"\] > 0: key 'rx' is null\$" \
	assert_jsonl "$f" 'r["status"] == "ok" and
		r["rx"] > 0'
expect_fail "all records, false" "^FAIL: order: $f: .*: is False \[records: scenario clear, repeat 1, status ok; scenario no-gso, .*\]\$" \
	assert_records "$f" '[r["scenario"] for r in rs] == ["no-gso", "clear"]' order
expect_fail "a document's missing key" "^FAIL: $TMP/meta.json: d\[\"host\"\] != \"\": missing key 'host'\$" \
	assert_json "$TMP/meta.json" 'd["host"] != ""'
expect_fail "a document's null" "^FAIL: $TMP/meta.json: .*: key 'vm' is null\$" \
	assert_json "$TMP/meta.json" 'len(d["vm"]) == 0'
: > "$TMP/empty.jsonl"
expect_fail "empty file" "^FAIL: $TMP/empty.jsonl: no records\$" assert_jsonl "$TMP/empty.jsonl" 'True'
expect_fail "empty file, all" "^FAIL: $TMP/empty.jsonl: no records\$" assert_records "$TMP/empty.jsonl" 'len(rs) == 0'
expect_fail "no file" "^FAIL: $TMP/none.jsonl: cannot read: " assert_jsonl "$TMP/none.jsonl" 'True'
printf '{"status": "ok"}\n{"status": "o' > "$TMP/torn.jsonl"
expect_fail "torn line" "^FAIL: $TMP/torn.jsonl: line 2: not JSON" assert_jsonl "$TMP/torn.jsonl" 'True'
expect_fail "no imports" "^FAIL: .*NameError: name '__import__' is not defined\$" \
	assert_jsonl "$f" '__import__("os") is None'

printf '{"scenario": "x", "status": "failed", "reason": "it broke"}\n' > "$TMP/failed.jsonl"
expect_fail "the reason of a record not ok" "^FAIL: $TMP/failed.jsonl line 1 \(scenario x, status failed, reason 'it broke'\): r\[\"status\"\] == \"ok\": is False\$" \
	assert_jsonl "$TMP/failed.jsonl" 'r["status"] == "ok"'
# json_check returns instead
json_check --each "$f" 'r["status"] == "failed"' 2> /dev/null && fail "json_check: a false passed"

# the assertion stops the test that makes it
(assert_jsonl "$f" 'r["cycles_per_byte"] > 0'; echo "went on") > "$TMP/out" 2> /dev/null
[ ! -s "$TMP/out" ] || fail "a failed assertion did not stop the test"

# and what holds passes, silently
expect_pass "true" assert_jsonl "$f" 'r["status"] == "ok" and r["repeat"] == 1'
expect_pass "explicit optional" assert_jsonl "$f" 'r.get("cycles_per_byte", 1) > 0 and r.get("reason") is None'
expect_pass "all records" assert_records "$f" '[r["scenario"] for r in rs] == ["clear", "no-gso"]'
expect_pass "--arg" assert_json --arg rel 6.1.0 "$TMP/meta.json" 'd["kernels"][0]["release"] == rel'
expect_pass "match" assert_jsonl "$f" 'match("^(clear|no-gso)$", r["scenario"])'
expect_pass "stdin" assert_json - 'd["kernels"][0]["release"] == "6.1.0"' < "$TMP/meta.json"

# json_values prints, strictly: one record lacking the value fails it
[ "$(json_values "$f" 'r["scenario"]' | tr '\n' ' ')" = "clear no-gso " ] || fail "json_values: not the values"
json_values "$f" 'r["cycles_per_byte"]' > "$TMP/out" 2> "$TMP/err" && fail "json_values: a missing key passed"
grep -q "line 2 .*missing key 'cycles_per_byte'" "$TMP/err" || fail "json_values: $(cat "$TMP/err")"

# into `head`: no complaint about the pipe it closed
for _ in $(seq 3000); do echo '{"kernel": "k"}'; done > "$TMP/many.jsonl"
[ "$(json_values "$TMP/many.jsonl" 'r["kernel"]' 2> "$TMP/err" | head -1)" = k ] && [ ! -s "$TMP/err" ] ||
	fail "json_values into head: $(cat "$TMP/err")"

# inline scripts get the same strictness
python3 - "$f" << 'EOF' 2> "$TMP/err" && fail "records(): a null read passed"
import sys
from assert_json import records
if not (all(r["rx"] >= 0 for r in records(sys.argv[1]))): raise AssertionError
EOF
grep -q "Missing: key 'rx' is null" "$TMP/err" || { cat "$TMP/err" >&2; fail "records(): not the null"; }

# PYTHONOPTIMIZE (python3 -O) drops assert statements: the checks are
# explicit raises, and hold under it
PYTHONOPTIMIZE=2 expect_fail "optimized" "^FAIL: $f line 1 .*: r\[\"repeat\"\] == 2: is False\$" \
	assert_jsonl "$f" 'r["repeat"] == 2'
PYTHONOPTIMIZE=2 python3 - << 'EOF' 2> "$TMP/err" && fail "probe_equals_sa: a count above the SA's passed under PYTHONOPTIMIZE"
from assert_json import probe_equals_sa
probe_equals_sa({"kernel": "6.12.0", "scenario": "esp-null", "sa_load": [{"spi": "0x1", "dir": "out", "packets": 5}],
                 "counters": {"esp_output": {"per_sa_load": {"0x1": 6}}}}, "esp_output", "packets")
EOF
grep -q "AssertionError: ('esp-null', 'esp_output', '0x1', 6, 'packets', 5, 0)" "$TMP/err" ||
	{ cat "$TMP/err" >&2; fail "probe_equals_sa under PYTHONOPTIMIZE: not its message"; }
# and no test's Python has an assert statement (tests/, tools/: the scripts
# and the heredocs and strings the shell tests hand to python3)
top=$(cd "$(dirname "$0")/../.." && pwd)
grep -nE "(^|[;'\"])[[:space:]]*assert([[:space:]]+|\()" "$top"/tests/integration/*.sh "$top"/tests/integration/*.py \
	"$top"/tests/bench/*.py "$top"/tools/*.py > "$TMP/asserts" && { cat "$TMP/asserts" >&2
	fail "PYTHONOPTIMIZE drops Python's assert statements: write 'if not (X): raise AssertionError(...)'"; }
exit 0
