# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the integration tests: sourced, never run.
# A test exits 0 (pass), 1 (fail) or 4 (skip), as kernel selftests do.

set -u
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
IPSECPERF="$TOP/build/ipsecperf"
KSFT_SKIP=4
TMP=$(mktemp -d /tmp/ipsecperf-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit $KSFT_SKIP; }
info() { echo "  $*" >&2; }

[ "$(id -u)" = 0 ] || skip "needs root"

# What a run must leave as it found it: namespaces, the host's links,
# and the processes a run starts.
snapshot() {
	{
		echo "## netns"; ip netns list | sort
		echo "## links"; ip -o link show | sed 's/^[0-9]*: //' | cut -d' ' -f1-3 | sort
		echo "## processes"; ps -eo comm= | grep -E '^(iperf3|ipsecperf|qemu-system)' | sort
		echo "## journals"; ls "${IPSECPERF_JOURNAL_DIR:-/run/ipsecperf}" 2>/dev/null | grep journal- || true
	}
}

assert_same_snapshot() { # before-file after-file what
	if ! diff -u "$1" "$2" >&2; then
		fail "$3: the host is not as it was (diff above)"
	fi
}

# The value of a JSON path in each line of runs.jsonl, with python's json
# module (a well-kept parser; the tests never grep JSON).
jq_lines() { # file expr
	python3 -c '
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    print(eval(sys.argv[2], {}, {"r": r}))' "$1" "$2"
}

# Wait until a run's namespaces exist (so a signal lands mid-run).
wait_for_netns() { # pid timeout_s
	for _ in $(seq $(($2 * 10))); do
		ip netns list | grep -q "ipsecperf-$1-" && return 0
		sleep 0.1
	done
	return 1
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
	[ "$(jq_lines "$2/runs.jsonl" 'r["status"]')" = ok ] || fail "$4: the clear run was not ok"
	python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
assert m["scenarios"][0]["file"] == sys.argv[2] + "/clear.ini", m["scenarios"][0]["file"]
' "$2/meta.json" "$3" || fail "$4: the run did not read $3/clear.ini"
}
. "$(dirname "${BASH_SOURCE[0]}")/expect_lib.sh"
