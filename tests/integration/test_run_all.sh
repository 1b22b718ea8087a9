#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The test runner itself (run-all.sh), on a folder of stand-in tests:
# - two tests run at once (each waits for the other's mark), and a test
#   marked "run-all: alone" sees no other running; each test's output is
#   printed whole under its name; pass, fail and skip are counted, and the
#   exit status says whether any failed;
# - the times of a run are kept and order the next (longest first);
# - a TERM to the runner stops the running tests, whose traps run (lib.sh
#   traps TERM: without it bash may die of the signal before its EXIT trap);
# - a bad TEST_JOBS or TEST_FILTER is one line and exit 2;
# - a VM test whose own kernel fetch fails skips, but fails under make test;
# - `make unit` names the cases a program skipped (root-only, without root).
# Then lib.sh's snapshot() beside another test: a process, namespace or
# journal of the other test's lane is left out (a namespace of a run's, or made
# by hand and named after the test's shell); one of this lane's, or of
# no lane, or that its process left behind, is not (unless its journal is
# in another test's folder: a run that test killed); nor is a process on
# its way out (a zombie).
#
# run-all: alone (its stand-ins are made to be seen from every lane: a
# process of no lane, a namespace its ended process left behind; beside
# it, test_leftovers saw that namespace before and not after, and failed)
. "$(dirname "$0")/lib.sh"

D="$TMP/tests"
mkdir -p "$D"
cp "$TOP/tests/integration/run-all.sh" "$D/"
export TEST_TIMES="$TMP/times"
unset TEST_FILTER
# A and B each wait (5 s at most) for the other's mark: they pass only when run at once
for p in a:b b:a; do
	cat > "$D/test_pair_${p%:*}.sh" << EOF
[ -e "$TMP/running.solo" ] && { echo "${p%:*} ran beside the test that runs alone"; exit 1; }
touch "$TMP/mark.${p%:*}"
echo "line one of ${p%:*}"
for _ in \$(seq 50); do [ -e "$TMP/mark.${p#*:}" ] && { echo "line two of ${p%:*}"; exit 0; }; sleep 0.1; done
echo "${p%:*} never saw ${p#*:} running"; exit 1
EOF
done
# (the mark made by printf, so that only the header's line marks this file)
printf '# run-all: %s (the stand-in for a test that looks at the whole host)\n' alone > "$D/test_solo.sh"
cat >> "$D/test_solo.sh" << EOF
ls "$TMP" | grep -q '^mark\.' && { echo "solo: another test has run"; exit 1; }
touch "$TMP/running.solo"; sleep 0.5; rm "$TMP/running.solo"
EOF
cat > "$D/test_skips.sh" << EOF
touch "$TMP/running.skips"; sleep 0.3; rm "$TMP/running.skips"; exit 4
EOF
cat > "$D/test_fails.sh" << EOF
touch "$TMP/running.fails"; sleep 0.3; rm "$TMP/running.fails"; echo "it went wrong"; exit 3
EOF

TEST_JOBS=2 bash "$D/run-all.sh" > "$TMP/out" 2>&1
rc=$?
cat "$TMP/out" >&2
[ $rc = 1 ] || fail "a run with a failing test exited $rc, not 1"
tail -1 "$TMP/out" | grep -qx '3 passed, 1 failed, 1 skipped' || fail "the closing line is not '3 passed, 1 failed, 1 skipped'"
grep -qx 'failed: test_fails' "$TMP/out" || fail "the failed test is not named"
grep -qx 'skipped: test_skips' "$TMP/out" || fail "the skipped test is not named"
grep -q '^  FAIL     test_fails (exit 3, [0-9]* s)$' "$TMP/out" || fail "no FAIL line with the exit status"
# each test's lines together, indented, right above its verdict
for t in a b; do
	grep -A1 "^    line one of $t\$" "$TMP/out" | tail -1 | grep -qx "    line two of $t" &&
		grep -A1 "^    line two of $t\$" "$TMP/out" | tail -1 | grep -q "^  PASS     test_pair_$t " ||
		fail "test_pair_$t's output is not whole under its verdict"
done
head -2 "$TMP/out" | grep -q 'test_solo' || fail "the test that runs alone did not run first"
info "two at once, one alone, output whole, counted"

# the times, for the next run's order: the longest first
awk 'NF != 2 || $2 !~ /^[0-9]+$/ { bad = 1 } END { exit bad || NR != 5 }' "$TEST_TIMES" ||
	{ cat "$TEST_TIMES" >&2; fail "the times file is not a name and seconds for each of the 5 tests"; }
printf 'test_fails 9\ntest_skips 20\n' >> "$TEST_TIMES"
rm -f "$D/test_solo.sh" "$TMP"/mark.*
TEST_FILTER='skips|fails' bash "$D/run-all.sh" > "$TMP/out2" 2>&1
grep '^  TEST' "$TMP/out2" | head -1 | grep -q test_skips || { cat "$TMP/out2" >&2; fail "the test last timed longest did not start first"; }
grep -q '^test_pair_a ' "$TEST_TIMES" || fail "a filtered run dropped the other tests' times"

