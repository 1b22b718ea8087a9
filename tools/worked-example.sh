#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The committed examples and the docs made from them, with ipsecperf
# itself. Three kinds:
#
#   tools/worked-example.sh readme [KERNEL-TREE]
#       the README's sample between its "sample" markers: compare of two
#       VM runs of one kernel (Debian's 6.1, under the virtual clock where
#       there is one: nothing changed, the gate passes); compare of a
#       kernel tree (default: the tests', make kernel-tree) against itself
#       with esp4-busywait.patch, by tools/patch-to-verdict.sh (the gate
#       catches it). Each into results/examples/<UTC>-TAG.
#   tools/worked-example.sh peer
#       a peer run between two network namespaces (the tests' fixture,
#       tests/integration/peer_lib.sh: a test sshd, the agent) into
#       results/examples/<UTC>-peer-namespaces with its report.txt; the mail
#       at the end of docs/peer-testbed.md between its "mail" markers.
#   tools/worked-example.sh readme-fill SAME-1 SAME-2 PATCHED-DIR
#       the README's sample from such runs made before.
#   tools/worked-example.sh refill
#       the README's sample, the mail and docs/example.md again from the
#       committed examples they name, without new runs.
#   tools/worked-example.sh flame results/examples/DIR
#       docs/flame/ from a committed profiled run of no-gso and esp-null:
#       the flame graphs of both and their difference (report --profile
#       -f svg), and docs/profiling.md's difference table between its
#       "flame-diff" markers.
#   tools/worked-example.sh results/examples/DIR BASE_KERNEL NEW_KERNEL \
#            [results/examples/PERCPU_DIR BASE_RELEASE PERCPU_RELEASE]
#       docs/example.md and docs/example/ from committed VM runs: the text
#       report, the charts, the HTML page, and a comparison of two of its
#       kernels; with three more arguments the per-CPU tmp buffer patch
#       against its base (tools/patch-to-verdict.sh).
#   tools/worked-example.sh all [KERNEL-TREE]
#       every committed example made again by this ipsecperf (run it from
#       a clean commit: the reports' reproduce line names it): the readme
#       and peer kinds, the two Debian kernels side by side, the per-CPU
#       tmp buffer patch, the flame graphs' profiled run; then all-fill.
#   tools/worked-example.sh all-fill
#       the docs and tests that name an example name the newest of its tag
#       instead, every doc made from them is filled again, and the
#       README's older sample (two netns runs) is removed.
#
# The readme, peer and all kinds need root; DURATION (default 2) and
# REPEAT (default 5) change their runs.
set -eu
cd "$(dirname "$0")/.."
IPSECPERF=${IPSECPERF:-build/ipsecperf}

. tools/fill_lib.sh

# A VM run into results/examples/<UTC>-TAG; its path. Under the virtual
# clock where this ipsecperf has it (instructions, not the host's load,
# time the guest: two runs of one kernel agree), else as the host runs it.
vm_run() { # tag run-options... [-- scenario...] (default: clear esp-null)
	tag=$1
	shift
	d=results/examples/$(date -u +%Y%m%dT%H%M%S)-$tag
	case " $* " in *" -- "*) ;; *) set -- "$@" -- clear esp-null ;; esac
	clock=
	"$IPSECPERF" run --help | grep -q -- '--clock' && clock="--clock virtual"
	# shellcheck disable=SC2086 # the options, word by word
	"$IPSECPERF" run -q --testbed vm $clock -t "${DURATION:-2}" -r "${REPEAT:-5}" -o "$d" "$@" \
		> /dev/null || [ $? = 1 ] || exit 1
	"$IPSECPERF" report "$d" > "$d/report.txt"
	echo "$d"
}

# How the guests of DIR were timed, for the prose beside its figures.
clock_words() { # dir
	if grep -q '"clock": *"virtual"' "$1/meta.json"; then
		echo 'under the virtual clock (a guest second is 10^9 instructions: the figures count work, not time, and repeat run to run)'
	else
		echo 'under TCG (emulation: the absolute figures say nothing about hardware, the ratios between scenarios and the counters do)'
	fi
}

