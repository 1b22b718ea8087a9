#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build and run profile_sample_cost.c against perf record as `run --profile`
# starts it (-a -g -e cpu-clock -F HZ, events disabled, control FIFOs).
# usage (root): tests/bench/profile_sample_cost.sh [HZ] [BLOCKS] [BLOCK_MS] [CPU]
set -eu
hz=${1:-499} blocks=${2:-60} ms=${3:-1000} cpu=${4:-0}
[ "$(id -u)" = 0 ] || { echo "needs root" >&2; exit 4; }
tmp=$(mktemp -d /tmp/ipsecperf-bench.XXXXXX)
perf_pid=
cleanup() {
	set +e # a wait on the perf we stopped returns non-zero: finish the cleanup anyway
	[ -n "$perf_pid" ] && kill -INT "$perf_pid" 2> /dev/null && wait "$perf_pid" 2> /dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
cc -O2 -o "$tmp/cost" "$(dirname "$0")/profile_sample_cost.c"
mkfifo "$tmp/ctl" "$tmp/ack"
exec 3<> "$tmp/ctl" 4<> "$tmp/ack"
perf record -a -g -e cpu-clock -F "$hz" -D -1 --control "fifo:$tmp/ctl,$tmp/ack" -B -N \
	-o "$tmp/perf.data" > "$tmp/perf.log" 2>&1 &
perf_pid=$!
printf '%s Hz: ' "$hz"
taskset -c "$cpu" "$tmp/cost" "$tmp/ctl" "$tmp/ack" "$perf_pid" "$blocks" "$ms" || { cat "$tmp/perf.log" >&2; exit 1; }
