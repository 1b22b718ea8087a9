# SPDX-License-Identifier: GPL-2.0
# The start of a test that reads results directories and needs no root
# (test_report, test_compare, test_hostile_results): sourced with the
# test's short name as $1, it sets TOP, IPSECPERF, SYNTH and TMP (removed
# on exit), fail(), and skips without python3, which makes the results.
set -u
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
IPSECPERF=${IPSECPERF:-"$TOP/build/ipsecperf"}
SYNTH="$TOP/tests/integration/synth_results.py"
export IPSECPERF_TEMPLATES=${IPSECPERF_TEMPLATES:-"$TOP/analyze/templates"}
TMP=$(mktemp -d "/tmp/ipsecperf-test-$1.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -x "$IPSECPERF" ] || fail "build/ipsecperf missing: run make"
# (under make test, which installed python3, its absence is a failure: lib.sh's skip_ours)
command -v python3 > /dev/null || { [ -n "${IPSECPERF_TEST_DEPS:-}" ] && fail "python3 missing (make test installed it)"
	echo "SKIP: python3 missing" >&2; exit 4; }
. "$(dirname "${BASH_SOURCE[0]}")/expect_lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/assert_lib.sh"