# The README's sample: two runs of one kernel compared (nothing changed:
# exit 0); a kernel with a patch that slows esp_output compared with its
# base (a real change: exit 1).
readme_examples() { # kernel-tree (built: make kernel-tree)
	tree=${1:-/var/cache/ipsecperf/src/linux-source-6.12}
	k=debian:linux-image-6.1.0-57-cloud-amd64
	s1=$(vm_run vm-same-1 --kernel "$k")
	s2=$(vm_run vm-same-2 --kernel "$k")
	p=results/examples/$(date -u +%Y%m%dT%H%M%S)-vm-patched
	REPEAT=${REPEAT:-5} DURATION=${DURATION:-2} LV=-esp-slow tools/patch-to-verdict.sh -o "$p" -w "$tree-readme" \
		"$tree" tests/integration/kernel-patches/esp4-busywait.patch clear esp-null > /dev/null || [ $? = 1 ] || exit 1
	readme_fill "$s1" "$s2" "$p"
}

# One "$ ipsecperf ..." block of the sample: the command (within a mail's
# 72 columns, continued with a backslash), what it printed; its exit
# status in $rc.
sample_block() { # args...
	echo '```'
	printf '%s\n' "$*" | awk '{ l = "$ ipsecperf"
		for (i = 1; i <= NF; i++) {
			if (length(l) + 1 + length($i) > 70) { print l " \\"; l = "   " }
			l = l " " $i
		}
		print l }'
	rc=0
	"$IPSECPERF" "$@" || rc=$?
	echo '```'
}

# The README's sample from two VM runs of one kernel and a patched kernel's run.
# shellcheck disable=SC2016 # backquotes: markdown
readme_fill() { # same-1 same-2 patched-dir
	t=$(mktemp)
	{
		# prose within a mail's 72 columns, as the commands are
		echo 'Two comparisons of committed examples (results/examples/), made by' \
			'`tools/worked-example.sh readme`, the guests' "$(clock_words "$1")." | fold -s -w 72 | sed 's/ *$//'
		echo
		echo 'Two runs of one kernel, nothing changed in between:'
		"$IPSECPERF" compare "$1" "$2" > /dev/null 2>&1 && echo 'the gate passes (exit status 0).' ||
			echo "exit status $?."
		echo
		sample_block compare "$1" "$2"
		echo
		rc3=0
		"$IPSECPERF" compare "$3" > /dev/null 2>&1 || rc3=$?
		echo 'A kernel with tests/integration/kernel-patches/esp4-busywait.patch' \
			'(a busy loop of 250,000 turns in every esp_output) against its base,' \
			"booted in turn in one run: exit status $rc3." | fold -s -w 72 | sed 's/ *$//'
		echo
		sample_block compare "$3"
		echo
		echo 'The mail that `report --summary` writes, with both hosts'"'"' set-up, is'
		echo 'at the end of docs/peer-testbed.md.'
	} > "$t"
	fill README.md sample "$t"
	rm -f "$t"
	echo "README.md's sample filled from $1, $2 and $3"
}

# The README's sample of the older form: the summary of a netns run, and
# it compared with the run again.
netns_fill() { # dir-a dir-b
	t=$(mktemp)
	{
		echo 'The first three commands on a 2-CPU cloud VM (veth, no PMU), 2 s runs,'
		echo 'then the same run again and the two compared: committed examples,'
		echo 'results/examples/. The figures are those of a veth pair, not of a NIC.'
		echo
		sample_block report --summary "$1"
		echo
		echo 'The same run again, nothing changed in between, and the two compared:'
		echo
		sample_block compare "$1" "$2"
	} > "$t"
	fill README.md sample "$t"
	rm -f "$t"
	echo "README.md's sample filled from $1 and $2"
}

