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
