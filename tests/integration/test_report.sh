#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# ipsecperf report on synthetic results directories: every format, the
# 72-column ASCII text, charts, one self-contained HTML page, and the
# FILE:LINE messages (exit 2) for malformed input. No root needed.
. "$(dirname "$0")/results_lib.sh" report

python3 "$SYNTH" "$TMP/a" --kernels 6.1.0-28-cloud-amd64,6.12.43+deb12-cloud-amd64 \
	--scenarios clear,no-gso,esp-null --noisy esp-null --fail no-gso:2 || fail "synth"

# text: 72 columns, ASCII, header, warnings, failed run listed
"$IPSECPERF" report "$TMP/a" > "$TMP/text" 2> "$TMP/err" || fail "report text: exit $?"
awk 'length($0) > 72 { print FILENAME ":" NR ": " length($0) " columns"; bad = 1 } END { exit bad }' \
	"$TMP/text" >&2 || fail "text report wider than 72 columns"
LC_ALL=C grep -q '[^ -~]' "$TMP/text" && fail "text report is not printable ASCII"
for want in '^host      synth, Synthetic CPU, 2 CPUs' '^testbed   vm' \
	'^  ipsecperf run --repeat 5 clear no-gso esp-null$' '^kernels   6.1.0-28-cloud-amd64, 6.12.43' \
	'^runs      5 repeats per scenario, 10 s each' \
	'^testbed   vm, accelerator tcg' '^caution   under TCG the absolute figures are those of an emulated CPU;' \
	'^no-gso +4 ' 'no-gso repeat 2: failed: iperf3 exited' \
	'warning: .*esp-null: CV throughput [0-9.]*%' 'hint: add repeats \(--repeat' \
	'^scenario +metric +n +covers +CV$' 'xmit_skbs' 'unavailable: no ESP'; do
	grep -qE -e "$want" "$TMP/text" || { cat "$TMP/text" >&2; fail "text lacks /$want/"; }
done

# csv and json: machine-readable, one row per kernel x scenario x metric
"$IPSECPERF" report -f csv "$TMP/a" > "$TMP/csv" || fail "csv"
head -1 "$TMP/csv" | grep -q '^kernel,scenario,metric,unit,clock,n,' || fail "csv header"
"$IPSECPERF" report -f json -o "$TMP/json" "$TMP/a" || fail "json"
python3 - "$TMP/json" "$TMP/csv" <<'PY' || fail "json/csv content"
import csv, sys
from assert_json import document
j = document(sys.argv[1])
rows = list(csv.DictReader(open(sys.argv[2])))
if not (len(j["rows"]) == len(rows)): raise AssertionError((len(j["rows"]), len(rows)))
t = [r for r in j["rows"] if r["metric"] == "throughput" and r["scenario"] == "no-gso"]
if not (len(t) == 2 and t[0]["n"] == 4 and t[0]["n_not_ok"] == 1): raise AssertionError(t)
if not (abs(t[0]["ratio"] - t[0]["median"] / [r for r in j["rows"] if r["metric"] == "throughput"
    and r["scenario"] == "clear" and r["kernel"] == t[0]["kernel"]][0]["median"]) < 1e-9): raise AssertionError
if not (j["not_ok"][0]["reason"] == "iperf3 exited with status 1"): raise AssertionError
if not (j["sources"][0]["command"].startswith("ipsecperf run")): raise AssertionError
if not (j["sources"][0]["accel"] == "tcg" and j["sources"][0]["emulated"] is True): raise AssertionError
if not ("emulated CPU" in j["sources"][0]["caution"]): raise AssertionError
PY
# the virtual clock: its cost is instructions per byte in every format, named so, and the CSV says the clock
mkdir -p "$TMP/virt"
echo '{"testbed":"vm","host":"h","kernels":["6.1.0"],"clock":"virtual"}' > "$TMP/virt/meta.json"
for i in 1 2 3 4 5; do
	echo '{"version":1,"kernel":"6.1.0","scenario":"esp-null","repeat":'$i',"status":"ok","throughput_bps":1.9'$i'e8,"clock":"virtual","instructions_per_byte":4'$i'.5,"instructions_method":"icount"}'
