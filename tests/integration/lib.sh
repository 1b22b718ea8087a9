# SPDX-License-Identifier: GPL-2.0
# Shared functions for the integration tests: sourced, never run.
# A test exits 0 (pass), 1 (fail) or 4 (skip), as kernel selftests do.

set -u
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
IPSECPERF="$TOP/build/ipsecperf"
KSFT_SKIP=4
TMP=$(mktemp -d /tmp/ipsecperf-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
# A TERM (run-all.sh stopping its tests) or Ctrl-C ends the test through
# its EXIT trap: without a trap of its own, bash may die of the signal
# without running it.
trap 'exit 130' INT
trap 'exit 143' TERM
# Debian's python3 (make deps installs it), not a version manager's shim
# that PATH may find first: a pyenv shim costs one to two seconds a call,
# and the tests call python3 some hundreds of times.
if [ -x /usr/bin/python3 ] && [ "$(command -v python3)" != /usr/bin/python3 ]; then
	mkdir -p "$TMP/bin" && ln -s /usr/bin/python3 "$TMP/bin/python3" && PATH="$TMP/bin:$PATH"
fi

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit $KSFT_SKIP; }
# A skip for what the project itself provides (a package of the Makefile's
# DEB_PKGS, a kernel its own fetch gets): under `make test`, which ran
# `make deps` first and says so (IPSECPERF_TEST_DEPS=1), it is a failure.
skip_ours() {
	[ -n "${IPSECPERF_TEST_DEPS:-}" ] && fail "$* (make test installed what this test needs: a failure, not a skip)"
	skip "$*"
}
info() { echo "  $*" >&2; }

[ "$(id -u)" = 0 ] || skip "needs root"

# run-all.sh runs two tests at once, each with its own
# $IPSECPERF_TEST_LANE in its environment, inherited by all it starts. The
# lane of a process is the one in its environment or in its nearest
# ancestor's (an ssh session's shell has none, its sshd has); empty when
# none has one or the process is gone.
lane_of() { # pid
	local p=$1 l
	while [ -n "$p" ] && [ "$p" -gt 1 ]; do
		l=$(tr '\0' '\n' 2> /dev/null < "/proc/$p/environ" | sed -n 's/^IPSECPERF_TEST_LANE=//p' | head -1)
		[ -n "$l" ] && { echo "$l"; return; }
		p=$(ps -o ppid= -p "$p" 2> /dev/null | tr -d ' ')
	done
}

# Whether what PID made is out of this test's sight: PID belongs to the
# test running beside this one, or PID is gone and so is what it made
# (PATH: its namespace or journal, made and removed while we looked), or
# PID is gone and its journal is in another test's folder.
# Never when no test runs beside this one.
not_ours() { # pid [path]
	[ -n "${IPSECPERF_TEST_LANE:-}" ] || return 1
	local l
	l=$(lane_of "$1")
	[ -n "$l" ] && [ "$l" != "$IPSECPERF_TEST_LANE" ] && return 0
	# on its way out (no command line: its lane can no longer be read, its
	# parent may be init by now): what it made is seen once it is gone
	[ -e "/proc/$1" ] && [ -z "$(head -c 8 "/proc/$1/cmdline" 2> /dev/null | tr -d '\0')" ] && return 0
	[ -e "/proc/$1" ] && return 1
	[ -n "${2:-}" ] || return 0
	# gone: a run the test beside this one killed on purpose, whose journal
	# (in that test's own folder) its cleanup undoes, is that test's to
	# check. The journal first: cleanup removes it only after it has
	# undone what the run made, so then PATH is gone too.
	local j
	for j in /tmp/ipsecperf-test.*/journal/journal-"$1"-*; do
		[ -e "$j" ] && [ "${j#"$TMP"/}" = "$j" ] && return 0
	done
	[ -e "$2" ] && return 1
	return 0
}

# What a run must leave as it found it: namespaces, the host's links,
# and the processes a run starts; what the test beside it has (not_ours)
# is left out.
snapshot() {
	local jdir=${IPSECPERF_JOURNAL_DIR:-/run/ipsecperf} line name pid
	echo "## netns"
	ip netns list | while read -r line; do
		name=${line%% *}
		# a run's (ipsecperf-PID-START-ROLE), or one a test made by hand,
		# named after the test's shell (NAME-PID, test_restore's)
		pid=$(echo "$name" | sed -nE 's/^ipsecperf-(peertest-)?([0-9]+)-.*/\2/p; t; s/^[a-z][a-z0-9-]*-([0-9]+)$/\1/p')
		[ -n "$pid" ] && not_ours "$pid" "/run/netns/$name" && continue
		echo "$line"
	done | sort
	echo "## links"; ip -o link show | sed 's/^[0-9]*: //' | cut -d' ' -f1-3 | sort
	echo "## processes"
	ps -eo pid=,comm= | while read -r pid name; do
		[[ "$name" =~ ^(iperf3|ipsecperf|qemu-system) ]] || continue
		# on its way out (its memory gone, so no command line): not left
		# behind, and its lane can no longer be read (an orphan's parent is init)
		[ -n "$(head -c 8 "/proc/$pid/cmdline" 2> /dev/null | tr -d '\0')" ] || continue
		not_ours "$pid" && continue
		echo "$name"
	done | sort
	echo "## journals"
	ls "$jdir" 2> /dev/null | grep journal- | while read -r name; do
		pid=$(echo "$name" | sed -nE 's/^journal-([0-9]+)-.*/\1/p')
		[ -n "$pid" ] && not_ours "$pid" "$jdir/$name" && continue
		echo "$name"
	done
}

assert_same_snapshot() { # before-file after-file what
	if ! diff -u "$1" "$2" >&2; then
		fail "$3: the host is not as it was (diff above)"
	fi
}

# Wait until a run's namespaces exist (so a signal lands mid-run).
wait_for_netns() { # pid timeout_s
	for _ in $(seq $(($2 * 10))); do
		ip netns list | grep -q "ipsecperf-$1-" && return 0
		sleep 0.1
	done
	return 1
}

# The name of run PID's namespace for ROLE (tx, rx, pair):
# ipsecperf-PID-START-ROLE, START the run's start time; empty when there is none.
run_netns() { # pid role
	ip netns list | awk '{print $1}' | grep -E "^ipsecperf-$1-[0-9]+-$2\$" | head -1
}

# A 2 s clear run of an installed program PROG into OUT, from /, so that
# only the installed data can serve it: exit 0, status ok, no namespace of
# its own left (others' runs may share the host, so only its pid's count),
# and meta.json names SCENARIOS/clear.ini as the file it ran.
installed_clear_run() { # prog out scenarios-folder what
	local pid rc
	(cd / && exec "$1" run --quiet --duration 2 --omit 1 --repeat 1 -o "$2" clear) \
		> "$TMP/run.out" 2> "$TMP/run.err" &
	pid=$!
	wait $pid || { rc=$?; cat "$TMP/run.err" >&2; fail "$4: run clear exited $rc"; }
	ip netns list | grep -q "^ipsecperf-$pid-" && fail "$4: the run left its namespaces"
	assert_records "$2/runs.jsonl" '[r["status"] for r in rs] == ["ok"]' "$4: the clear run was not ok"
	assert_json --arg dir "$3" "$2/meta.json" 'd["scenarios"][0]["file"] == dir + "/clear.ini"' \
		"$4: the run did not read $3/clear.ini"
}
. "$(dirname "${BASH_SOURCE[0]}")/expect_lib.sh"
. "$(dirname "${BASH_SOURCE[0]}")/assert_lib.sh"
