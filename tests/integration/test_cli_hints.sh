#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# What a first session meets on the command line, each case one line and
# exit 2 where it is bad input, changing nothing:
# - "did you mean" for a mistyped command, option and scenario;
# - -v after the command is taken; an option before the command says
#   where a command's options go;
# - --time is --duration (iperf3's name);
# - a bare run is clear no-tso no-gso esp-null, 5 repeats (help and dry run);
# - a dry run that cannot start (a kernel not cached, a peer not reached)
#   exits 2 and downloads nothing;
# - help run has its option groups and examples, and so does its man page;
# - bisect without -O names TREE/build's .config when there is none;
# - iperf3's and perf's habits: -P/--parallel and -p taken, -R, --bidir,
#   -A, -c and -J refused saying what to use; -vv; --help COMMAND;
# - every man page has EXIT STATUS, EXAMPLES and SEE ALSO naming the tools.
. "$(dirname "$0")/lib.sh"

snapshot > "$TMP/before"
cd "$TMP" # a default results directory would land here

expect_exit2 "command typo" "^ipsecperf: 'rnu' is not a command; did you mean 'run'\?" "$IPSECPERF" rnu
expect_exit2 "help typo" "^ipsecperf: help: no command 'reprot'; did you mean 'report'\?" "$IPSECPERF" help reprot
expect_exit2 "option typo" "^ipsecperf: run: unknown option '--durtion'; did you mean '--duration'\?" \
	"$IPSECPERF" run --durtion 5 clear
expect_exit2 "scenario typo" "^ipsecperf: run: unknown scenario 'esp-nul'; did you mean 'esp-null'\?; known: .*clear" \
	"$IPSECPERF" run esp-nul
expect_exit2 "no near name" "^ipsecperf: 'frobnicate' is not a command; see" "$IPSECPERF" frobnicate
expect_exit2 "option before the command" \
	"^ipsecperf: unknown option '-t' before the command; a command's own options go after it: ipsecperf run -t \(see \`ipsecperf help run\`\)" \
	"$IPSECPERF" -t 5 run clear

# -v after the command, and --time: a dry run's iperf3 command
"$IPSECPERF" run --dry-run -q clear -v --time 3 -r 1 > "$TMP/dry" 2> "$TMP/dry.err" ||
	{ rc=$?; cat "$TMP/dry.err" >&2; fail "run ... -v --time 3: exit $rc"; }
grep -qE ' iperf3 -c [0-9.]+ .*-t 3 ' "$TMP/dry" || { cat "$TMP/dry" >&2; fail "--time 3 is not iperf3's -t 3"; }
"$IPSECPERF" run --dry-run -q --ti 3 -r 1 clear > /dev/null 2>&1 && fail "--ti, a prefix of the alias --time, was taken"

# iperf3's names: the same options taken, the others refused with what to use instead
"$IPSECPERF" run --dry-run -q -P 2 -p 5400 -C reno -r 1 clear > "$TMP/iperf3" 2> "$TMP/iperf3.err" ||
	{ rc=$?; cat "$TMP/iperf3.err" >&2; fail "run -P 2 -p 5400 -C reno: exit $rc"; }
[ "$(grep -cE ' iperf3 -c .* -p 540[01] .*-J -C reno' "$TMP/iperf3")" = 2 ] ||
	{ cat "$TMP/iperf3" >&2; fail "-P 2 -p 5400 -C reno are not two iperf3 flows on ports 5400 and 5401 with -C reno"; }
