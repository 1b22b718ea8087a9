#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A results directory from someone else is data. A
# control character in a kernel name, a scenario name, a tag or any other
# string the reports use is refused: exit 2, one line naming the file, the
# line and the field, and nothing is written or run (no output file, no
# chart folder, no file made by a gnuplot payload). Names with quotes,
# backquotes, $, ; and spaces are drawn as they are and run nothing. Paths
# in a record never leave the directory. No root needed.
. "$(dirname "$0")/results_lib.sh" hostile
cd "$TMP" || fail "cd $TMP" # a payload with a relative path would land here

# What a gnuplot script would run if a name reached it as code: a newline
# ends the quoted string, then system(), backquotes and a shell escape.
PWN="$TMP/PWNED"
PAYLOAD=$(printf "6.1'\nsystem(\"touch %s-system\")\n\`touch %s-bq\`\n!touch %s-bang\nx='" "$PWN" "$PWN" "$PWN")

synth() { python3 "$SYNTH" "$@" > /dev/null || fail "synth $*"; }
# set a field of the records (all, or line N) or of meta.json with a Python expression
mutate() { # dir 'python statements on r (record), n (line) or m (meta)'
	python3 - "$@" <<'EOF' || fail "mutate $1"
import json, os, sys
d, code = sys.argv[1], sys.argv[2]
recs = [json.loads(l) for l in open(os.path.join(d, "runs.jsonl"))]
m = json.load(open(os.path.join(d, "meta.json")))
for n, r in enumerate(recs, 1):
    exec(code, {"r": r, "n": n, "m": m, "PAYLOAD": os.environ["PAYLOAD"]})
with open(os.path.join(d, "runs.jsonl"), "w") as f:
    for r in recs:
        f.write(json.dumps(r) + "\n")
json.dump(m, open(os.path.join(d, "meta.json"), "w"), indent=1)
EOF
}
export PAYLOAD

nothing_made() { # what
	[ -z "$(find "$TMP" -maxdepth 1 -name 'PWNED*')" ] || fail "$1: a payload ran ($(find "$TMP" -maxdepth 1 -name 'PWNED*'))"
	[ -z "$(ls -A "$TMP/out")" ] || fail "$1: $TMP/out got $(ls -A "$TMP/out")"
	return 0
}
# the outputs' parent exists (as a user's would), so that what is refused
# is the results, not a missing folder; it must stay empty
mkdir "$TMP/out"

ALL=("report" "report -f html" "report -f md" "report -f csv" "report -f json"
	"report -c $TMP/out/charts" "report -f html -o $TMP/out/r.html"
	"report -f html -c $TMP/out/charts -o $TMP/out/r.html"
	"compare $TMP/good" "compare --reverse" "report --profile" "report --profile --folded $TMP/out")
PROFILE=("report --profile" "report --profile --folded $TMP/out")
# each command of $2 (an array's name) with DIR: exit 2, one line on stderr
# that matches, nothing on stdout, nothing made
refused() { # what cmds pattern dir
	local what=$1 pattern=$3 dir=$4 rc
	local -n cmds=$2
	for c in "${cmds[@]}"; do
		local -a argv
		read -r -a argv <<< "$c"
		if [ "${argv[*]}" = "compare --reverse" ]; then
			argv=(compare "$dir" "$TMP/good")
		else
			argv+=("$dir")
		fi
		"$IPSECPERF" "${argv[@]}" > "$TMP/stdout" 2> "$TMP/stderr"
		rc=$?
		[ $rc = 2 ] || { cat "$TMP/stderr" >&2; fail "$what: ${argv[0]} ${argv[1]}: exit $rc, not 2"; }
		[ "$(wc -l < "$TMP/stderr")" = 1 ] || { cat -A "$TMP/stderr" >&2; fail "$what: $c: not one line"; }
		LC_ALL=C grep -q '[^ -~]' "$TMP/stderr" && { cat -A "$TMP/stderr" >&2; fail "$what: $c: the message holds a control character"; }
		grep -qE -e "^ipsecperf: $pattern" "$TMP/stderr" ||
			{ cat "$TMP/stderr" >&2; fail "$what: $c: lacks /$pattern/"; }
		[ -s "$TMP/stdout" ] && { head -3 "$TMP/stdout" >&2; fail "$what: $c: wrote a report"; }
		nothing_made "$what: $c"
	done
	return 0
}

