#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run every tests/integration/test_*.sh (or those whose name, test_x without
# .sh, $TEST_FILTER matches: an extended regex, unanchored, so a plain name
# is a substring and 'test_cli|test_help' picks two),
# each with a time bound that only catches hangs, and print a closing line
# "N passed, N failed, N skipped", after the names of those that skipped
# and failed.
#
# $TEST_JOBS tests run at once (default: one more than the CPUs, at most
# 4). Much of a test's time is a run's fixed duration, a timeout or a
# guest's I/O, when its CPU idles: on 2 CPUs three at a time took 8% less
# than two (docs/testing.md). Not more than 4: each guest takes 1 GiB, a
# vm-pair test two.
# A test shares the host with another only in what it cannot see:
# lib.sh's snapshot() leaves out what belongs to the other test running
# beside it ($IPSECPERF_TEST_LANE, below). A test whose header says
# "# run-all: alone" runs with no other beside it.
#
# Each test's output is printed whole when it ends, under its name, so
# two tests' lines never mix. The longest tests start first, by their
# times in the last run (kept in $TEST_TIMES), so that the two lanes end
# together.
set -u
dir=$(cd "$(dirname "$0")" && pwd)
pass=0 failed=0 skipped=0 failures="" skips=""
filter=${TEST_FILTER:-}
[[ "" =~ $filter ]]
[ $? = 2 ] && { echo "run-all.sh: TEST_FILTER '$filter' is not an extended regex" >&2; exit 2; }
jobs=${TEST_JOBS:-$(($(nproc) < 4 ? $(nproc) + 1 : 4))}
[[ "$jobs" =~ ^[1-9][0-9]?$ ]] || { echo "run-all.sh: TEST_JOBS '$jobs' is not a number from 1 to 99" >&2; exit 2; }
times=${TEST_TIMES:-/var/cache/ipsecperf/test-times}
logs=$(mktemp -d /tmp/ipsecperf-run-all.XXXXXX) || exit 1

# The last run's time of test $1 in seconds: from $times, which this
# script wrote (but checked as if it had not), else from test-times.txt
# beside it (a run's times on a 2-CPU machine, for a machine that has not
# run the tests yet), else 0.
last_time() {
	local f t
	for f in "$times" "$dir/test-times.txt"; do
		t=$(awk -v n="$1" '$1 == n && $2 ~ /^[0-9]+$/ { t = $2 } END { print t }' "$f" 2> /dev/null)
		[ -n "$t" ] && break
	done
	echo "${t:-0}"
}

names=()
while read -r _ name; do names+=("$name"); done < <(
	for t in "$dir"/test_*.sh; do
		name=$(basename "$t" .sh)
		[[ "$name" =~ $filter ]] || continue
		echo "$(last_time "$name") $name"
	done | sort -k1,1nr -k2,2)
alone() { grep -q '^# run-all: alone' "$dir/$1.sh"; }

declare -A pid_of=() start_of=()
running=0

start_test() { # name
	local name=$1 limit
	# the tests that build kernels (a bisect step, a variant: 1-2 min each
	# on 2 CPUs) get more room on a machine that has not built them yet
	case $name in test_bisect | test_kernel_* | test_patch_to_verdict) limit=1800 ;; *) limit=900 ;; esac
	printf '  TEST     %s\n' "$name"
	IPSECPERF_TEST_LANE="$name-$$-$RANDOM" timeout --kill-after=10 $limit bash "$dir/$name.sh" \
		> "$logs/$name.log" 2>&1 < /dev/null &
	pid_of[$name]=$!
	start_of[$name]=$(date +%s)
	running=$((running + 1))
}

# Wait for one running test to end, print its output and its verdict.
end_one() {
	local done_pid rc name secs
	wait -n -p done_pid
	rc=$?
	for name in "${!pid_of[@]}"; do [ "${pid_of[$name]}" = "$done_pid" ] && break; done
	secs=$(($(date +%s) - start_of[$name]))
	unset "pid_of[$name]"
	running=$((running - 1))
	sed 's/^/    /' "$logs/$name.log"
	case $rc in
	0) pass=$((pass + 1)); printf '  PASS     %s (%d s)\n' "$name" "$secs" ;;
	4) skipped=$((skipped + 1)); skips="$skips $name"; printf '  SKIP     %s (%d s)\n' "$name" "$secs" ;;
	*) failed=$((failed + 1)); failures="$failures $name"; printf '  FAIL     %s (exit %d, %d s)\n' "$name" "$rc" "$secs" ;;
	esac
	echo "$name $secs" >> "$logs/times"
}

# Ctrl-C or a TERM: every running test is told to stop (timeout passes the
# TERM on, and the test's traps undo what it made), and waited for.
stop_all() {
	trap '' INT TERM
	echo "run-all.sh: stopping ${!pid_of[*]}" >&2
	for name in "${!pid_of[@]}"; do kill -TERM "${pid_of[$name]}" 2> /dev/null; done
	wait
	rm -rf "$logs"
	exit 130
}
trap stop_all INT TERM

# those that run alone first, then the others, $jobs at a time
for name in "${names[@]}"; do
	alone "$name" || continue
	start_test "$name"
	end_one
done
for name in "${names[@]}"; do
	alone "$name" && continue
	while [ $running -ge "$jobs" ]; do end_one; done
	start_test "$name"
done
while [ $running -gt 0 ]; do end_one; done

# this run's times, for the next run's order (a filtered run keeps the
# others' from before)
if [ -s "$logs/times" ] && mkdir -p "$(dirname "$times")" 2> /dev/null; then
	{ cat "$logs/times"; awk 'NR == FNR { seen[$1] = 1; next } !($1 in seen)' "$logs/times" "$times" 2> /dev/null || true; } \
		> "$times.new.$$" && mv "$times.new.$$" "$times"
fi
rm -rf "$logs"
[ -n "$skips" ] && echo "skipped:$skips"
[ -n "$failures" ] && echo "failed:$failures"
echo "$pass passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