"$IPSECPERF" run --dry-run -q --parallel 2 -r 1 clear | grep -c ' iperf3 -c ' | grep -qx 2 || fail "--parallel 2 is not two flows"
expect_exit2 "-R" "^ipsecperf: run: -R, --reverse: iperf3's reverse: --direction rx" "$IPSECPERF" run -R clear
expect_exit2 "--bidir" "^ipsecperf: run: --bidir: iperf3's bidirectional test: --direction both" "$IPSECPERF" run --bidir clear
expect_exit2 "-c" "^ipsecperf: run: -c, --client: .*--testbed peer --peer HOST" "$IPSECPERF" run -c 10.0.0.2
expect_exit2 "-A" "^ipsecperf: run: -A, --affinity: .*--cpu-tx N and --cpu-rx N" "$IPSECPERF" run -A 1 clear
expect_exit2 "-J" "^ipsecperf: run: -J, --json: .*runs.jsonl" "$IPSECPERF" run -J clear
"$IPSECPERF" run --list-options | grep -qE '^--(reverse|bidir|client|affinity|json)	' && fail "--list-options lists another tool's names"
# perf's: -vv before or after the command; --help COMMAND
"$IPSECPERF" -vv list > /dev/null 2>&1 && "$IPSECPERF" list -vv > /dev/null 2>&1 || fail "-vv is refused"
"$IPSECPERF" --help compare | cmp -s - <("$IPSECPERF" help compare) || fail "--help compare is not help compare"

# the defaults: every scenario of a bare run, the repeat count on the page
"$IPSECPERF" run --dry-run -q > "$TMP/bare" 2> "$TMP/bare.err" || { rc=$?; cat "$TMP/bare.err" >&2; fail "a bare dry run: exit $rc"; }
[ "$(sed -n 's/^# scenario \([a-z-]*\):.*/\1/p' "$TMP/bare" | tr '\n' ' ')" = "clear no-tso no-gso esp-null " ] ||
	{ grep '^# scenario' "$TMP/bare" >&2; fail "a bare run is not clear no-tso no-gso esp-null"; }
"$IPSECPERF" run --help > "$TMP/help"
grep -q 'runs per scenario (default 5' "$TMP/help" || fail "help run does not say the default repeat count is 5"
grep -q 'default: clear no-tso no-gso esp-null' "$TMP/help" || fail "help run does not name the default scenarios"
grep -q 'runs of each scenario per revision (default 5' <("$IPSECPERF" bisect --help) ||
	fail "bisect's default repeat count is not run's"