synth "$TMP/good" --repeat 3
# a profile per record, for report --profile: a folded file in raw/
python3 - "$TMP/good" <<'EOF' || fail "profiles"
import json, os, sys
d = sys.argv[1]
recs = [json.loads(l) for l in open(os.path.join(d, "runs.jsonl"))]
for r in recs:
    rel = "raw/%s-r%d-profile.folded" % (r["scenario"], r["repeat"])
    with open(os.path.join(d, rel), "w") as f:
        f.write("iperf3;entry_SYSCALL_64_[k];tcp_sendmsg_[k] 40\nswapper;do_idle_[k];default_idle_[k] 10\n")
    r["profile"] = {"status": "ok", "folded": rel, "hz": 99}
with open(os.path.join(d, "runs.jsonl"), "w") as f:
    for r in recs:
        f.write(json.dumps(r) + "\n")
EOF
"$IPSECPERF" report --profile --folded "$TMP/folded-good" "$TMP/good" > /dev/null 2>&1
[ -e "$TMP/folded-good" ] || mkdir "$TMP/folded-good"
"$IPSECPERF" report --profile --folded "$TMP/folded-good" "$TMP/good" > /dev/null ||
	fail "report --profile on the good directory"

# 1. a hostile kernel name in runs.jsonl (meta.json as it was)
cp -r "$TMP/good" "$TMP/kernel"
mutate "$TMP/kernel" 'if n == 3: r["kernel"] = PAYLOAD'
refused "kernel" ALL ".*/kernel/runs.jsonl:3: \"kernel\" holds a control character \(0x0a at byte 4\)" "$TMP/kernel"
# ... and in meta.json's list of kernels
cp -r "$TMP/good" "$TMP/metakernel"
mutate "$TMP/metakernel" 'm["kernels"][0]["release"] = PAYLOAD'
refused "meta kernel" ALL ".*/metakernel/meta.json:[0-9]+: \"kernels\[0\].release\" holds a control character" "$TMP/metakernel"

# 2. a hostile scenario name
cp -r "$TMP/good" "$TMP/scenario"
mutate "$TMP/scenario" 'if n == 2: r["scenario"] = "clear" + PAYLOAD'
refused "scenario" ALL ".*/scenario/runs.jsonl:2: \"scenario\" holds a control character \(0x0a at byte 9\)" "$TMP/scenario"

# 3. a hostile tag: in the directory's name (results/<time>-<testbed>-<tag>),
# and in meta.json's command line (run ... --tag TAG)
tagdir="$TMP/20261129T190000-netns-x"$'\n''system("touch PWNED-tag")' # relative: we are in $TMP
cp -r "$TMP/good" "$tagdir"
refused "tag in the name" ALL ".*/20261129T190000-netns-x\\\\x0asystem.*: the directory's name holds a control character \(0x0a" "$tagdir"
rm -rf "$tagdir"
cp -r "$TMP/good" "$TMP/tag"
mutate "$TMP/tag" 'm["command"] = ["ipsecperf", "run", "--tag", PAYLOAD, "clear"]'
refused "tag in meta.json" ALL ".*/tag/meta.json:[0-9]+: \"command\[3\]\" holds a control character" "$TMP/tag"

# 4. every other string the reports show: runs.jsonl and meta.json, a
# terminal's escape (ESC, and the C1 CSI), tab, DEL
i=0
for change in 'r["reason"] = "a\x1b[2Jb"; r["status"] = "failed"' 'r["start"] = "2026\t11"' \
	'r["counters"]["xmit_skbs"]["symbol"] = "tp\x7f"' 'r["cycles_method"] = "pmu\r"' \
	'r["counters"]["x\ny"] = {}' 'm["host"] = "box\x9b31m"' 'm["cpu_model"] = "cpu\x00"' \
	'm["tool_version"] = "v\x07"' 'm["testbed"] = "netns\n"' 'm["iperf3_version"] = "\x1b]0;t\x07"'; do
	i=$((i + 1))
	cp -r "$TMP/good" "$TMP/s$i"
	mutate "$TMP/s$i" "if n == 2: $change"
	refused "string $i ($change)" ALL ".*/s$i/(runs.jsonl:2|meta.json:[0-9]+): (counters\.[a-z_]+: )?(\".*\"|a counter's name) holds a control character|.*/s$i/runs.jsonl:2: not a JSON object|.*meta.json:[0-9]+: not valid JSON" "$TMP/s$i"
