#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Does the built-in stream measure what iperf3 measures? clear (iperf3) and
# clear-stream (the built-in stream), same offloads, same CPUs, in
# alternating order (ABBA) so that drift in the host's load falls on both;
# prints each pair, the medians' ratio and the median of the paired ratios. docs/load.md has the figures.
#
#   sudo tests/bench/stream-vs-iperf3.sh [ROUNDS] [SECONDS]   (default 6, 5)
set -eu
rounds=${1:-6} secs=${2:-5}
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${IPSECPERF:-$top/build/ipsecperf}
out=$(mktemp -d /tmp/ipsecperf-bench.XXXXXX)
for i in $(seq "$rounds"); do
	if [ $((i % 2)) = 1 ]; then order="clear clear-stream"; else order="clear-stream clear"; fi
	"$bin" run --quiet --duration "$secs" --omit 1 --repeat 1 -o "$out/r$i" $order > /dev/null
done
python3 - "$out" "$rounds" "$(dirname "$0")" << 'PY'
import json, statistics, sys
sys.path.insert(0, sys.argv[3])
from median_ci import median_ci
out, rounds = sys.argv[1], int(sys.argv[2])
tp = {"clear": [], "clear-stream": []}
print("round  iperf3 Gbit/s  stream Gbit/s  stream/iperf3")
for i in range(1, rounds + 1):
    recs = {r["scenario"]: r for r in map(json.loads, open(f"{out}/r{i}/runs.jsonl"))}
    a, b = recs["clear"]["throughput_bps"], recs["clear-stream"]["throughput_bps"]
    tp["clear"].append(a); tp["clear-stream"].append(b)
    print(f"{i:5}  {a/1e9:13.3f}  {b/1e9:13.3f}  {b/a:13.3f}")
ma, mb = statistics.median(tp["clear"]), statistics.median(tp["clear-stream"])
ratios = sorted(b / a for a, b in zip(tp["clear"], tp["clear-stream"]))
print(f"median {ma/1e9:12.3f}  {mb/1e9:13.3f}  {mb/ma:13.3f}")
# the pairs ran back to back: the median of their ratios cancels slow drift
# with a distribution-free ~95% interval (median_ci.py)
med, ci = median_ci(ratios)
print(f"median of the paired ratios {med:.3f}, interval {ci} "
      f"(min-max {ratios[0]:.3f}-{ratios[-1]:.3f}, n {len(ratios)})")
print(f"min-max iperf3 {min(tp['clear'])/1e9:.3f}-{max(tp['clear'])/1e9:.3f}, "
      f"stream {min(tp['clear-stream'])/1e9:.3f}-{max(tp['clear-stream'])/1e9:.3f}")
print(f"results: {out}")
PY
