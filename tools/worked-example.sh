#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The committed examples and the docs made from them, with ipsecperf
# itself. Three kinds:
#
#   tools/worked-example.sh netns
#       two netns runs of the default scenarios, minutes apart, into
#       results/examples/<UTC>-netns-sample and -netns-again, each with its
#       report.txt; the README's sample (report --summary of the first, and
#       compare of the two) between its "sample" markers.
#   tools/worked-example.sh peer
#       a peer run between two network namespaces (the tests' fixture,
#       tests/integration/peer_lib.sh: a test sshd, the agent) into
#       results/examples/<UTC>-peer-namespaces with its report.txt; the mail
#       at the end of docs/peer-testbed.md between its "mail" markers.
#   tools/worked-example.sh refill
#       the README's sample, the mail and docs/example.md again from the
#       committed examples they name, without new runs.
#   tools/worked-example.sh flame results/examples/DIR
#       docs/flame/ from a committed profiled run of no-gso and esp-null:
#       the flame graphs of both and their difference (report --profile
#       -f svg), and docs/profiling.md's difference table between its
#       "flame-diff" markers.
#   tools/worked-example.sh results/examples/DIR BASE_KERNEL NEW_KERNEL \
#            [results/examples/PATCHED_DIR BASE_RELEASE PATCHED_RELEASE
#            [results/examples/PERCPU_DIR BASE_RELEASE PERCPU_RELEASE]]
#       docs/example.md and docs/example/ from committed VM runs: the text
#       report, the charts, the HTML page, and a comparison of two of its
#       kernels; with three more arguments a patched kernel against its base
#       (docs/vm-testbed.md's CI recipe), with three more the per-CPU tmp
#       buffer patch (tools/patch-to-verdict.sh).
#
# The netns and peer kinds need root; DURATION (default 2) and REPEAT
# (default: run's) change their runs.
set -eu
cd "$(dirname "$0")/.."
IPSECPERF=${IPSECPERF:-build/ipsecperf}

. tools/fill_lib.sh

# A run of the default scenarios into results/examples/<UTC>-TAG; its path.
sample_run() { # tag [run options...]
	tag=$1
	shift
	d=results/examples/$(date -u +%Y%m%dT%H%M%S)-$tag
	"$IPSECPERF" run -q -t "${DURATION:-2}" ${REPEAT:+-r "$REPEAT"} -o "$d" "$@" > /dev/null || [ $? = 1 ]
	"$IPSECPERF" report "$d" > "$d/report.txt"
	echo "$d"
}

netns_examples() {
	a=$(sample_run netns-sample)
	b=$(sample_run netns-again)
	netns_fill "$a" "$b"
}

# The README's sample from two netns results directories.
netns_fill() { # dir-a dir-b
	a=$1 b=$2
	t=$(mktemp)
	rc=0
	"$IPSECPERF" compare "$a" "$b" > "$t.cmp" || rc=$?
	{
		echo '```'
		echo "\$ ipsecperf report --summary $a"
		"$IPSECPERF" report --summary "$a"
		echo '```'
		echo
		echo 'The same run again a few minutes later, nothing changed in between,'
		echo "and the two compared (exit status $rc). What compare flags here is the"
		echo "host's own drift between the two runs: on a shared 2-CPU machine it"
		echo 'can pass 5%, which is why a gate wants a quiet host and, between'
		echo 'kernels, runs interleaved (docs/compare.md, docs/vm-testbed.md).'
		echo
		echo '```'
		echo "\$ ipsecperf compare $a $b"
		cat "$t.cmp"
		echo '```'
	} > "$t"
	fill README.md sample "$t"
	rm -f "$t" "$t.cmp"
	echo "$a and $b written, README.md's sample filled"
}

peer_examples() {
	exec bash -c '
		set -u
		. tests/integration/lib.sh
		. tests/integration/peer_lib.sh
		peer_setup
		d=results/examples/$(date -u +%Y%m%dT%H%M%S)-peer-namespaces
		ip netns exec "$PEER_NS_L" "$IPSECPERF" run -q "${PEER_ARGS[@]}" --cpu-tx 0 --cpu-rx 1 \
			-t "${DURATION:-2}" ${REPEAT:+-r "$REPEAT"} -o "$d" > /dev/null || [ $? = 1 ] || fail "the peer run failed"
		"$IPSECPERF" report "$d" > "$d/report.txt"
		"$IPSECPERF" report --summary "$d" > "$TMP/summary"
		sh tools/worked-example.sh mail "$d" "$TMP/summary"
	'
}