# a TERM stops the running tests, and their traps run
cat > "$D/test_long.sh" << EOF
. "$TOP/tests/integration/lib.sh"
trap 'rm -rf "\$TMP"; touch "$TMP/trapped"' EXIT
touch "$TMP/long.started"; sleep 60
EOF
TEST_FILTER=long bash "$D/run-all.sh" > "$TMP/out3" 2>&1 &
pid=$!
# (the test must have set its trap first: under load 5-6 it took more than
# the 5 s this waited before, and a TERM before its trap left no trace)
for _ in $(seq 300); do [ -e "$TMP/long.started" ] && break; sleep 0.1; done
[ -e "$TMP/long.started" ] || fail "the long test did not start within 30 s"
kill -TERM $pid
for _ in $(seq 100); do kill -0 $pid 2> /dev/null || break; sleep 0.1; done
kill -0 $pid 2> /dev/null && fail "the runner still runs 10 s after a TERM"
wait $pid
rc=$?
[ $rc = 130 ] || fail "the runner stopped with $rc, not 130"
[ -e "$TMP/trapped" ] || fail "the stopped test's trap did not run"
pgrep -f "$D/test_long.sh" > /dev/null && fail "the stopped test is still running"
info "times kept and used; a TERM stops the tests, traps run"

# a skip for what the project provides is seen: a VM test whose own fetch
# of its kernel fails (a cache that cannot be made) skips under make check and
# fails the suite under make test (IPSECPERF_TEST_DEPS=1)
cat > "$D/test_fetch.sh" << EOF
. "$TOP/tests/integration/lib.sh"
. "$TOP/tests/integration/vm_lib.sh"
k=\$(vm_kernel "\$DEB61") || exit \$?
echo "a kernel from a cache that cannot be: \$k"
EOF
touch "$TMP/a-file" && export IPSECPERF_CACHE="$TMP/a-file/cache"
env -u IPSECPERF_TEST_DEPS TEST_FILTER=fetch bash "$D/run-all.sh" > "$TMP/out4" 2>&1
rc=$?
grep -q '^    SKIP: cannot fetch ' "$TMP/out4" && [ $rc = 0 ] && tail -1 "$TMP/out4" | grep -qx '0 passed, 0 failed, 1 skipped' ||
	{ cat "$TMP/out4" >&2; fail "a failed fetch without make test: exit $rc, not a skip"; }
IPSECPERF_TEST_DEPS=1 TEST_FILTER=fetch bash "$D/run-all.sh" > "$TMP/out5" 2>&1
rc=$?
grep -q '^    FAIL: cannot fetch .*make test installed' "$TMP/out5" && [ $rc = 1 ] &&
	tail -1 "$TMP/out5" | grep -qx '0 passed, 1 failed, 0 skipped' ||
	{ cat "$TMP/out5" >&2; fail "a failed fetch under make test: exit $rc, not a failure"; }
unset IPSECPERF_CACHE
info "a failed fetch of the tests' own kernel: a skip, and under make test a failure"

# make unit names the cases a program skipped (cmocka's skip()): test_xfrm
# as nobody, whose kernel round trip needs root (no "Entering directory"
# lines: under make test this make is a sub-make, which -C makes print them)
make -s -C "$TOP" build/tests/test_xfrm > /dev/null || fail "cannot build build/tests/test_xfrm"
printf '#!/bin/sh\nexec setpriv --reuid=nobody --regid=nogroup --clear-groups %s\n' "$TOP/build/tests/test_xfrm" \
	> "$TMP/xfrm-as-nobody" && chmod +x "$TMP/xfrm-as-nobody"
make -s --no-print-directory -C "$TOP" unit UNIT_BINS="$TMP/xfrm-as-nobody" > "$TMP/unit.out" 2>&1 || { cat "$TMP/unit.out" >&2; fail "make unit failed"; }
# (the SKIP line names every case that needs root, kernel_roundtrip among
# them; the closing line counts as many)
skipped=$(sed -n "s|^  SKIP     $TMP/xfrm-as-nobody: ||p" "$TMP/unit.out")
case " $skipped " in *" kernel_roundtrip "*) ;; *) skipped= ;; esac
[ -n "$skipped" ] &&
	tail -1 "$TMP/unit.out" | grep -qx "unit: 1 programs, 0 failed, $(echo $skipped | wc -w) cases skipped" ||
	{ cat "$TMP/unit.out" >&2; fail "make unit did not say which cases it skipped"; }
info "make unit names a skipped case"

# bad input: one line, exit 2
for bad in "TEST_JOBS=0" "TEST_JOBS=two" "TEST_FILTER=("; do
	env "$bad" bash "$D/run-all.sh" > "$TMP/bad.out" 2> "$TMP/bad.err"
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l < "$TMP/bad.err")" = 1 ] && [ ! -s "$TMP/bad.out" ] ||
		{ cat "$TMP/bad.err" >&2; fail "$bad: exit $rc, or not one line"; }
done
info "a bad TEST_JOBS or TEST_FILTER: one line, exit 2"

