# SPDX-License-Identifier: GPL-2.0
# Assertions on the JSON the program writes, sourced by lib.sh and
# results_lib.sh: every test has them. tests/integration/assert_json.py
# evaluates a python expression strictly: it fails on a missing key, a null
# (unless read with .get()), an exception, a false or a non-bool, and on a
# file without records, with one line naming the file, the line and the
# expression. Options (before FILE): --arg NAME VALUE binds a string.
#   assert_json    FILE EXPR [MESSAGE]   a JSON document, as d
#   assert_jsonl   FILE EXPR [MESSAGE]   every record of a JSON lines file, as r
#   assert_records FILE EXPR [MESSAGE]   the list of its records, as rs
#   json_values    FILE EXPR             print EXPR of every record, as r
#   json_value     FILE EXPR             print EXPR of a JSON document, as d
#   json_check     --doc|--each|--all ... as the three above, but returns 1
#                  instead of exiting (when the test must clean up first)
# The assert_* exit the test (status 1) when the expression does not hold
# (so never put one at the end of a pipe: it would exit that subshell only);
# json_value(s) return 1 (and prints why) when one record cannot give it.
ASSERT_JSON="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/assert_json.py"
# inline test scripts: `from assert_json import document, records`
export PYTHONPATH="${ASSERT_JSON%/*}${PYTHONPATH:+:$PYTHONPATH}"

assert_json() { python3 "$ASSERT_JSON" --doc "$@" || exit 1; }
assert_jsonl() { python3 "$ASSERT_JSON" --each "$@" || exit 1; }
assert_records() { python3 "$ASSERT_JSON" --all "$@" || exit 1; }
json_check() { python3 "$ASSERT_JSON" "$@"; }
json_values() { python3 "$ASSERT_JSON" --print "$@"; }
json_value() { python3 "$ASSERT_JSON" --value "$@"; }
# the old name of json_values, for tests written before it
jq_lines() { json_values "$@"; }