# The peer testbed between two namespaces (the tests' fixture), run as
# a person would type it: ssh finds its key through a wrapper on PATH and
# the peer's session finds ipsecperf on its own PATH, so the command names
# no test folder.
peer_examples() {
	exec bash -c '
		set -u
		. tests/integration/lib.sh
		bin=$(mktemp -d /tmp/ipsecperf-example.XXXXXX)
		export PEER_SESSION_PATH=$bin:/usr/sbin:/usr/bin:/sbin:/bin
		. tests/integration/peer_lib.sh
		peer_setup
		printf "#!/bin/sh\nexec /usr/bin/ssh -i %s -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \"\$@\"\n" \
			"$TMP/id_test" > "$bin/ssh"
		chmod +x "$bin/ssh"
		ln -s "$(realpath "$IPSECPERF")" "$bin/ipsecperf"
		d=results/examples/$(date -u +%Y%m%dT%H%M%S)-peer-namespaces
		ip netns exec "$PEER_NS_L" env PATH="$bin:$PATH" ipsecperf run -q --testbed peer --peer "root@$PEER_MGMT_P" \
			--dev "$PEER_DEV_L" --peer-dev "$PEER_DEV_P" --cpu-tx 0 --cpu-rx 1 -t "${DURATION:-2}" -r "${REPEAT:-5}" \
			-o "$d" > /dev/null || [ $? = 1 ] || fail "the peer run failed"
		rm -rf "$bin"
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
		echo "\$ ipsecperf report --profile --base no-gso --top 12 \\"
		echo "    $1"
		"$IPSECPERF" report --profile --base no-gso --top 12 --folded "$t" "$1" |
			sed -n '/^esp-null against no-gso/,/^$/p' | sed '/^$/d'
		echo '```'
	} > "$t/text"
	fill docs/profiling.md flame-diff "$t/text"
	rm -rf "$t"
	echo "docs/flame/ written, docs/profiling.md's flame-diff filled"
}

# docs/compare.md's refusal: its messages as compare prints them now.
refusal_fill() {
	python3 - "$IPSECPERF" << 'EOF3'
import re, subprocess, sys
text = open("docs/compare.md").read()
m = re.search(r"^    \$ ipsecperf (compare (?:.*\\\n)*.*)\n((?:    ipsecperf: .*\n)+)", text, re.M)
argv = re.sub(r"\\\n\s*", " ", m.group(1)).split()
got = subprocess.run([sys.argv[1]] + argv, capture_output=True, text=True).stderr
new = "".join("    " + l + "\n" for l in got.splitlines())
open("docs/compare.md", "w").write(text[:m.start(2)] + new + text[m.end(2):])
EOF3
}