done

# 5. paths in a record stay inside the directory and follow no link
cp -r "$TMP/good" "$TMP/path"
mutate "$TMP/path" 'if n == 1: r["profile"]["folded"] = "raw/../../good/raw/clear-r1-profile.folded"'
refused "folded path" PROFILE ".*/path/raw/\.\./\.\./good/raw/clear-r1-profile.folded: '\.\.' is not a plain file name" "$TMP/path"
cp -r "$TMP/good" "$TMP/link"
ln -sf /etc/passwd "$TMP/link/raw/clear-r1-profile.folded"
refused "folded symlink" PROFILE ".*/link/raw/clear-r1-profile.folded: clear-r1-profile.folded is a symbolic link" "$TMP/link"
cp -r "$TMP/good" "$TMP/rawlink"
rm -rf "$TMP/rawlink/raw" && ln -s "$TMP/good/raw" "$TMP/rawlink/raw"
refused "raw/ a symlink" PROFILE ".*/rawlink/raw/clear-r1-profile.folded: raw is a symbolic link" "$TMP/rawlink"
cp -r "$TMP/good" "$TMP/stack"
printf 'iperf3;x\033[2J_[k] 3\n' >> "$TMP/stack/raw/clear-r2-profile.folded"
refused "folded stack" PROFILE ".*/stack/raw/clear-r2-profile.folded:3: a control character \(0x1b\) in a stack" "$TMP/stack"
cp -r "$TMP/good" "$TMP/fifo"
rm "$TMP/fifo/runs.jsonl" && mkfifo "$TMP/fifo/runs.jsonl"
refused "runs.jsonl a FIFO" ALL ".*/fifo/runs.jsonl: not a regular file" "$TMP/fifo"
# a kernel named like a path: its folded stacks land in --folded, as a plain name
cp -r "$TMP/good" "$TMP/slash"
mutate "$TMP/slash" 'r["kernel"] = "../../../x"'
mkdir "$TMP/folded"
"$IPSECPERF" report --profile --folded "$TMP/folded" "$TMP/good" "$TMP/slash" > "$TMP/stdout" 2> "$TMP/stderr" ||
	{ rc=$?; cat "$TMP/stderr" >&2; fail "kernel ../../../x: report --profile exit $rc"; }
[ -s "$TMP/folded/profile-.._.._.._x-clear.folded" ] ||
	{ ls -la "$TMP/folded" >&2; fail "kernel ../../../x: folded stacks not under a plain name"; }
[ "$(find "$TMP" -name 'profile-*.folded' -newer "$TMP/slash/meta.json" | grep -vc "^$TMP/folded/")" = 0 ] ||
	fail "kernel ../../../x: a folded file outside --folded"
# report --profile reads: without --folded it writes nothing, into the
# results it reads least of all
before=$(find "$TMP/good" -printf '%p %s %T@\n' | sort)
"$IPSECPERF" report --profile "$TMP/good" > "$TMP/stdout" 2> "$TMP/stderr" ||
	{ cat "$TMP/stderr" >&2; fail "report --profile without --folded"; }
[ "$(find "$TMP/good" -printf '%p %s %T@\n' | sort)" = "$before" ] || fail "report --profile wrote into the results it read"
grep -q -- '--folded DIR writes them' "$TMP/stdout" || fail "report --profile: no word of --folded"
# a planted symlink, FIFO or device node where --folded writes: not written
# through, and (strace) never opened; -o likewise (LeakSanitizer cannot
# work under ptrace: off under strace for a SANITIZE=1 build)
mkdir "$TMP/fout" && ln -s "$TMP/victim" "$TMP/fout/profile-clear.folded" && mkfifo "$TMP/fout/profile-no-gso.folded" &&
	mknod "$TMP/fout/profile-esp-null.folded" c 1 3 || fail "planting in $TMP/fout"
ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace -f -qq -e trace=open,openat -o "$TMP/strace" "$IPSECPERF" report --profile --folded "$TMP/fout" "$TMP/good" \
	> /dev/null 2> "$TMP/stderr"