done > "$TMP/virt/runs.jsonl"
"$IPSECPERF" report -f csv "$TMP/virt" > "$TMP/virt.csv" || fail "report -f csv virtual"
grep -q '^6.1.0,esp-null,instructions_per_byte,instructions/byte,virtual,5,' "$TMP/virt.csv" || { cat "$TMP/virt.csv" >&2; fail "csv: no virtual instructions_per_byte row"; }
grep -q 'cycles' "$TMP/virt.csv" && fail "csv: cycles under the virtual clock"
"$IPSECPERF" report --summary "$TMP/virt" > "$TMP/virt.sum" || fail "report --summary virtual"
grep -q '^clock     virtual' "$TMP/virt.sum" && grep -q 'instructions/byte' "$TMP/virt.sum" || { cat "$TMP/virt.sum" >&2; fail "summary: the virtual clock or its instructions/byte missing"; }
for fmt in text md html json; do
	"$IPSECPERF" report -f $fmt "$TMP/virt" > "$TMP/virt.$fmt" || fail "report -f $fmt virtual"
	grep -qi 'instructions.per.byte\|instructions/byte' "$TMP/virt.$fmt" || fail "$fmt: no instructions per byte under the virtual clock"
	grep -qi 'cycles.per.byte\|cycles/byte' "$TMP/virt.$fmt" && fail "$fmt: cycles per byte under the virtual clock"
done
# the accelerator of a host testbed, and no caution there
python3 "$SYNTH" "$TMP/netns" --testbed netns --kernels 6.18.0-test --scenarios clear,no-gso || fail "synth netns"
"$IPSECPERF" report "$TMP/netns" > "$TMP/netns.txt" || fail "report netns"
grep -q '^testbed   netns, accelerator none' "$TMP/netns.txt" || fail "netns: no accelerator line"
grep -q '^caution' "$TMP/netns.txt" && fail "netns: TCG caution without TCG"
"$IPSECPERF" report -f md "$TMP/a" | grep -q '^| caution | under TCG' || fail "markdown: no TCG caution"
# the kernels side by side, as run prints them after a VM matrix
"$IPSECPERF" report --side-by-side "$TMP/a" > "$TMP/side" || fail "side by side: exit $?"
for want in '^Kernels side by side' '^  K2 = 6.12.43\+deb12-cloud-amd64 \(accelerator tcg\)' \
	'^Throughput, Gbit/s, median interval \(n\)' '^esp-null .*\(5\) [+-][0-9]+%$'; do
	grep -qE -e "$want" "$TMP/side" || { cat "$TMP/side" >&2; fail "side by side lacks /$want/"; }
done
"$IPSECPERF" report -f md "$TMP/a" | grep -q '^| 6.1.0-28-cloud-amd64 | clear | Gbit/s | 5 |' || fail "markdown"
# --summary: the provenance and the summary table, the start of the full report, and nothing after it
"$IPSECPERF" report --summary "$TMP/netns" > "$TMP/summary" || fail "--summary: exit $?"
"$IPSECPERF" report "$TMP/netns" | sed '/^reproduce:$/,$d' > "$TMP/netns.body"
sed '/^reproduce:$/,$d' "$TMP/summary" | cmp -s - <(head -n "$(sed '/^reproduce:$/,$d' "$TMP/summary" | wc -l)" "$TMP/netns.body") ||
	{ diff "$TMP/summary" "$TMP/netns.txt" >&2; fail "--summary is not the report's first part"; }
[ "$(sed -n '/^reproduce:$/,$p' "$TMP/summary")" = "$(sed -n '/^reproduce:$/,$p' "$TMP/netns.txt")" ] ||
	fail "--summary and the report do not end with the same reproduce block"
grep -q '^host ' "$TMP/summary" && grep -qE '^clear +[0-9]' "$TMP/summary" || { cat "$TMP/summary" >&2; fail "--summary lacks the provenance or the table"; }
grep -q '^Spread' "$TMP/summary" && fail "--summary has the spread tables"
[ "$(wc -l < "$TMP/summary")" -lt "$(wc -l < "$TMP/netns.txt")" ] || fail "--summary is the whole report"
expect_exit2 "--summary -f md" "report: --summary is a text report of its own: not with -f" "$IPSECPERF" report --summary -f md "$TMP/netns"

# the mail: both hosts' set-up as recorded, each end's cycles, the
# counters, a skip said once, how to reproduce; 72 columns; a string of the
# peer's that holds a control character is never shown
python3 "$SYNTH" "$TMP/mail" --testbed peer --setup --kernels 6.1.0-28-cloud-amd64 \
	--scenarios clear,esp-null,esp-gcm --skip "esp-null:this kernel has no ESP" || fail "synth mail"
