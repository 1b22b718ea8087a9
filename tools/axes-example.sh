#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The study's shape again, with the axes beyond one stream at MTU 1500,
# made by ipsecperf itself on two kernels under the VM testbeds:
#
#   tools/axes-example.sh KERNEL1 KERNEL2
#   tools/axes-example.sh fill STAMP    the tables again from the runs
#                                       results/examples/STAMP-* made before
#
#   - esp-null with 1, 2 and 4 flows on the vm testbed (two vCPUs a
#     flow) and on vm-pair (each kernel at both ends, a vCPU a flow) into
#     results/examples/<UTC>-vm-flows1, -flows2, -flows4, -vm-pair-flows1 ...;
#   - clear and esp-null at MTU 1500 and 9000 on the vm testbed and on
#     vm-pair (each kernel at both ends) into -vm-mtu and -vm-pair-mtu;
#   - each with its report.txt, and docs/axes.md's tables between its
#     "flows", "mtu" and "receive" markers, from `report -f csv`.
#
# The receive path's counters and the sender's come from each ESP
# scenario's counting repeat (docs/probes.md). Needs root; DURATION
# (default 2) and REPEAT (default 3) change the runs.
set -eu
cd "$(dirname "$0")/.."
IPSECPERF=${IPSECPERF:-build/ipsecperf}
. tools/fill_lib.sh
[ $# = 2 ] || { echo "usage: tools/axes-example.sh KERNEL1 KERNEL2" >&2; exit 2; }
stamp=$(date -u +%Y%m%dT%H%M) fill=
if [ "$1" = fill ]; then
	stamp=$2 fill=1
	[ -d "results/examples/$stamp-vm-mtu" ] || { echo "axes-example: no results/examples/$stamp-vm-mtu" >&2; exit 2; }
fi
T=$(mktemp -d /tmp/ipsecperf-axes.XXXXXX)
trap 'rm -rf "$T"' EXIT

# One run into results/examples/<stamp>-TAG, its report beside it; its
# path. `fill STAMP`: the runs of that stamp, made before, not run again.
axes_run() { # tag run-options...
	d=results/examples/$stamp-$1
	shift
	if [ -z "$fill" ]; then
		"$IPSECPERF" run -q -t "${DURATION:-2}" -r "${REPEAT:-3}" -o "$d" "$@" > /dev/null || [ $? = 1 ]
		"$IPSECPERF" report "$d" > "$d/report.txt"
	fi
	echo "$d"
}

# From `report -f csv` of DIR: "kernel scenario metric median min max"
# for the metrics named, as whitespace-separated fields.
metrics() { # dir metric...
	dir=$1
	shift
	"$IPSECPERF" report -f csv "$dir" | awk -F, -v want="$*" '
		BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) keep[w[i]] = 1 }
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }  # by name: the columns grow
		($(col["metric"]) in keep) { md = $(col["median"]); lo = $(col["min"]); hi = $(col["max"])
			print $(col["kernel"]), $(col["scenario"]), $(col["metric"]), (md == "" ? "-" : md), (lo == "" ? "-" : lo), (hi == "" ? "-" : hi) }'
}

# A markdown table of median (min-max) per row key and metric column.
table() { # file-of-"key metric median min max" first-header metric...
	f=$1 head=$2
	shift 2
	awk -v cols="$*" -v head="$head" '
		function fmt(v) { return v == "-" ? "-" : sprintf(v >= 10 ? "%.1f" : v >= 1 ? "%.3f" : "%.4f", v) }
		BEGIN { n = split(cols, c, " ") }
		{ key = $1; if (!(key in seen)) { seen[key] = 1; order[++k] = key }
		  v[key, $2] = $3 == "-" ? "-" : fmt($3) ($4 == "-" ? "" : " (" fmt($4) "-" fmt($5) ")") }
		END {
			printf "| %s |", head; for (i = 1; i <= n; i++) printf " %s |", c[i]; print ""
			printf "|---|"; for (i = 1; i <= n; i++) printf "--:|"; print ""
			for (j = 1; j <= k; j++) {
				printf "| %s |", order[j]
				for (i = 1; i <= n; i++) printf " %s |", ((order[j], c[i]) in v) ? v[order[j], c[i]] : "-"
				print ""
			}
		}' "$f"
}


TPUT="throughput cycles_per_byte"
SEND="esp_output kmalloc_esp_output memmove_transport_output"
RECV="esp_input xfrm_input esp_gro_receive kmalloc_esp_input memmove_transport_input"

# esp-null with 1, 2 and 4 flows, on vm and on vm-pair
: > "$T/flows"
for tb in vm vm-pair; do
	for n in 1 2 4; do
		d=$(axes_run "$tb-flows$n" --testbed "$tb" --kernel "$1" --kernel "$2" --flows "$n" esp-null)
		metrics "$d" $TPUT | awk -v tb="$tb" -v n="$n" '{ print tb "," $1 "," n, $3, $4, $5, $6 }' >> "$T/flows"
		echo "$tb, flows $n: $d" >&2
	done
done
sort -s -t, -k1,2 "$T/flows" > "$T/flows.s"
{
	echo "testbed, kernel, flows; throughput in Gbit/s, median (min-max) of ${REPEAT:-3} runs"
	echo
	table "$T/flows.s" "testbed, kernel, flows" $TPUT
} > "$T/flows.md"

# clear and esp-null at MTU 1500 and 9000, vm and vm-pair
vm=$(axes_run vm-mtu --testbed vm --kernel "$1" --kernel "$2" clear clear-mtu9000 esp-null esp-null-mtu9000)
pair=$(axes_run vm-pair-mtu --testbed vm-pair --kernel "$1" --kernel "$2" clear clear-mtu9000 esp-null esp-null-mtu9000)
echo "mtu: $vm $pair" >&2
for tb in vm pair; do
	eval d=\$$tb
	metrics "$d" $TPUT | awk -v tb="$([ $tb = pair ] && echo vm-pair || echo vm)" '{ print tb "," $1 "," $2, $3, $4, $5, $6 }'
done > "$T/mtu"
{
	echo "testbed, kernel, scenario; throughput in Gbit/s, median (min-max) of ${REPEAT:-3} runs"
	echo
	table "$T/mtu" "testbed, kernel, scenario" $TPUT
} > "$T/mtu.md"

# the counters per ESP packet of the counting repeats, both paths: on the
# vm testbed one kernel holds both ends (on vm-pair the receiver's are in
# the records' counters_receiver, over the window only)
metrics "$vm" $SEND $RECV | awk '$2 ~ /^esp-null/ { print $1 "," $2, $3, $4, $5, $6 }' > "$T/recv"
{
	echo "vm testbed, per ESP packet over the counting repeat's whole load"
	echo
	table "$T/recv" "kernel, scenario" $SEND $RECV
} > "$T/recv.md"

fill docs/axes.md flows "$T/flows.md"
fill docs/axes.md mtu "$T/mtu.md"
fill docs/axes.md receive "$T/recv.md"
echo "docs/axes.md filled from results/examples/$stamp-*" >&2
