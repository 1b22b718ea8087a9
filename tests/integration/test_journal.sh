#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The journal is root's and undoes only what its run did:
# - a journal folder another user can write (1777, or nobody's) is refused
#   by `run` and `cleanup` with one line and exit 2, and what a journal
#   planted there says is never run;
# - in a good folder, a journal that is a symlink or not root's is refused
#   (exit 1), and a line that cannot be read is reported, the rest undone and
#   the journal kept; a torn last line is said, not counted;
# - a run that gets a killed run's pid (in a pid namespace: pid 1 twice)
#   leaves that run's journal as it was;
# - two runs measuring at once both say so, in their records, meta.json and
#   output; one run alone says nothing;
# - run --tune sets the governor to performance and boost off for the run
#   and puts them back (on a stand-in cpu folder bound over sysfs's in a
#   mount namespace of the test's own), --dry-run only prints it, and a
#   killed run's record is undone by cleanup; a "sysfs" record naming
#   another file is left alone.
. "$(dirname "$0")/lib.sh"

export IPSECPERF_JOURNAL_DIR="$TMP/journal"
pwned="$TMP/pwned"

# A journal whose undo would create $1: proof of whether cleanup ran it.
plant() { # file marker
	printf '{"kind":"argv","argv":["touch","%s"],"seq":1}\n' "$2" > "$1"
}

# --- folders another user can write --------------------------------------
pub="$TMP/pub"
mkdir -m 1777 "$pub"
plant "$pub/journal-4242-1.jsonl" "$pwned"
chown nobody "$pub/journal-4242-1.jsonl"
IPSECPERF_JOURNAL_DIR="$pub" "$IPSECPERF" cleanup > "$TMP/pub.out" 2> "$TMP/pub.err"
rc=$?
[ $rc = 2 ] || { cat "$TMP/pub.out" "$TMP/pub.err" >&2; fail "cleanup in a 1777 folder exited $rc, not 2"; }
[ "$(wc -l < "$TMP/pub.err")" = 1 ] && grep -q "journal folder $pub is owned by uid 0 with mode 1777, not root's with 0700: refused" "$TMP/pub.err" ||
	{ cat "$TMP/pub.err" >&2; fail "cleanup in a 1777 folder: not one clear line"; }
[ -e "$pwned" ] && fail "cleanup ran a journal planted in a 1777 folder"

nob="$TMP/nob"
mkdir -m 0700 "$nob"
chown nobody "$nob"
plant "$nob/journal-4242-1.jsonl" "$pwned"
IPSECPERF_JOURNAL_DIR="$nob" "$IPSECPERF" cleanup > "$TMP/nob.out" 2> "$TMP/nob.err"
rc=$?
[ $rc = 2 ] && grep -q "owned by uid $(id -u nobody) with mode 0700, not root's" "$TMP/nob.err" ||
	{ cat "$TMP/nob.err" >&2; fail "cleanup in a folder of nobody's: exit $rc, or no clear line"; }
[ -e "$pwned" ] && fail "cleanup ran a journal planted in a folder of nobody's"

# a run refuses such a folder before it changes anything
snapshot > "$TMP/ns.before"
IPSECPERF_JOURNAL_DIR="$pub" "$IPSECPERF" run --quiet -t 1 -O 0 -r 1 -o "$TMP/pubrun" clear \
	> "$TMP/pubrun.out" 2> "$TMP/pubrun.err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l < "$TMP/pubrun.err")" = 1 ] && grep -q 'journal folder .* refused' "$TMP/pubrun.err" ||
	{ cat "$TMP/pubrun.err" >&2; fail "run with a 1777 journal folder: exit $rc, or not one clear line"; }
[ -e "$TMP/pubrun" ] && fail "run with a refused journal folder made its results directory"
snapshot > "$TMP/ns.after"
assert_same_snapshot "$TMP/ns.before" "$TMP/ns.after" "run with a refused journal folder"
ls "$pub" | grep -qv '^journal-4242-1.jsonl$' && fail "run with a refused journal folder wrote into it"
info "folders: 1777 and nobody's refused by cleanup and run, one line, exit 2, nothing run"