# help run: its groups in order, examples that parse, and the man page's sections
[ "$(grep -E "^(options - [a-z0-9 ,']+|exit status|examples):$" "$TMP/help" | tr '\n' '|')" = \
	"options - what runs:|options - how long:|options - testbeds:|options - probes:|options - output:|options - iperf3's options, and what to use instead:|exit status:|examples:|" ] ||
	{ grep -E ':$' "$TMP/help" >&2; fail "help run's option groups and examples are not as they should be"; }
sed -n '/^examples:$/,/^$/p' "$TMP/help" | sed -n 's/^  ipsecperf run \(.*[^\\]\)$/\1/p' | sed 's/ *#.*//' > "$TMP/examples"
[ "$(wc -l < "$TMP/examples")" -ge 2 ] || fail "help run has fewer than two one-line examples"
while read -r args; do
	# shellcheck disable=SC2086
	# 1: it parsed, and every scenario would be skipped on this kernel (esp-null without ESP)
	"$IPSECPERF" run --dry-run -q -r 1 $args > /dev/null 2> "$TMP/ex.err" || [ $? = 1 ] ||
		{ cat "$TMP/ex.err" >&2; fail "help run's example 'ipsecperf run $args' does not parse"; }
done < "$TMP/examples"
man=$(mktemp -d "$TMP/man.XXXXXX")
sh "$TOP/tools/mkman.sh" "$IPSECPERF" "$man" 0 2026-01-01 /usr/share/doc/ipsecperf > /dev/null ||
	fail "tools/mkman.sh failed"
for want in '^\.SH OPTIONS$' '^\.SS WHAT RUNS$' '^\.SS OUTPUT$' '^\.SH EXAMPLES$' '\\fB\\-\\-duration\\fR'; do
	grep -q -- "$want" "$man/ipsecperf-run.1" || fail "ipsecperf-run.1 lacks /$want/"
done
grep -c '^\.SH OPTIONS$' "$man/ipsecperf-run.1" | grep -qx 1 || fail "ipsecperf-run.1 has OPTIONS more than once"
for page in "$man"/*.1; do
	for want in '^\.SH EXIT STATUS$' '^\.SH EXAMPLES$' '^\.SH SEE ALSO$' '^\.BR iperf3 \(1\),$' '^\.BR ip\\-xfrm \(8\),$' '^\.BR perf \(1\),$'; do
		grep -qE -- "$want" "$page" || fail "$(basename "$page") lacks /$want/"
	done
done
grep -qF '.BR ipsecperf\-compare (1),' "$man/ipsecperf-run.1" || fail "ipsecperf-run.1 does not name its siblings"

# a dry run that cannot start: exit 2; a debian: kernel not cached is not fetched
mkdir -p "$TMP/cache" "$TMP/bin"
printf '#!/bin/sh\ntouch %s/apt-get-ran\nexit 1\n' "$TMP" > "$TMP/bin/apt-get"
chmod +x "$TMP/bin/apt-get"
IPSECPERF_CACHE="$TMP/cache" PATH="$TMP/bin:$PATH" "$IPSECPERF" run --dry-run -q --testbed vm \
	--kernel debian:linux-image-9.9.9-none -r 1 clear > "$TMP/vm.out" 2> "$TMP/vm.err"
rc=$?
[ $rc = 2 ] || { cat "$TMP/vm.err" >&2; fail "a dry run with a kernel not cached exited $rc, not 2"; }
grep -q "kernel debian:linux-image-9.9.9-none: not in the cache .*nothing is downloaded here: \`ipsecperf kernel fetch" \
	"$TMP/vm.err" || { cat "$TMP/vm.err" >&2; fail "the dry run does not say the kernel is not cached"; }
grep -q 'run: --dry-run: the run could not start' "$TMP/vm.err" || fail "the dry run does not say it could not start"
[ -e "$TMP/apt-get-ran" ] && fail "a dry run ran apt-get"
[ -z "$(ls -A "$TMP/cache")" ] || fail "a dry run wrote into the kernel cache: $(ls -A "$TMP/cache")"
# kernel show tells what is here, and downloads nothing either
IPSECPERF_CACHE="$TMP/cache" PATH="$TMP/bin:$PATH" "$IPSECPERF" kernel show debian:linux-image-9.9.9-none \
	> "$TMP/show.out" 2> "$TMP/show.err" && fail "kernel show of a kernel not cached exited 0"
grep -q "nothing is downloaded here: \`ipsecperf kernel fetch" "$TMP/show.err" || { cat "$TMP/show.err" >&2; fail "kernel show does not say the kernel is not cached"; }
[ -e "$TMP/apt-get-ran" ] && fail "kernel show ran apt-get"
"$IPSECPERF" run --dry-run -q --testbed peer --peer root@192.0.2.1 --dev lo --peer-dev lo \
	--ssh-option ProxyCommand=false -r 1 clear > "$TMP/peer.out" 2> "$TMP/peer.err"
rc=$?
[ $rc = 2 ] || { cat "$TMP/peer.err" >&2; fail "a dry run whose peer is not reached exited $rc, not 2"; }
grep -q 'run: --dry-run: the run could not start' "$TMP/peer.err" || { cat "$TMP/peer.err" >&2; fail "no 'could not start'"; }

# bisect: a tree with no .config, neither in it nor in its build/
if command -v git > /dev/null; then
	git init -q "$TMP/tree" && git -C "$TMP/tree" -c user.name=t -c user.email=t@localhost commit -q --allow-empty -m one &&
		git -C "$TMP/tree" -c user.name=t -c user.email=t@localhost commit -q --allow-empty -m two ||
		fail "cannot make a git tree"
	expect_exit2 "bisect without .config" \
		"bisect: neither $TMP/tree nor $TMP/tree/build has a .config; .*ipsecperf kernel config -O $TMP/tree/build $TMP/tree" \
		"$IPSECPERF" bisect --good HEAD~1 --bad HEAD "$TMP/tree" esp-null
fi

snapshot > "$TMP/after"
assert_same_snapshot "$TMP/before" "$TMP/after" "after the command line's cases"
exit 0