"$IPSECPERF" report --summary "$TMP/mail" > "$TMP/mail.txt" || fail "mail: exit $?"
awk 'length($0) > 72 { print FILENAME ":" NR ": " length($0) " columns"; bad = 1 } END { exit bad }' \
	"$TMP/mail.txt" >&2 || fail "the mail is wider than 72 columns"
LC_ALL=C grep -q '[^ -~]' "$TMP/mail.txt" && fail "the mail is not printable ASCII"
for want in '^sender: this host \(synth\)$' '^receiver: root@rx-mgmt$' \
	'^  cpu +Synthetic CPU; 8 CPUs: 1 socket, 4 cores, 2 threads a core' '^  frequency +governor performance \(acpi-cpufreq\); boost off' \
	'^  mitigations 1 vulnerable \(mds\), 1 mitigated, 1 not affected' '^  kernel +6.1.0-28-cloud-amd64, config sha256 0123456789ab$' \
	'^  config +INET_ESP=m XFRM_OFFLOAD=y$' '^  tcp +congestion control cubic' \
	'^  crypto +rfc4106\(gcm\(aes\)\): seqiv\(rfc4106-gcm-aesni\)$' '^  nic +eth1: ixgbe 6.1.0, firmware 0x800003e7, 10000 Mb/s, MTU' \
	'^  nic +eth2: ixgbe' '^warned: the CPU frequency governor is powersave' \
	'^ +sender +receiver$' '^esp-gcm +5 +[0-9.]+ +[0-9.]+-[0-9.]+ +[0-9.]+ +[0-9.]+-[0-9.]+$' \
	'^  esp-null 5 runs \(repeats 1-5\): skipped: this kernel has no ESP$' '^esp-gcm +esp_output +5 +1.000' \
	'^reproduce:$' '^  ipsecperf run --repeat 5 clear esp-null esp-gcm$' \
	'^  ipsecperf synthetic, commit abc1234 \(clean: git checkout it and make\)$'; do
	grep -qE -e "$want" "$TMP/mail.txt" || { cat "$TMP/mail.txt" >&2; fail "the mail lacks /$want/"; }
done
[ "$(grep -c '^  cmdline' "$TMP/mail.txt")" = 1 ] || fail "the mail shows the peer's hostile command line"
[ "$(grep -c 'esp-null.*skipped' "$TMP/mail.txt")" = 1 ] || fail "the mail says the skip more than once"
grep -q '^command ' "$TMP/mail.txt" && fail "the mail says its command twice"
"$IPSECPERF" report -f md "$TMP/mail" | grep -c '^| 6.1.0-28-cloud-amd64 | esp-null | 1-5 (5) | skipped | this kernel has no ESP |$' | grep -qx 1 ||
	fail "markdown: the skip is not said once, with its repeats"
# the host that runs the guests, on vm; a directory without a set-up says so
python3 "$SYNTH" "$TMP/mailvm" --testbed vm --setup --kernels 6.1.0-28-cloud-amd64 --scenarios clear || fail "synth vm"
"$IPSECPERF" report --summary "$TMP/mailvm" | grep -q '^host (synth): runs the guests$' || fail "vm: no host block"
grep -q '^  not recorded in meta.json' "$TMP/summary" || fail "no set-up: not said"

# charts and the html page
if command -v gnuplot > /dev/null; then
	"$IPSECPERF" report -c "$TMP/charts" -f html -o "$TMP/r.html" "$TMP/a" || fail "html: exit $?"
	for f in throughput.png throughput.svg cycles_per_byte.png counter-xmit_skbs.png bars.gp replot.sh; do
		[ -s "$TMP/charts/$f" ] || fail "charts: $f missing"
	done
	head -c 8 "$TMP/charts/throughput.png" | od -An -c | grep -q 'P   N   G' || fail "not a PNG"
	grep -q "^subtitle\[1\] = 'kernels 6.1.0-28-cloud-amd64, 6.12.43+deb12-cloud-amd64 on synth, vm, accelerator tcg (emulated CPU" \
		"$TMP/charts/throughput.vars.gp" || fail "charts: no provenance subtitle"
	(cd "$TMP/charts" && rm throughput.png && ./replot.sh && [ -s throughput.png ]) || fail "replot.sh"
	[ "$(grep -c '<svg' "$TMP/r.html")" -ge 3 ] || fail "html: charts not inlined"
	grep -qE '(src|href)=.(https?:|file:|/|[a-z])' "$TMP/r.html" && fail "html is not self-contained"
	# html without --charts draws into a temporary directory and removes it
	"$IPSECPERF" report -f html "$TMP/a" > "$TMP/r2.html" || fail "html to stdout"
	grep -q '<svg' "$TMP/r2.html" || fail "html to stdout: no charts"
	# the verdict says what it cannot rank: a skipped scenario, and those within the slowest's interval
	"$IPSECPERF" report -f html "$TMP/mail" | grep -q 'Verdict: the slowest scenario, esp-gcm, .* Not measured (no ok run; see the runs not ok): esp-null\.' ||
		fail "html: the verdict does not say that esp-null was not measured"
	python3 "$SYNTH" "$TMP/close" --testbed netns --kernels 6.18.0-test --scenarios clear,no-tso,no-gso \
		--scale no-tso=0.39 --cv 0.05 || fail "synth close"
	"$IPSECPERF" report -f html "$TMP/close" | grep -q 'Its interval overlaps those of no-gso: these runs do not tell which of them is the slowest' ||
		fail "html: the verdict does not say which scenarios overlap the slowest"