# --- journals in a good folder ---------------------------------------------
mkdir -m 0700 "$IPSECPERF_JOURNAL_DIR"
J="$IPSECPERF_JOURNAL_DIR"
plant "$TMP/elsewhere.jsonl" "$pwned"
ln -s "$TMP/elsewhere.jsonl" "$J/journal-4243-1.jsonl"
plant "$J/journal-4244-1.jsonl" "$pwned"
chown nobody "$J/journal-4244-1.jsonl"
"$IPSECPERF" cleanup > "$TMP/bad.out" 2> "$TMP/bad.err"
rc=$?
[ $rc = 1 ] || { cat "$TMP/bad.out" "$TMP/bad.err" >&2; fail "cleanup of refused journals exited $rc, not 1"; }
grep -q "$J/journal-4243-1.jsonl is a symlink: refused" "$TMP/bad.err" || { cat "$TMP/bad.err" >&2; fail "a symlinked journal not refused clearly"; }
grep -q "$J/journal-4244-1.jsonl is not a regular file owned by root: refused" "$TMP/bad.err" ||
	{ cat "$TMP/bad.err" >&2; fail "a journal of nobody's not refused clearly"; }
[ -e "$pwned" ] && fail "cleanup ran a symlinked journal or one of nobody's"
rm -f "$J"/journal-*

# a line that cannot be read: said, the others undone, the journal kept
{
	printf '{"kind":"argv","argv":["touch","%s"],"seq":1}\n' "$TMP/undone1"
	printf '{"kind":"argv","argv":["touch",\n'
	printf '{"kind":"argv","argv":["touch","%s"],"seq":3}\n' "$TMP/undone3"
} > "$J/journal-4245-1.jsonl"
"$IPSECPERF" cleanup > "$TMP/garbage.out" 2> "$TMP/garbage.err"
rc=$?
[ $rc = 1 ] || { cat "$TMP/garbage.out" "$TMP/garbage.err" >&2; fail "cleanup of a journal with a bad line exited $rc, not 1"; }
grep -q "$J/journal-4245-1.jsonl line 2 cannot be read" "$TMP/garbage.err" ||
	{ cat "$TMP/garbage.err" >&2; fail "the line that cannot be read is not reported"; }
[ -e "$TMP/undone1" ] && [ -e "$TMP/undone3" ] || fail "the readable records of that journal were not undone"
[ -e "$J/journal-4245-1.jsonl" ] || fail "a journal with a line that cannot be read was removed"
rm -f "$J"/journal-*

# a torn last line (its run died writing it, before its change): said, not a failure
{
	printf '{"kind":"argv","argv":["touch","%s"],"seq":1}\n' "$TMP/undone4"
	printf '{"kind":"argv","argv":["tou'
} > "$J/journal-4246-1.jsonl"
"$IPSECPERF" cleanup > "$TMP/torn.out" 2> "$TMP/torn.err" ||
	{ cat "$TMP/torn.out" "$TMP/torn.err" >&2; fail "cleanup of a journal with a torn last line failed"; }
grep -q 'line 2 is torn' "$TMP/torn.err" || { cat "$TMP/torn.err" >&2; fail "the torn line is not said"; }
[ -e "$TMP/undone4" ] && [ ! -e "$J/journal-4246-1.jsonl" ] || fail "the torn journal was not undone and removed"
info "journals: symlink and nobody's refused, a bad line reported and kept, a torn line said"

# --- a killed run's pid, reused -----------------------------------------------
# In a pid namespace of its own the run is pid 1, as the "killed" run was:
# its journal (and one of the old name, journal-1.jsonl) stays as it was.
if unshare --pid --fork --mount-proc true 2> /dev/null; then
	printf '{"kind":"argv","argv":["touch","%s"],"seq":1}\n' "$TMP/killed" > "$J/journal-1-12345.jsonl"
	cp "$J/journal-1-12345.jsonl" "$J/journal-1.jsonl"
	cp "$J/journal-1-12345.jsonl" "$TMP/killed.copy"
	unshare --pid --fork --mount-proc "$IPSECPERF" run --quiet -t 1 -O 0 -r 1 -o "$TMP/pid1" clear \
		> "$TMP/pid1.out" 2> "$TMP/pid1.err" || { rc=$?; cat "$TMP/pid1.err" >&2; fail "a run as pid 1 exited $rc"; }
	assert_records "$TMP/pid1/runs.jsonl" '[r["status"] for r in rs] == ["ok"]' "the run as pid 1 did not run ok"
	cmp -s "$J/journal-1-12345.jsonl" "$TMP/killed.copy" && cmp -s "$J/journal-1.jsonl" "$TMP/killed.copy" ||
		fail "a run with the pid of a killed run changed that run's journal"
	[ "$(ls "$J" | grep -c '^journal-')" = 2 ] || { ls -l "$J" >&2; fail "the run as pid 1 left a journal"; }
	rm -f "$J"/journal-*
	info "pid reuse: the killed run's journals left as they were"