# The newest committed example of a tag (the name after its stamp).
newest() { # tag
	ls -d results/examples/*-"$1" 2> /dev/null | tail -n 1
}

# The kernels of a results directory, the older release first (the base).
releases() { # dir
	python3 -c 'import json, sys
print(*sorted({k["release"] for k in json.load(open(sys.argv[1] + "/meta.json"))["kernels"]}))' "$1"
}

# Every committed example whose docs are made from it made again; then all_fill.
all_examples() { # kernel-tree
	tree=${1:-/var/cache/ipsecperf/src/linux-source-6.12}
	k1=debian:linux-image-6.1.0-57-cloud-amd64
	k2=debian:linux-image-6.12.118+deb12-cloud-amd64
	[ -z "$(git status --porcelain --untracked-files=no)" ] ||
		echo "worked-example: the tree has changes not committed: the reports will say -dirty" >&2
	readme_examples "$tree"
	sh tools/worked-example.sh peer
	# two kernels, as the host runs them (test_report_html reads their 64 noisy runs)
	d=results/examples/$(date -u +%Y%m%dT%H%M%S)-vm-two-kernels
	"$IPSECPERF" run -q --testbed vm --kernel "$k1" --kernel "$k2" --interleave -t 10 -r 8 -o "$d" \
		clear no-tso no-gso esp-null > /dev/null || [ $? = 1 ] || exit 1
	"$IPSECPERF" report "$d" > "$d/report.txt"
	d=results/examples/$(date -u +%Y%m%dT%H%M%S)-vm-percpu-tmp-6.12
	REPEAT=${REPEAT:-5} DURATION=${DURATION:-2} LV=-percpu-tmp tools/patch-to-verdict.sh -o "$d" -w "$tree-percpu" \
		"$tree" tests/integration/kernel-patches/esp4-percpu-tmp.patch > /dev/null || [ $? = 1 ] || exit 1
	"$IPSECPERF" report "$d" > "$d/report.txt"
	# the flame graphs' profile, as the host runs it: perf samples time
	d=results/examples/$(date -u +%Y%m%dT%H%M%S)-vm-profile-nogso-esp-6.1
	"$IPSECPERF" run -q --testbed vm --kernel "$k1" --profile -t 5 -r "${REPEAT:-5}" -o "$d" no-gso esp-null \
		> /dev/null || [ $? = 1 ] || exit 1
	"$IPSECPERF" report "$d" > "$d/report.txt"
	all_fill
}

# The docs and tests moved onto the newest example of each tag (an older
# one of the tag removed), every doc made from them filled again, and the
# README's older sample removed once it names it no more. The runs whose
# figures the prose of docs/profiling.md and docs/axes.md reads are not
# made again and stay.
all_fill() {
	for o in results/examples/*/; do
		o=${o%/}
		n=$(newest "${o#results/examples/*-}")
		[ "$n" != "$o" ] || continue
		sed -i "s|$o|$n|g" README.md docs/*.md tests/integration/*.sh
		git rm -rq "$o" 2> /dev/null || rm -rf "$o"
	done
	[ -z "$(newest vm-same-1)" ] || readme_fill "$(newest vm-same-1)" "$(newest vm-same-2)" "$(newest vm-patched)"
	two=$(newest vm-two-kernels) pc=$(newest vm-percpu-tmp-6.12)
	# shellcheck disable=SC2046 # the releases, word by word
	sh tools/worked-example.sh "$two" $(releases "$two") "$pc" $(releases "$pc")
	refill
	# the README's sample of the older form, once the README names them no more
	for o in results/examples/*-netns-sample results/examples/*-netns-again; do
		[ ! -d "$o" ] || grep -qF "$o" README.md || git rm -rq "$o" 2> /dev/null || rm -rf "$o"
	done
	echo "the docs filled from the newest examples; git add results/examples docs README.md tests, and commit"
}

# The docs' samples again from the committed examples they name, after a
# change to what report or compare prints: the README's sample, the peer
# mail, docs/example.md (its first line names the arguments it was made
# with), the flame graphs and compare.md's refusal.
refill() {
	# shellcheck disable=SC2046 # the directories, word by word
	set -- $(sed ':a;/\\$/{N;s/ *\\\n */ /;ba}' README.md | sed -n 's/^\$ ipsecperf report --summary //p; s/^\$ ipsecperf compare //p')
	if grep -q '^\$ ipsecperf report --summary' README.md; then netns_fill "$1" "$3"; else readme_fill "$@"; fi
	p=$(sed -n 's/^    Records and raw iperf3 output: <a link to \(.*\)>$/\1/p' docs/peer-testbed.md)
	t=$(mktemp)
	"$IPSECPERF" report --summary "$p" > "$t"
	mail_example "$p" "$t"
	rm -f "$t"
	# shellcheck disable=SC2046 # the arguments, as the page says them
	sh tools/worked-example.sh $(sed -n '3s/^Generated by `tools\/worked-example.sh \(.*\)`$/\1/p' docs/example.md)
	flame_examples "$(sed ':a;/\\$/{N;s/ *\\\n */ /;ba}' docs/profiling.md |
		sed -n 's/^\$ ipsecperf report --profile --base no-gso --top 12 //p')"
	refusal_fill
}