else
	echo "  (gnuplot missing: charts not tested)" >&2
fi

# several directories: merged, kernels side by side
python3 "$SYNTH" "$TMP/b" --kernels 6.18.0-test --scenarios clear,no-gso --seed 2 || fail "synth b"
"$IPSECPERF" report "$TMP/a" "$TMP/b" > "$TMP/two" || fail "two dirs"
grep -q '^kernel 6.18.0-test' "$TMP/two" || fail "two dirs: second kernel missing"
grep -q "^results   $TMP/b" "$TMP/two" || fail "two dirs: second header missing"

# throughput over time: iperf3's and the stream load's 1 s intervals in raw/
python3 "$SYNTH" "$TMP/iv" --testbed netns --kernels 6.18.0-test --scenarios clear,no-gso --repeat 3 || fail "synth iv"
mkdir -p "$TMP/iv/raw"
python3 - "$TMP/iv/raw" <<'PY' || fail "raw files"
import json, os, sys
raw = sys.argv[1]
def iperf3(name, gbps, omitted=1):
    iv = [{"sum": {"start": i, "end": i + 1, "seconds": 1, "bits_per_second": g * 1e9,
                   "omitted": i < omitted}} for i, g in enumerate(gbps)]
    json.dump({"start": {}, "intervals": iv, "end": {}}, open(os.path.join(raw, name), "w"))
# clear: steady, one stall, a ramp; the warm-up (9.0) and a 0.2 s tail are left out
iperf3("clear-r1-iperf3-server.json", [9.0, 5.0, 5.1, 4.9, 5.0, 5.05])
iperf3("clear-r2-iperf3-server.json", [9.0, 5.0, 5.1, 0.2, 5.0, 5.05])
iperf3("clear-r3-iperf3-client.json", [9.0, 1.0, 2.0, 3.0, 4.0, 5.0])
# no-gso ran on the stream load: bytes per 1 s from the start, warm-up 1 s
iv = [{"end": t + 1.0, "bytes": int(b)} for t, b in enumerate([9e8, 4e8, 4.1e8, 3.9e8, 4e8])]
json.dump({"load": "stream", "omit_s": 1, "intervals": iv}, open(os.path.join(raw, "no-gso-r1-stream.json"), "w"))
# hostile: a link to a file outside, garbage, a negative and a huge number
os.symlink("/etc/passwd", os.path.join(raw, "no-gso-r2-stream.json"))
open(os.path.join(raw, "no-gso-r3-stream.json"), "w").write('{"intervals": [{"end": 1, "bytes": -5}]}')
open(os.path.join(raw, "no-gso-r3-iperf3-server.json"), "w").write("not json \x01")
PY
"$IPSECPERF" report "$TMP/iv" > "$TMP/iv.txt" 2> "$TMP/err" || { rc=$?; cat "$TMP/err" >&2; fail "intervals: exit $rc"; }
[ -s "$TMP/err" ] && { cat "$TMP/err" >&2; fail "intervals: a message for hostile raw files"; }
tr '\n' ' ' < "$TMP/iv.txt" | sed 's/  */ /g' > "$TMP/iv.flat"
grep -qE 'warning: clear: throughput varies inside 2 of 3 runs \(repeats 2, 3\): CV of the 1 s intervals [0-9]+%-[0-9]+% > 25%, a stall or a ramp' \
	"$TMP/iv.flat" || { cat "$TMP/iv.txt" >&2; fail "intervals: no stall/ramp warning"; }