else
	info "pid reuse: no pid namespaces here (unshare --pid): not tested"
fi

# --- runs measuring at the same time -------------------------------------------
"$IPSECPERF" run --quiet -t 3 -r 2 --tag alone -o "$TMP/alone" clear > "$TMP/alone.out" 2> "$TMP/alone.err" ||
	{ rc=$?; cat "$TMP/alone.err" >&2; fail "a single run exited $rc"; }
grep -q 'was measuring' "$TMP/alone.out" "$TMP/alone.err" && fail "a single run says another run was measuring"
assert_json "$TMP/alone/meta.json" 'd["concurrent_runs"] == []' "a single run: concurrent_runs not empty in meta.json"
assert_jsonl "$TMP/alone/runs.jsonl" 'r["concurrent_runs"] == []' "a single run: concurrent_runs not empty"

"$IPSECPERF" run --quiet -t 3 -r 2 --tag one -o "$TMP/one" clear > "$TMP/one.out" 2> "$TMP/one.err" &
p1=$!
"$IPSECPERF" run --quiet -t 3 -r 2 --tag two -o "$TMP/two" clear > "$TMP/two.out" 2> "$TMP/two.err" &
p2=$!
wait $p1 || { rc=$?; cat "$TMP/one.err" >&2; fail "the first of two runs exited $rc"; }
wait $p2 || { rc=$?; cat "$TMP/two.err" >&2; fail "the second of two runs exited $rc"; }
for pair in "one $p2" "two $p1"; do
	set -- $pair
	grep -q "another ipsecperf run (pid $2) was measuring during clear repeat" "$TMP/$1.err" ||
		{ cat "$TMP/$1.out" "$TMP/$1.err" >&2; fail "run $1 does not say that run $2 was measuring"; }
	python3 - "$TMP/$1" "$2" << 'EOF' || fail "run $1: the other run is not in meta.json and its records (above)"
import sys
from assert_json import document, records
other = int(sys.argv[2])
m = document(sys.argv[1] + "/meta.json")
if not ([c["pid"] for c in m["concurrent_runs"]] == [other]): raise AssertionError(m["concurrent_runs"])
during = m["concurrent_runs"][0]["during"]
recs = records(sys.argv[1] + "/runs.jsonl")
marked = [r["repeat"] for r in recs if other in r["concurrent_runs"]]
if not (marked and marked == [d["repeat"] for d in during]): raise AssertionError((marked, during))
print(f"  run {sys.argv[1].rsplit('/', 1)[1]}: pid {other} measured during repeats {marked}", file=sys.stderr)
EOF
done
ls "$J" | grep -q . && { ls -l "$J" >&2; fail "the runs left files in the journal folder"; }
info "two runs at once: both say so; one alone says nothing"

# --- run --tune --------------------------------------------------------------
cpu="$TMP/cpu"
for c in 0 1; do
	mkdir -p "$cpu/cpu$c/cpufreq" "$cpu/cpu$c/topology"
	echo powersave > "$cpu/cpu$c/cpufreq/scaling_governor"
	echo "performance powersave" > "$cpu/cpu$c/cpufreq/scaling_available_governors"
	echo acpi-cpufreq > "$cpu/cpu$c/cpufreq/scaling_driver"
	echo "$c" > "$cpu/cpu$c/topology/thread_siblings_list"