# snapshot() beside another lane: a stand-in "ipsecperf" (sleep under that
# name) in each lane, and a namespace named after each one's pid
cp "$(command -v sleep)" "$TMP/ipsecperf"
# this test's own lane when run-all.sh gave it one (the shell's environment
# as /proc shows it, which an export does not change), else one of its own
export IPSECPERF_TEST_LANE="${IPSECPERF_TEST_LANE:-this-$$}" IPSECPERF_JOURNAL_DIR="$TMP/journal"
mkdir -p "$IPSECPERF_JOURNAL_DIR"
IPSECPERF_TEST_LANE="other-$$" "$TMP/ipsecperf" 60 &
other=$!
env -u IPSECPERF_TEST_LANE "$TMP/ipsecperf" 60 &
nolane=$!
"$TMP/ipsecperf" 60 &
ours=$!
trap 'kill $other $nolane $ours 2> /dev/null; ip netns del "ipsecperf-$other-1-tx" 2> /dev/null; ip netns del "ipp-byhand-$other" 2> /dev/null
      ip netns del "ipsecperf-$ours-1-tx" 2> /dev/null; rm -rf "$TMP"' EXIT
# (and one made by hand, as test_restore makes them: NAME-PID, PID the test's shell)
ip netns add "ipsecperf-$other-1-tx" && ip netns add "ipsecperf-$ours-1-tx" && ip netns add "ipp-byhand-$other" ||
	fail "cannot add the namespaces"
touch "$IPSECPERF_JOURNAL_DIR/journal-$other-1.jsonl" "$IPSECPERF_JOURNAL_DIR/journal-$ours-1.jsonl"
snapshot > "$TMP/snap"
[ "$(grep -c '^ipsecperf$' "$TMP/snap")" -ge 2 ] || { cat "$TMP/snap" >&2; fail "this lane's or no lane's process was left out"; }
grep -q "ipsecperf-$ours-1-tx" "$TMP/snap" && grep -q "journal-$ours-1" "$TMP/snap" ||
	{ cat "$TMP/snap" >&2; fail "this lane's namespace or journal was left out"; }
grep -q "ipsecperf-$other-1-tx\|ipp-byhand-$other\|journal-$other-1" "$TMP/snap" &&
	{ cat "$TMP/snap" >&2; fail "the other lane's namespace or journal was seen"; }
IPSECPERF_TEST_LANE="other-$$" snapshot > "$TMP/snap.other"
grep -q "ipsecperf-$other-1-tx" "$TMP/snap.other" && ! grep -q "ipsecperf-$ours-1-tx" "$TMP/snap.other" ||
	{ cat "$TMP/snap.other" >&2; fail "from the other lane: its own namespace left out, or this lane's seen"; }
ip netns del "ipp-byhand-$other"
# the other lane's process ends and leaves its namespace and journal: they are seen
kill $other && wait $other 2> /dev/null
snapshot > "$TMP/snap2"
grep -q "ipsecperf-$other-1-tx" "$TMP/snap2" && grep -q "journal-$other-1" "$TMP/snap2" ||
	{ cat "$TMP/snap2" >&2; fail "what an ended process left behind was left out"; }
# ... unless its journal is in another test's folder (a run that test
# killed, its cleanup to come): then its namespace is that test's to check
beside=$(mktemp -d /tmp/ipsecperf-test.XXXXXX) && mkdir "$beside/journal" &&
	mv "$IPSECPERF_JOURNAL_DIR/journal-$other-1.jsonl" "$beside/journal/" || fail "cannot make the other test's folder"
snapshot > "$TMP/snap2b"
rm -rf "$beside"
grep -q "ipsecperf-$other-1-tx" "$TMP/snap2b" &&
	{ cat "$TMP/snap2b" >&2; fail "the namespace of a run the other test killed (its journal in that test's folder) was seen"; }
# a process on its way out (here a zombie: its parent, sleep, never reaps
# it) has no command line, and an orphan's lane cannot be read: left out
kill $ours && wait $ours 2> /dev/null
bash -c '"$1" 0 & exec sleep 60' - "$TMP/ipsecperf" &
reaper=$!
trap 'kill $other $nolane $reaper 2> /dev/null; ip netns del "ipsecperf-$other-1-tx" 2> /dev/null; ip netns del "ipp-byhand-$other" 2> /dev/null
      ip netns del "ipsecperf-$ours-1-tx" 2> /dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq 50); do ps -o stat= --ppid $reaper | grep -q Z && break; sleep 0.1; done
ps -o stat=,comm= --ppid $reaper | grep -q '^Z.*ipsecperf' || fail "the stand-in zombie was not made"
snapshot > "$TMP/snap3"
[ "$(grep -c '^ipsecperf$' "$TMP/snap3")" = 1 ] || { cat "$TMP/snap3" >&2; fail "a process on its way out was seen (or the live one not)"; }
kill $reaper
info "snapshot: the other lane's process, namespace and journal left out, what it left behind seen (but a killed run's of the test beside), a zombie not"
exit 0