grep -q 'warning: no-gso: throughput varies' "$TMP/iv.flat" && fail "intervals: a steady stream run warned"
if command -v gnuplot > /dev/null; then
	"$IPSECPERF" report -c "$TMP/iv-charts" "$TMP/iv" > /dev/null || fail "intervals charts: exit $?"
	[ -s "$TMP/iv-charts/time-g1.png" ] && [ -s "$TMP/iv-charts/time-g2.svg" ] || fail "no time-series charts"
	grep -q "^title = 'Throughput over time (1 s intervals): 6.18.0-test, clear'" "$TMP/iv-charts/time-g1.vars.gp" ||
		fail "time chart title"
	python3 - "$TMP/iv-charts" <<'PY' || fail "time-series data"
import sys
def blocks(p):
    return [[tuple(map(float, l.split())) for l in b.splitlines() if l and not l.startswith('#')]
            for b in open(p).read().split('\n\n\n')]
b = blocks(sys.argv[1] + "/time-g1.dat")
if not (len(b) == 3 and [v for _, v in b[1]] == [5.0, 5.1, 0.2, 5.0, 5.05]): raise AssertionError(b)
s = blocks(sys.argv[1] + "/time-g2.dat")
if not (len(s) == 1 and [round(v, 3) for _, v in s[0]] == [3.2, 3.28, 3.12, 3.2]): raise AssertionError(s)
PY
fi

# bad input: one line, names file and line, exit 2
expect_bad() { # what pattern args...
	local what=$1 pattern=$2
	shift 2
	expect_exit2 "$what" "^ipsecperf: $pattern" "$IPSECPERF" report "$@"
}
# a last line torn by a killed run: one warning naming file and line, the
# whole records reported
cp -r "$TMP/a" "$TMP/trunc"
head -c -40 "$TMP/a/runs.jsonl" > "$TMP/trunc/runs.jsonl"
n=$(wc -l < "$TMP/a/runs.jsonl")
"$IPSECPERF" report "$TMP/trunc" > "$TMP/trunc.txt" 2> "$TMP/err" || { rc=$?; cat "$TMP/err" >&2; fail "torn: exit $rc"; }
[ "$(wc -l < "$TMP/err")" = 1 ] || { cat "$TMP/err" >&2; fail "torn: not one line"; }
grep -qE "^ipsecperf: $TMP/trunc/runs.jsonl:$n: the last record is incomplete .* using the $((n - 1)) records before it" \
	"$TMP/err" || { cat "$TMP/err" >&2; fail "torn: no warning naming the file and line"; }
grep -q '^kernel 6.12.43' "$TMP/trunc.txt" || fail "torn: the whole records are not reported"
head -c -40 "$TMP/a/runs.jsonl" > "$TMP/trunc/runs.jsonl"
printf '\n' >> "$TMP/trunc/runs.jsonl"
tail -1 "$TMP/a/runs.jsonl" >> "$TMP/trunc/runs.jsonl"
expect_bad "torn, then more" "$TMP/trunc/runs.jsonl:$n: not a JSON object" "$TMP/trunc"
cp -r "$TMP/a" "$TMP/v2"
sed -i '7s/"version": 1/"version": 2/' "$TMP/v2/runs.jsonl"
expect_bad "version" "$TMP/v2/runs.jsonl:7: unknown record version 2" "$TMP/v2"
# not a results directory: said with the command's name, from a folder with no results/
cd "$TMP"
expect_bad "missing dir" "report: $TMP/nope: No such file or directory; there is none under results/ either" "$TMP/nope"
mkdir "$TMP/empty"
expect_bad "no meta" "report: $TMP/empty: not a results directory \\(no meta.json\\); there is none under results/" "$TMP/empty"
# a folder that is not one names the newest results directory under results/ (from here)
mkdir -p "$TMP/cwd/results/old" "$TMP/cwd/docs"
cp -r "$TMP/a" "$TMP/cwd/results/20990101T000000-netns-run"
touch -d '2000-01-01' "$TMP/cwd/results/20990101T000000-netns-run/meta.json"
cp -r "$TMP/a" "$TMP/cwd/results/new"
cd "$TMP/cwd"
expect_bad "not results" \
	"report: docs: not a results directory \\(no meta.json\\); the newest under results/ is results/new: ipsecperf report results/new$" docs
cd "$TOP"
expect_bad "format" "report: --format pdf: not a format" -f pdf "$TMP/a"
(cd "$TMP/empty" && expect_bad "no dir" "report: no results directory given, and none under results/ here" -f text)
exit 0