done
mkdir -p "$cpu/cpufreq"
echo 1 > "$cpu/cpufreq/boost"
echo 0-1 > "$cpu/online"
echo 0-1 > "$cpu/possible"
state() { cat "$cpu"/cpu*/cpufreq/scaling_governor "$cpu/cpufreq/boost" | tr '\n' ' '; }
fake() { # args: ipsecperf's, with the stand-in cpu folder
	unshare -m --propagation private sh -c 'mount --bind "$1" /sys/devices/system/cpu && shift && exec "$@"' \
		sh "$cpu" "$IPSECPERF" "$@"
}
[ "$(state)" = "powersave powersave 1 " ] || fail "the stand-in cpu folder: $(state)"
fake run --dry-run --tune clear > "$TMP/tune-dry.out" 2>&1 || { rc=$?; cat "$TMP/tune-dry.out" >&2; fail "--tune --dry-run exited $rc"; }
grep -qx "echo performance > /sys/devices/system/cpu/cpu1/cpufreq/scaling_governor" "$TMP/tune-dry.out" &&
	grep -qx "echo 0 > /sys/devices/system/cpu/cpufreq/boost" "$TMP/tune-dry.out" ||
	{ cat "$TMP/tune-dry.out" >&2; fail "--tune --dry-run does not print its changes"; }
[ "$(state)" = "powersave powersave 1 " ] || fail "--tune --dry-run changed $(state)"
fake run --quiet --tune --no-probes -t 1 -O 0 -r 1 -o "$TMP/tuned" clear > "$TMP/tune.out" 2> "$TMP/tune.err" ||
	{ rc=$?; cat "$TMP/tune.err" >&2; fail "run --tune exited $rc"; }
[ "$(state)" = "powersave powersave 1 " ] || fail "run --tune did not put them back: $(state)"
assert_json "$TMP/tuned/meta.json" 'sorted((t["path"][24:], t["from"], t["to"]) for t in d["conditions"]["tuned"]) ==
	[("cpu0/cpufreq/scaling_governor", "powersave", "performance"), ("cpu1/cpufreq/scaling_governor", "powersave", "performance"),
	 ("cpufreq/boost", "1", "0")] and
	d["kernels"][0]["setup"]["cpu"]["governor"] == "performance" and d["kernels"][0]["setup"]["cpu"]["boost"] is False' \
	"meta.json does not say what --tune changed, or the set-up is not as tuned"
grep -q 'governor' "$TMP/tune.err" && { cat "$TMP/tune.err" >&2; fail "run --tune still warns about the governor"; }
# without --tune: the governor and boost warned about once each
fake run --quiet --no-probes -t 1 -O 0 -r 1 -o "$TMP/untuned" clear > "$TMP/untuned.out" 2> "$TMP/untuned.err" ||
	{ rc=$?; cat "$TMP/untuned.err" >&2; fail "run exited $rc"; }
[ "$(grep -c 'warning: the CPU frequency governor is powersave' "$TMP/untuned.err")" = 1 ] &&
	[ "$(grep -c 'warning: boost (turbo) is on' "$TMP/untuned.err")" = 1 ] ||
	{ cat "$TMP/untuned.err" >&2; fail "the governor and boost are not warned about once each"; }
# what a killed run left: undone by cleanup; a record naming another file is left
echo performance > "$cpu/cpu0/cpufreq/scaling_governor"
printf '{"kind":"sysfs","path":"/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor","value":"powersave","seq":1}\n{"kind":"sysfs","path":"%s","value":"x","seq":2}\n' \
	"$TMP/victim" > "$J/journal-4242-1.jsonl"
echo untouched > "$TMP/victim"
fake cleanup > "$TMP/tune-clean.out" 2> "$TMP/tune-clean.err"
[ "$(state)" = "powersave powersave 1 " ] || { cat "$TMP/tune-clean.err" >&2; fail "cleanup did not undo a killed --tune: $(state)"; }
[ "$(cat "$TMP/victim")" = untouched ] || fail "cleanup wrote a file a sysfs record named that --tune never writes"
grep -q "a sysfs record that --tune did not write" "$TMP/tune-clean.err" || { cat "$TMP/tune-clean.err" >&2; fail "the refused record is not said"; }
rm -f "$J"/journal-4242-1.jsonl
info "--tune: set for the run and put back, --dry-run prints it, cleanup undoes a killed one and nothing else"
exit 0
