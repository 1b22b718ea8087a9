#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The cost of --profile's sampling, measured within one long iperf3 stream:
# perf record runs as `run --profile` starts it (-a -g -e cpu-clock -F HZ,
# events disabled) and is switched on and off every BLOCK seconds through
# its control FIFO; the stream's per-second throughput is then compared
# between on and off blocks. Adjacent seconds share the host's load, so on
# a shared, noisy host this resolves a few percent where whole runs cannot.
# docs/profiling.md, "Overhead", has the figures and how to read them.
#
# usage (root): tests/bench/profile_overhead_toggle.sh [clear|no-gso] [HZ] [SECONDS] [BLOCK]
set -eu
mode=${1:-clear} hz=${2:-499} secs=${3:-120} block=${4:-2}
[ "$(id -u)" = 0 ] || { echo "needs root" >&2; exit 4; }
ns=ippbench-$$
tmp=$(mktemp -d /tmp/ipsecperf-bench.XXXXXX)
perf_pid= srv_pid=
cleanup() {
	# no errexit here: a wait on a process we stopped returns non-zero, and
	# under set -e that ended the trap before the namespaces were deleted
	set +e
	[ -n "$perf_pid" ] && kill -INT "$perf_pid" 2> /dev/null && wait "$perf_pid" 2> /dev/null
	[ -n "$srv_pid" ] && kill "$srv_pid" 2> /dev/null && wait "$srv_pid" 2> /dev/null
	ip netns del "$ns-tx" 2> /dev/null || true
	ip netns del "$ns-rx" 2> /dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

ip netns add "$ns-tx"
ip netns add "$ns-rx"
ip link add ippb-tx netns "$ns-tx" type veth peer name ippb-rx netns "$ns-rx"
ip -n "$ns-tx" addr add 198.18.0.1/24 dev ippb-tx
ip -n "$ns-rx" addr add 198.18.0.2/24 dev ippb-rx
ip -n "$ns-tx" link set ippb-tx up
ip -n "$ns-rx" link set ippb-rx up
if [ "$mode" = no-gso ]; then
	ip netns exec "$ns-tx" ethtool -K ippb-tx tso off gso off > /dev/null
	ip netns exec "$ns-rx" ethtool -K ippb-rx tso off gso off > /dev/null
fi
ip netns exec "$ns-rx" taskset -c 1 iperf3 -s -1 > /dev/null &
srv_pid=$!
mkfifo "$tmp/ctl" "$tmp/ack"
exec 3<> "$tmp/ctl" 4<> "$tmp/ack"
perf record -a -g -e cpu-clock -F "$hz" -D -1 --control "fifo:$tmp/ctl,$tmp/ack" -B -N \
	-o "$tmp/perf.data" > "$tmp/perf.log" 2>&1 &
perf_pid=$!
echo ping >&3
read -r -t 30 ack <&4
sleep 1
ip netns exec "$ns-tx" taskset -c 0 iperf3 -c 198.18.0.2 -t "$secs" -i 1 -J > "$tmp/client.json" &
cli_pid=$!
# iperf3's intervals start when the test does; toggle on the same clock, half a second in
sleep 0.5
state=off on=""
for ((t = 0; t < secs; t += block)); do
	if [ "$state" = off ]; then state=on; echo enable >&3; else state=off; echo disable >&3; fi
	read -r -t 10 ack <&4
	for ((k = t; k < t + block; k++)); do on="$on $([ $state = on ] && echo 1 || echo 0)"; done
	sleep "$block"
done
wait $cli_pid
python3 - "$tmp/client.json" "$on" "$block" "$mode" "$hz" <<'EOF'
import json, statistics, sys
j = json.load(open(sys.argv[1]))
flags = [int(x) for x in sys.argv[2].split()]
block = int(sys.argv[3])
iv = [i["sum"]["bits_per_second"] / 1e9 for i in j["intervals"]]
# drop each block's first second: the toggle and iperf3's interval edges are not aligned exactly
pairs = []
for b in range(0, min(len(iv), len(flags)) - 2 * block + 1, 2 * block):
    a = iv[b + 1:b + block]
    c = iv[b + block + 1:b + 2 * block]
    if flags[b] == 1:
        pairs.append((statistics.mean(a), statistics.mean(c)))
    else:
        pairs.append((statistics.mean(c), statistics.mean(a)))
r = sorted(on / off for on, off in pairs)
n = len(r)
med = statistics.median(r)
mean = statistics.mean(r)
sd = statistics.stdev(r) if n > 1 else 0
print("%s %d Hz: %d block pairs of %d s; throughput on/off: median %.3f, mean %.3f +- %.3f (95%% CI), "
      "off median %.2f Gbit/s" % (sys.argv[4], int(sys.argv[5]), n, block, med, mean,
                                  2.0 * sd / n ** 0.5 if n > 1 else 0, statistics.median(o for _, o in pairs)))
EOF
