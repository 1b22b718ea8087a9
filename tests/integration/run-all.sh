#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run every tests/integration/test_*.sh (or those whose name, test_x without
# .sh, $TEST_FILTER matches: an extended regex, unanchored, so a plain name
# is a substring and 'test_cli|test_help' picks two),
# each with a time bound that only catches hangs, and print a closing line
# "N passed, N failed, N skipped".
set -u
dir=$(cd "$(dirname "$0")" && pwd)
pass=0 failed=0 skipped=0 failures=""
filter=${TEST_FILTER:-}
[[ "" =~ $filter ]]
[ $? = 2 ] && { echo "run-all.sh: TEST_FILTER '$filter' is not an extended regex" >&2; exit 2; }
for t in "$dir"/test_*.sh; do
	name=$(basename "$t" .sh)
	[[ "$name" =~ $filter ]] || continue
	start=$(date +%s)
	printf '  TEST     %s\n' "$name"
	# the tests that build kernels (a bisect step, a variant: 1-2 min each
	# on 2 CPUs) get more room on a machine that has not built them yet
	case $name in test_bisect | test_kernel_* | test_patch_to_verdict) limit=1800 ;; *) limit=900 ;; esac
	timeout --kill-after=10 $limit bash "$t"
	rc=$?
	secs=$(($(date +%s) - start))
	case $rc in
	0) pass=$((pass + 1)); printf '  PASS     %s (%d s)\n' "$name" "$secs" ;;
	4) skipped=$((skipped + 1)); printf '  SKIP     %s (%d s)\n' "$name" "$secs" ;;
	*) failed=$((failed + 1)); failures="$failures $name"; printf '  FAIL     %s (exit %d, %d s)\n' "$name" "$rc" "$secs" ;;
	esac
done
[ -n "$failures" ] && echo "failed:$failures"
echo "$pass passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
