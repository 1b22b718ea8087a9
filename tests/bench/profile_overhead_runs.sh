#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The throughput ratio of whole runs with and without --profile: N rounds,
# each one `ipsecperf run` of clear and no-gso without --profile and one
# with, in alternating order, then the ratio of the medians and the median
# of the per-round ratios. docs/profiling.md, "Overhead", has the figures.
#
# usage (root): [IPSECPERF=build/ipsecperf] [HZ=rate] [SCENARIOS="clear no-gso"] \
#                 tests/bench/profile_overhead_runs.sh [N] [SECONDS] [OUTDIR]
set -eu
n=${1:-20} secs=${2:-5} out=${3:-$(mktemp -d /tmp/ipsecperf-overhead.XXXXXX)}
top=$(cd "$(dirname "$0")/../.." && pwd)
ipsecperf=${IPSECPERF:-$top/build/ipsecperf}
[ "$(id -u)" = 0 ] || { echo "needs root" >&2; exit 4; }
mkdir -p "$out"
for ((i = 1; i <= n; i++)); do
	if ((i % 2)); then order="off on"; else order="on off"; fi
	for mode in $order; do
		extra=()
		[ "$mode" = on ] && extra=(--profile ${HZ:+--profile-hz "$HZ"}) # unset: the default rate
		# shellcheck disable=SC2086 # a list of scenario names
		"$ipsecperf" run -q -t "$secs" -r 1 "${extra[@]}" -o "$out/$mode-$i" ${SCENARIOS:-clear no-gso} \
			> "$out/$mode-$i.log" 2>&1 || true
	done
done
python3 - "$out" "$(dirname "$0")" <<'EOF'
import glob, json, os, statistics, sys
sys.path.insert(0, sys.argv[2])
from median_ci import median_ci
data = {}
for d in glob.glob(os.path.join(sys.argv[1], "*-*/")):
    mode, i = os.path.basename(d.rstrip("/")).split("-")
    for line in open(os.path.join(d, "runs.jsonl")):
        r = json.loads(line)
        if r["status"] == "ok":
            data.setdefault(r["scenario"], {}).setdefault(int(i), {})[mode] = r["throughput_bps"] / 1e9
for sc, rounds in sorted(data.items()):
    pairs = [(v["on"], v["off"]) for v in rounds.values() if "on" in v and "off" in v]
    on = [a for a, _ in pairs]
    off = [b for _, b in pairs]
    med, ci = median_ci([a / b for a, b in pairs])
    print("%-7s n=%d  off median %.3f (%.3f-%.3f)  on median %.3f (%.3f-%.3f)  "
          "ratio of medians %.3f  median of round ratios %.3f, interval %s" %
          (sc, len(pairs), statistics.median(off), min(off), max(off), statistics.median(on),
           min(on), max(on), statistics.median(on) / statistics.median(off), med, ci))
print("results in", sys.argv[1])
EOF