# The mail of docs/peer-testbed.md, filled from a peer run.
mail_example() { # dir summary-file
	t=$(mktemp)
	{
		echo
		echo '    To: netdev@vger.kernel.org'
		echo '    Subject: [RFC] esp4: what ESP costs one TCP stream (ipsecperf, two hosts)'
		echo
		echo '    <One paragraph: the question, what changed between the runs, and'
		echo '    what the figures say.>'
		echo
		sed 's/^/    /; s/ *$//' "$2"
		echo
		echo "    Records and raw iperf3 output: <a link to $1>"
		echo
	} > "$t"
	fill docs/peer-testbed.md mail "$t"
	rm -f "$t"
	echo "$1 written, docs/peer-testbed.md's mail filled"
}

# The flame graphs of a profiled run of no-gso and esp-null, drawn by ipsecperf.
flame_examples() { # dir
	mkdir -p docs/flame
	for s in no-gso esp-null; do
		"$IPSECPERF" report --profile -f svg --scenario "$s" -o "docs/flame/$s.svg" "$1"
	done
	"$IPSECPERF" report --profile -f svg --base no-gso --scenario esp-null \
		-o docs/flame/esp-null-against-no-gso.svg "$1"
	t=$(mktemp -d)
	{
		echo '```'
		echo "\$ ipsecperf report --profile --base no-gso --top 12 $1"
		"$IPSECPERF" report --profile --base no-gso --top 12 --folded "$t" "$1" |
			sed -n '/^esp-null against no-gso/,/^$/p' | sed '/^$/d'
		echo '```'
	} > "$t/text"
	fill docs/profiling.md flame-diff "$t/text"
	rm -rf "$t"
	echo "docs/flame/ written, docs/profiling.md's flame-diff filled"
}

# The docs' samples again from the committed examples they name, after a
# change to what report or compare prints: the README's sample, the peer
# mail and docs/example.md (its first line names the arguments it was made with).
refill() {
	netns_fill "$(sed -n 's/^\$ ipsecperf report --summary //p' README.md)" \
		"$(sed -n 's/^\$ ipsecperf compare [^ ]* //p' README.md)"
	p=$(sed -n 's/^    Records and raw iperf3 output: <a link to \(.*\)>$/\1/p' docs/peer-testbed.md)
	t=$(mktemp)
	"$IPSECPERF" report --summary "$p" > "$t"
	mail_example "$p" "$t"
	rm -f "$t"
	# shellcheck disable=SC2046 # the arguments, as the page says them
	sh tools/worked-example.sh $(sed -n '3s/^Generated by `tools\/worked-example.sh \(.*\)`$/\1/p' docs/example.md)
}

case ${1:-} in
netns) netns_examples; exit 0 ;;
refill) refill; exit 0 ;;
flame) flame_examples "$2"; exit 0 ;;
peer) peer_examples ;;
mail) mail_example "$2" "$3"; exit 0 ;;
esac
dir=$1 base=$2 new=$3
out=docs/example
charts=$(mktemp -d /tmp/ipsecperf-example.XXXXXX)
trap 'rm -rf "$charts"' EXIT