[ $? = 1 ] || fail "folded output a symlink: exit not 1"
[ -e "$TMP/victim" ] && fail "folded output written through a symlink"
grep -q 'profile-clear.folded: is a symbolic link; output is never written through one; not written' "$TMP/stderr" &&
	grep -q 'profile-no-gso.folded: exists and is not a regular file; not written' "$TMP/stderr" &&
	grep -q 'profile-esp-null.folded: exists and is not a regular file; not written' "$TMP/stderr" ||
	{ cat "$TMP/stderr" >&2; fail "folded output a link, FIFO or device: no message"; }
grep -E 'fout/profile-[a-z-]+\.folded"' "$TMP/strace" | grep -v -e O_PATH -e O_EXCL && fail "a folded output that exists was opened"
for o in "report -f html -o" "report --profile -f svg -o"; do
	read -r -a argv <<< "$o"
	"$IPSECPERF" "${argv[@]}" "$TMP/fout/profile-clear.folded" "$TMP/good" > /dev/null 2> "$TMP/stderr"
	[ $? = 1 ] && [ ! -e "$TMP/victim" ] || fail "$o through a symlink"
	grep -q 'is a symbolic link' "$TMP/stderr" || { cat "$TMP/stderr" >&2; fail "$o a symlink: no message"; }
done
# results files: a device node (a tarball unpacked as root recreates one) as
# meta.json, a FIFO as a folded file: refused, and (strace) never opened
cp -r "$TMP/good" "$TMP/dev" && rm "$TMP/dev/meta.json" "$TMP/dev/raw/clear-r1-profile.folded" &&
	mknod "$TMP/dev/meta.json" c 1 3 && mkfifo "$TMP/dev/raw/clear-r1-profile.folded" || fail "planting in $TMP/dev"
ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace -f -qq -e trace=open,openat -o "$TMP/strace" "$IPSECPERF" report "$TMP/dev" > /dev/null 2> "$TMP/stderr"
[ $? = 2 ] && grep -q 'dev/meta.json: not a regular file' "$TMP/stderr" || { cat "$TMP/stderr" >&2; fail "meta.json a device node"; }
grep -E '"meta\.json"' "$TMP/strace" | grep -v O_PATH && fail "meta.json, a device node, was opened"
rm "$TMP/dev/meta.json" && cp "$TMP/good/meta.json" "$TMP/dev/meta.json"
ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace -f -qq -e trace=open,openat -o "$TMP/strace" "$IPSECPERF" report --profile "$TMP/dev" > /dev/null 2> "$TMP/stderr"
[ $? = 2 ] && grep -q 'clear-r1-profile.folded: not a regular file' "$TMP/stderr" ||
	{ cat "$TMP/stderr" >&2; fail "a folded file a FIFO"; }
grep -E '"clear-r1-profile\.folded"' "$TMP/strace" | grep -v O_PATH && fail "a folded file, a FIFO, was opened"

# report -c: the folder checked is the folder written. A stand-in gnuplot
# swaps the chart folder for a symlink to another one while report -c is
# drawing (on its second run, after the first chart's files: the window
# between the check and the later writes, made certain), then runs the real
# gnuplot. Every file must still land in the folder checked (kept open:
# files made with openat, gnuplot started with fchdir), none in the other.
gp=$(command -v gnuplot) || fail "no gnuplot"
mkdir "$TMP/gpbin" "$TMP/elsewhere" || fail "mkdir gpbin"
printf '%s\n' '#!/bin/sh' \
	'n=$(cat "$T/gpruns" 2> /dev/null || echo 0); echo $((n + 1)) > "$T/gpruns"' \
	'[ "$n" = 1 ] && mv "$T/race" "$T/race.moved" && ln -s "$T/elsewhere" "$T/race"' \
	'exec "$GP" "$@"' > "$TMP/gpbin/gnuplot" && chmod +x "$TMP/gpbin/gnuplot" || fail "the stand-in gnuplot"