case ${1:-} in
readme) readme_examples "${2:-}"; exit 0 ;;
readme-fill) shift; readme_fill "$@"; exit 0 ;;
refill) refill; exit 0 ;;
all) all_examples "${2:-}"; exit 0 ;;
all-fill) all_fill; exit 0 ;;
flame) flame_examples "$2"; exit 0 ;;
peer) peer_examples ;;
mail) mail_example "$2" "$3"; exit 0 ;;
esac
dir=$1 base=$2 new=$3
out=docs/example
charts=$(mktemp -d /tmp/ipsecperf-example.XXXXXX)
trap 'rm -rf "$charts"' EXIT

# compare of a directory's two kernels, in a code block, under its command and exit status.
gate() { # dir base new compare-options...
	local dir=$1 base=$2 new=$3 rc
	shift 3
	set +e
	"$IPSECPERF" compare --base-kernel "$base" --new-kernel "$new" "$@" "$dir" > "$charts/gate.txt" 2> /dev/null
	rc=$?
	set -e
	printf '`ipsecperf compare --base-kernel %s --new-kernel %s %s%s` (exit status %d):\n\n```\n' \
		"$base" "$new" "${*:+$* }" "$dir" "$rc"
	cat "$charts/gate.txt"
	printf '```\n'
}

# The study's wish as a patch: esp_output without its kmalloc per packet.
percpu_section() { # dir base new
	cat <<EOF2

## esp_output without a kmalloc per packet

[tests/integration/kernel-patches/esp4-percpu-tmp.patch](../tests/integration/kernel-patches/esp4-percpu-tmp.patch)
takes esp_output's tmp buffer (the AEAD request, the IV and the
scatterlists) from a per-CPU buffer when the AEAD completes synchronously.
Base and patched built from Debian's linux-source-6.12 and booted in turn
by \`tools/patch-to-verdict.sh\` (docs/benchmarks.md), \`--probe-set esp\`,
the guests $(clock_words "$1"): [$1](../$1).

EOF2
	gate "$1" "$2" "$3"
	cat <<EOF2

The counters say what the patch did: kmalloc_esp_output and
kfree_esp_output per ESP packet, one on the base, none patched.
EOF2
}

rm -rf "$out"
mkdir -p "$out"
"$IPSECPERF" report -c "$charts" -f html -o "$out/report.html" "$dir"
cp "$charts"/*.png "$charts"/*.dat "$charts"/*.vars.gp "$charts"/bars.gp "$charts"/replot.sh "$out"/
"$IPSECPERF" report "$dir" > "$out/report.txt"
"$IPSECPERF" report -f csv -o "$out/report.csv" "$dir"

{
	cat <<EOF2
# Worked example: two stock kernels on the VM testbed

Generated by \`tools/worked-example.sh $*\`
from committed runs; the code blocks and charts are the program's own
output. The VM testbed booted each kernel in turn, the guests
$(clock_words "$dir"). The runs:
[$dir](../$dir).

## The mail (\`ipsecperf report --summary $dir\`)

\`\`\`
$("$IPSECPERF" report --summary "$dir")
\`\`\`

The whole report, with the spread and each run's intervals, is
[docs/example/report.txt](example/report.txt); as one page with its
charts, [docs/example/report.html](example/report.html); as CSV,
[docs/example/report.csv](example/report.csv).

## Charts (\`ipsecperf report -c DIR\`)

Bars: the median; whiskers: its interval; one bar per kernel. The data
files and gnuplot scripts are beside the images in
[docs/example/](example/), to redraw them.

![throughput](example/throughput.png)

![kmalloc_esp_output](example/counter-kmalloc_esp_output.png)

## The two kernels compared

EOF2
	gate "$dir" "$base" "$new"
	cat <<EOF2

The study's cliffs are the ratios: no-tso, no-gso and esp-null against
clear. Its suspects are the counters of esp-null: esp_output, the
transport-mode memmoves and the tmp buffer's kmalloc and kfree per ESP
packet, on each kernel.
EOF2
} > docs/example.md
[ $# -ge 6 ] && percpu_section "$4" "$5" "$6" >> docs/example.md
echo "docs/example.md and $out/ written"