# The report as it would be mailed, and the compare that gates it.
report_and_gate() { # dir base new compare-options...
	local dir=$1 base=$2 new=$3 rc
	shift 3
	set +e
	"$IPSECPERF" compare --base-kernel "$base" --new-kernel "$new" "$@" "$dir" "$dir" > "$charts/gate.txt"
	rc=$?
	set -e
	cat <<EOF2
## The report, as it would be mailed (\`ipsecperf report $dir\`)

\`\`\`
$("$IPSECPERF" report "$dir")
\`\`\`

## The gate (\`ipsecperf compare --base-kernel $base --new-kernel $new $* $dir $dir\`, exit status $rc)

\`\`\`
$(cat "$charts/gate.txt")
\`\`\`
EOF2
}

# A patched kernel against its base: the recipe's run, the report as it
# would be mailed, and the compare that gates it.
patched_section() { # dir base new
	cat <<EOF2

# A patched kernel against its base

The case ipsecperf is made for: a kernel tree with a patch on top, built by
ipsecperf, measured against the same tree without it. The tree is
Debian's linux-source-6.12 (6.12.117), configured and built by
\`ipsecperf kernel config\` and \`kernel build\` (docs/vm-testbed.md,
"Kernels from source"); the patch,
[tests/integration/kernel-patches/esp4-busywait.patch](../tests/integration/kernel-patches/esp4-busywait.patch),
adds 500 us of busy-wait to every esp_output call: a regression of known
size on one scenario. The run is docs/vm-testbed.md's CI recipe, as
tests/integration/test_kernel_patched.sh runs it:

    BASE_LV= NEW_LV=-esp-slow REPEAT=4 DURATION=2 METRIC=throughput THRESHOLD=20 \\
        sh ci-ipsec-perf.sh linux-source-6.12 linux-6.12-esp-slow clear esp-null

(the base and the patched tree each built in its own \`build/\`; the two
kernels booted in turn, four times each, under TCG). Committed as
[$1](../$1).

EOF2
	report_and_gate "$1" "$2" "$3" --metric throughput --threshold 20
	cat <<EOF2

## Reading it

* The gate names one regression, esp-null's throughput (-87%, p 0.029,
  the smallest p four runs against four can give), and nothing on
  clear, which the patch does not touch (+6%, p 0.89: noise). That is
  what the test asserts, and the same recipe on the base against the
  patch reverted (the same source again, as its own release) exits 0.
* The per-packet counters do not move: esp_output, the transport-mode
  memmove and the esp_output kmalloc run once per ESP packet on both
  kernels (0.997-0.998: the handful of packets in flight at the
  window's edges). The patch costs time on the same path; it adds no
  work the counters could see, which is how a busy-wait differs from,
  say, a second copy of the packet.
* cycles/byte shows the same regression from the CPU's side (+670%,
  flagged - because the gate was throughput only).
* Under TCG the absolute figures say nothing about hardware, and the
  CVs (15-30%) are far above 5%; a patch worth a few percent would need
  KVM, a quiet host and ten or more repeats to show.
EOF2
}

# The study's wish as a patch: esp_output without its kmalloc per packet,
# through tools/patch-to-verdict.sh (docs/benchmarks.md).
percpu_section() { # dir base new
	cat <<EOF2

# The study's wish: esp_output without a kmalloc per packet

The study named a kmalloc and kfree of a "tmp" buffer in every
esp_output among its suspects. The patch
[tests/integration/kernel-patches/esp4-percpu-tmp.patch](../tests/integration/kernel-patches/esp4-percpu-tmp.patch)
takes that buffer (the AEAD request, the IV and the scatterlists) from a
per-CPU buffer instead, with bottom halves off while it is in use, when
the AEAD completes synchronously (null, and the software ciphers); an
asynchronous AEAD allocates as before. It is an experiment in the
study's spirit, measured with the loop a kernel developer runs,
\`tools/patch-to-verdict.sh\` (docs/benchmarks.md), on the same 6.12
tree as above:

    LV=-percpu-tmp tools/patch-to-verdict.sh -o $1 \\
        linux-source-6.12 tests/integration/kernel-patches/esp4-percpu-tmp.patch

(the patched copy built in its own \`build/\`, the two kernels booted in
turn four times each under TCG, \`--probe-set esp\` so that the ESP
programs count). Committed as [$1](../$1).

EOF2
	report_and_gate "$1" "$2" "$3"
	cat <<EOF2

## Reading it

* The counters say what the patch did, exactly: kmalloc_esp_output and
  kfree_esp_output go from one per ESP packet to none (p 0.029, the
  smallest four runs against four can give). esp_output, the
  transport-mode memmoves and the device's skbs stay at one per packet:
  the patch took one allocation and one free out of every packet and
  changed nothing else the probes see.
* Throughput and cycles per byte moved the right way on esp-null, but
  under TCG on a loaded machine (CV 29-75%) four runs cannot tell a
  change of that size from noise (p 0.89), and the gate says "no
  regression": a claim about speed needs KVM, a quiet host and ten or
  more repeats. clear, which the patch does not touch, did not move.
EOF2
}

rm -rf "$out"
mkdir -p "$out"
"$IPSECPERF" report -c "$charts" -f html -o "$out/report.html" "$dir"
cp "$charts"/*.png "$charts"/*.dat "$charts"/*.vars.gp "$charts"/bars.gp "$charts"/replot.sh "$out"/
"$IPSECPERF" report "$dir" > "$out/report.txt"
"$IPSECPERF" report -f csv -o "$out/report.csv" "$dir"
set +e
"$IPSECPERF" compare --base-kernel "$base" --new-kernel "$new" "$dir" "$dir" > "$out/compare.txt"
rc=$?
set -e

{
	cat <<EOF2
# Worked example: two stock kernels on the VM testbed

Generated by \`tools/worked-example.sh $*\`
from the results directory [$dir](../$dir) (a real run, committed).
Everything in the code blocks and charts is the tool's own output; the
prose around it is written by hand.

The header of the report below gives the exact command of the run. It
was made when the ESP programs were in the default probe set; today the
same counters need \`--probe-set esp\` on that command (docs/probes.md,
"Probe sets").

The VM testbed boots each kernel under QEMU; on this development machine
there is no usable KVM, so the guests run under TCG (emulation): the
absolute figures are 20-50 times below a real host's and say nothing about
one. The machine was also shared with other builds and guests, which is
why the CVs are far above 5%: the report warns about every scenario, and
with this noise compare can only call large changes significant. What the
example shows is the tool's output, and two things that survive the
noise: the ratios between scenarios (the study's cliffs: losing GSO, then
ESP) and the per-packet counters, which do not depend on speed.

## The text report (\`ipsecperf report $dir\`)

This is what goes into a mail to netdev: ASCII, 72 columns.

\`\`\`
$(cat "$out/report.txt")
\`\`\`

## Charts (\`ipsecperf report -c DIR $dir\`)

Bars: median; whiskers: min-max; n in the labels; one bar per kernel.
The data files, the gnuplot template and replot.sh are next to the PNGs in
[docs/example/](example/), so they can be redrawn with other settings.

![throughput](example/throughput.png)

![cycles per byte](example/cycles_per_byte.png)

EOF2
	for c in "$out"/counter-*.png; do
		n=$(basename "$c" .png)
		printf '![%s](example/%s.png)\n\n' "${n#counter-}" "$n"
	done
	cat <<EOF2
The same as one self-contained page: [docs/example/report.html](example/report.html)
(\`ipsecperf report -f html\`; the charts inlined as SVG). As CSV:
[docs/example/report.csv](example/report.csv).

## Comparing the two kernels

\`ipsecperf compare --base-kernel $base --new-kernel $new $dir $dir\`
(exit status $rc):

\`\`\`
$(cat "$out/compare.txt")
\`\`\`

## Reading it

* The study's cliffs show in the ratio column although every scenario is
  noisy: on 6.1, no-tso keeps 0.46 of clear's throughput, no-gso 0.27 and
  esp-null 0.024 (under TCG ESP costs far more than on hardware).
* The counters do not depend on speed and are tight (CV about 1%). In
  clear, 0.035 skbs reach the device per TCP segment (TSO: about 29
  segments a packet); in every other scenario one skb per segment. In
  esp-null, esp_output, memmove_transport_output, memmove_transport_input,
  kmalloc_esp_output and kfree_esp_output each run once per ESP packet on
  both kernels: the study's suspects (a memmove in every transport-mode
  output, a kmalloc and kfree of a temporary buffer in every esp_output)
  are there on every packet on 6.1 and still on 6.12. skb_segment and
  tcp_gso_segment are 0 with ESP: no GSO packets are built at all.
* Do not read the compare verdict as a kernel regression. The VM testbed
  ran all of 6.1's runs, then all of 6.12's, on a host shared with other
  jobs: a change of load between the two halves is indistinguishable
  from a change of kernel, and the test cannot know (compare says so in
  its note: it sees from the start times that the kernels ran in
  sequence). The clear-text
  "regression" (-35%, p 0.0003) and the esp-null "improvement" (+221%)
  are of that kind; the per-packet counters, which do not depend on load,
  do not move (kmalloc_esp_output: 0.9998 against 1.0000 per packet,
  significant at p 0.03 and 0.02% in size). A gate needs a quiet host,
  KVM, and runs of the two kernels interleaved.
EOF2
} > docs/example.md
[ $# -ge 6 ] && patched_section "$4" "$5" "$6" >> docs/example.md
[ $# -ge 9 ] && percpu_section "$7" "$8" "$9" >> docs/example.md
echo "docs/example.md and $out/ written; compare exited $rc"