T=$TMP GP=$gp PATH="$TMP/gpbin:$PATH" "$IPSECPERF" report -c "$TMP/race" "$TMP/good" > /dev/null 2> "$TMP/stderr"
rc=$?
[ $rc = 0 ] || { cat "$TMP/stderr" >&2; ls "$TMP/elsewhere" >&2; fail "report -c with the folder swapped: exit $rc"; }
[ -L "$TMP/race" ] && [ "$(cat "$TMP/gpruns")" -gt 2 ] || fail "report -c: the stand-in gnuplot did not swap the folder"
[ -z "$(ls -A "$TMP/elsewhere")" ] || fail "report -c wrote into the folder swapped in: $(ls "$TMP/elsewhere" | head -5 | tr '\n' ' ')"
for f in bars.gp replot.sh throughput.svg cycles_per_byte.png cycles_per_byte.vars.gp counter-xmit_skbs.svg; do
	[ -s "$TMP/race.moved/$f" ] || fail "report -c with the folder swapped: $f not in the folder checked"
done
[ -x "$TMP/race.moved/replot.sh" ] || fail "report -c: replot.sh not executable"

# 6. names with quotes, backquotes, $, ;, spaces and HTML: drawn as they
# are, and nothing runs (the backquotes, $() and system() would make files)
AWK="$TMP/AWK"
awkward="6.1 \"dq\" 'sq' \`touch $AWK-bq\` \$(touch $AWK-dollar); system(\"touch $AWK-system\") @x <b>&amp; \\"
cp -r "$TMP/good" "$TMP/awkward"
AWKWARD=$awkward python3 - "$TMP/awkward" <<'EOF' || fail "awkward"
import json, os, sys
d = sys.argv[1]
recs = [json.loads(l) for l in open(os.path.join(d, "runs.jsonl"))]
for r in recs:
    r["kernel"] = os.environ["AWKWARD"]
    if r["scenario"] == "no-gso":
        r["scenario"] = "no 'gso' `x`"
with open(os.path.join(d, "runs.jsonl"), "w") as f:
    for r in recs:
        f.write(json.dumps(r) + "\n")
EOF
"$IPSECPERF" report -f html -c "$TMP/charts" -o "$TMP/awkward.html" "$TMP/awkward" "$TMP/good" \
	> "$TMP/stdout" 2> "$TMP/stderr" || { rc=$?; cat "$TMP/stderr" >&2; fail "awkward: report -c exit $rc"; }
for f in throughput.png throughput.svg cycles_per_byte.svg counter-xmit_skbs.svg; do
	[ -s "$TMP/charts/$f" ] || fail "awkward: $f missing"
done
(cd "$TMP/charts" && ./replot.sh > /dev/null 2>&1) || fail "awkward: replot.sh"
"$IPSECPERF" report -f md "$TMP/awkward" > /dev/null || fail "awkward: report -f md"
# compare refuses a directory against itself: the other side is a copy whose figures moved by 1%
cp -r "$TMP/awkward" "$TMP/awkward2"
python3 - "$TMP/awkward2/runs.jsonl" <<'EOF' || fail "awkward2"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
for r in recs:
    if isinstance(r.get("throughput_bps"), (int, float)):
        r["throughput_bps"] *= 1.01
open(sys.argv[1], "w").write("".join(json.dumps(r) + "\n" for r in recs))
EOF
"$IPSECPERF" compare "$TMP/awkward" "$TMP/awkward2" > /dev/null
case $? in 0|1) ;; *) fail "awkward: compare";; esac
"$IPSECPERF" report --profile --folded "$TMP/charts" "$TMP/awkward" > /dev/null || fail "awkward: report --profile"
[ -z "$(find "$TMP" -name 'AWK*')" ] || fail "awkward: a name ran as code ($(find "$TMP" -name 'AWK*'))"
python3 - "$TMP/charts/throughput.svg" "$TMP/awkward.html" "$awkward" <<'EOF' || fail "awkward: names not shown as they are"
import html, sys
svg, page, name = open(sys.argv[1]).read(), open(sys.argv[2]).read(), sys.argv[3]
# gnuplot's SVG escapes < and &; the legend shows the name whole
if not (name.replace("&", "&amp;").replace("<", "&lt;") in svg): raise AssertionError("kernel name not in the chart's legend")
if not ("no 'gso' `x` (n=3)" in svg): raise AssertionError("scenario label not in the chart")
if not ("<b>" not in page): raise AssertionError("the HTML page holds the name's <b> as markup")
if not (html.escape(name, quote=True).replace("&#x27;", "&#39;") in page): raise AssertionError("the HTML page lacks the escaped name")
EOF
exit 0
