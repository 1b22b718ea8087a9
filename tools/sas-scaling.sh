#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Flows and SA pairs on the vm testbed: esp-null with --flows 1, 2, 4 and
# --sas 1, 2, 4 (never more pairs than flows), one guest boot each, then a
# table of the throughput per flow and in total (median of the repeats)
# and each SA pair's share, as docs/measurements.md shows it.
#   tools/sas-scaling.sh KERNEL [VCPUS [DURATION [REPEATS]]]
# KERNEL as `ipsecperf run --kernel` takes it (debian:linux-image-...);
# VCPUS default: this host's CPUs. Results under results/sas-scaling-*/.
set -eu
kernel=${1:?usage: tools/sas-scaling.sh KERNEL [VCPUS [DURATION [REPEATS]]]}
vcpus=${2:-$(nproc)}
dur=${3:-5}
rep=${4:-3}
top=$(cd "$(dirname "$0")/.." && pwd)
prog=${IPSECPERF:-$top/build/ipsecperf}
base=${SAS_SCALING_DIR:-$top/results}/sas-scaling-$(date -u +%Y%m%dT%H%M%S)
mkdir -p "$base"
for f in 1 2 4; do
	for s in 1 2 4; do
		[ "$s" -le "$f" ] || continue
		"$prog" run --testbed vm --kernel "$kernel" --vcpus "$vcpus" --duration "$dur" --omit 1 \
			--repeat "$rep" --count-repeats 0 --flows "$f" --sas "$s" --quiet \
			-o "$base/f$f-s$s" esp-null > "$base/f$f-s$s.out" 2>&1 ||
			{ cat "$base/f$f-s$s.out" >&2; exit 1; }
	done
done
python3 - "$base" "$vcpus" << 'PY'
import json, statistics, sys, os
base, vcpus = sys.argv[1], sys.argv[2]
print(f"esp-null, vm testbed, {vcpus} vCPUs; Mbit/s, median of the repeats (min-max)")
print(f"{'flows':>5} {'SAs':>3} {'total':>18} {'per flow':>9} {'per SA pair':>24}")
for f in (1, 2, 4):
    for s in (1, 2, 4):
        d = f"{base}/f{f}-s{s}"
        if not os.path.isdir(d):
            continue
        rs = [json.loads(l) for l in open(f"{d}/runs.jsonl")]
        rs = [r for r in rs if r["status"] == "ok" and r.get("purpose") != "count"]
        tot = [r["throughput_bps"] / 1e6 for r in rs]
        pairs = ""
        if s > 1:
            per = [statistics.median(r["sa_pair"][j]["throughput_bps"] / 1e6 for r in rs) for j in range(s)]
            pairs = " / ".join(f"{v:.2f}" for v in per)
        m = statistics.median(tot)
        print(f"{f:>5} {s:>3} {m:>7.2f} ({min(tot):.2f}-{max(tot):.2f}) {m / f:>9.2f} {pairs:>24}")
PY
