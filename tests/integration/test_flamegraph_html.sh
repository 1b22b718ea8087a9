#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The flame graphs and compare's page in a real browser (Debian's headless
# chromium, as test_report_html.sh): a copy of the page with a checking
# script appended reports, after the load event, what the browser made of
# it (read back with --dump-dom):
# - report -f html on the committed profiled VM run (no-gso, esp-null),
#   with three hostile function names added to its stacks: the page fits
#   1280 px; the flame graphs are there (no-gso, esp-null, esp-null against
#   no-gso); the command frames are as wide, on screen, as the folded
#   stacks say (computed here from the raw files and runs.jsonl, not from
#   the SVG); a click on a frame zooms (it takes the whole width, frames
#   beside it are hidden) and the root zooms back out; the hostile names
#   ran nothing (no script of theirs, no handler fired) and are shown as
#   text;
# - compare -f html of two committed netns runs: fits 1280 px, one chart
#   per row, every run a dot, the regressions marked as the text says.
source "$(dirname "$0")/lib.sh"
CHROMIUM=$(command -v chromium || command -v chromium-browser) || skip_ours "chromium missing (make deps)"
command -v python3 > /dev/null || skip_ours "python3 missing"
EX="$TOP/results/examples/20261206T081450-vm-profile-nogso-esp-6.1"

check_page() { # page.html checking-js -> the lines the script wrote
	local page=$1 js=$2 prof
	prof=$(mktemp -d "$TMP/profile.XXXXXX")
	{ cat "$page"; echo "<script>"; cat "$js"; echo "</script>"; } > "$TMP/check.html"
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$prof" --window-size=1280,2000 --virtual-time-budget=5000 --dump-dom \
		"file://$TMP/check.html" > "$TMP/dom.html" 2> "$TMP/chromium.err" ||
		{ rc=$?; tail -5 "$TMP/chromium.err" >&2; fail "chromium exit $rc"; }
	python3 - "$TMP/dom.html" <<'PY' || { tail -5 "$TMP/dom.html" >&2; fail "$page: no check result in the DOM"; }
import html, re, sys
m = re.search(r'<pre id="ipsecperf-check">(.*?)</pre>', open(sys.argv[1]).read(), re.S)
sys.exit(1) if not m else print(html.unescape(m.group(1)))
PY
}

# the run with hostile names in every esp-null stack file
cp -r "$EX" "$TMP/h"
long=$(printf 'y%.0s' $(seq 3000))
for f in "$TMP"/h/raw/*/esp-null-r*-profile.folded; do
	cat >> "$f" <<EOF
iperf3;entry_SYSCALL_64_[k];"><script>window.pwned=1</script>_[k] 40
iperf3;it's "quoted" & <b>bold</b> 30
iperf3;<img src=x onerror=window.pwned=2>;${long}_[k] 20
EOF
done
"$IPSECPERF" report -f html -o "$TMP/p.html" "$TMP/h" 2> "$TMP/err" || { rc=$?; cat "$TMP/err" >&2; fail "report -f html: exit $rc"; }
grep -q 'id=profiles' "$TMP/p.html" || fail "no flame graph section"

cat > "$TMP/flame.js" <<'JS'
window.addEventListener('load', function () {
	var r = ['width ' + document.documentElement.scrollWidth + ' ' + window.innerWidth];
	r.push('pwned ' + (window.pwned === undefined ? 'no' : window.pwned));
	r.push('scripts ' + document.querySelectorAll('script').length);
	document.querySelectorAll('svg.flamegraph').forEach(function (s) {
		var b = s.getBoundingClientRect(), cap = s.parentNode.querySelector('figcaption').textContent;
		r.push('svg ' + s.id + ' ' + b.width.toFixed(2) + ' ' + s.querySelectorAll('g.f').length + ' ' + cap);
		s.querySelectorAll('g.f[data-d="1"]').forEach(function (g) {
			r.push('frame ' + s.id + ' ' + g.getAttribute('data-n') + ' ' +
			       g.querySelector('rect').getBoundingClientRect().width.toFixed(3));
		});
	});
	// the hostile names: as text, in the tooltip and the label
	document.querySelectorAll('svg.flamegraph g.f').forEach(function (g) {
		var n = g.getAttribute('data-n');
		if (n.indexOf('pwned') >= 0 || n.indexOf('quoted') >= 0 || n.indexOf('yyyy') === 0)
			r.push('hostile ' + JSON.stringify([n, g.querySelector('title').textContent.split('\n')[0],
							   g.querySelector('text').textContent]));
	});
	// a click on esp-null's widest function frame, then on the root
	var s = document.getElementById('flame-1-svg'), best = null;
	s.querySelectorAll('g.f[data-d="3"]').forEach(function (g) {
		if (!best || +g.querySelector('rect').getAttribute('width') > +best.querySelector('rect').getAttribute('width'))
			best = g;
	});
	var before = +best.querySelector('rect').getAttribute('width');
	best.querySelector('rect').dispatchEvent(new MouseEvent('click', { bubbles: true }));
	var hidden = 0;
	s.querySelectorAll('g.f').forEach(function (g) { if (g.style.display === 'none') hidden++; });
	r.push('zoom ' + before.toFixed(3) + ' ' + best.querySelector('rect').getAttribute('width') + ' ' + hidden +
	       ' ' + (s.getAttribute('data-zoom') === best.getAttribute('data-n')));
	s.querySelector('g.f[data-d="0"] rect').dispatchEvent(new MouseEvent('click', { bubbles: true }));
	hidden = 0;
	s.querySelectorAll('g.f').forEach(function (g) { if (g.style.display === 'none') hidden++; });
	r.push('unzoom ' + best.querySelector('rect').getAttribute('width') + ' ' + hidden);
	var p = document.createElement('pre');
	p.id = 'ipsecperf-check';
	p.textContent = r.join('\n');
	document.body.appendChild(p);
});
JS
check_page "$TMP/p.html" "$TMP/flame.js" > "$TMP/res" || exit 1
python3 - "$TMP/res" "$TMP/h" "$long" <<'PY' || { cat "$TMP/res" >&2; fail "flame graphs in the browser (above)"; }
import glob, json, os, sys
res = open(sys.argv[1]).read().splitlines()
d, long = sys.argv[2], sys.argv[3]
def lines(kind):
    return [l.split(" ", 1)[1] for l in res if l.startswith(kind + " ")]
w, win = map(int, lines("width")[0].split())
if not (win == 1280 and w <= win): raise AssertionError(("the page is wider than the window", w, win))
if not (lines("pwned") == ["no"]): raise AssertionError("a hostile name ran: " + lines("pwned")[0])
svgs = {l.split()[0]: l.split(" ", 3) for l in lines("svg")}
if not (len(svgs) == 3): raise AssertionError(svgs)
caps = sorted(v[3] for v in svgs.values())
if not (any(c.startswith("Difference: esp-null") and "against no-gso" in c for c in caps)): raise AssertionError(caps)
if not (int(lines("scripts")[0]) == len(svgs) + 1): raise AssertionError("scripts: " + lines("scripts")[0])
# the command frames' widths on screen, from the folded stacks themselves
def idle(stack):
    fr = stack.split(";")
    leaf = fr[-1]
    return (fr[0] == "swapper" and len(fr) > 1 and ("idle" in leaf or "safe_halt" in leaf or "mwait" in leaf
            or leaf == "halt_[k]" or leaf.startswith("cpu_startup_entry")))
recs = [json.loads(l) for l in open(os.path.join(d, "runs.jsonl"))]
def expected(scen):
    runs = [r for r in recs if r["scenario"] == scen and r["status"] == "ok"]
    cmd, whole = {}, 0.0
    for r in runs:
        f = os.path.join(d, "raw", r["kernel"], os.path.basename(r["profile"]["folded"]))
        st = [l.rstrip("\n").rsplit(" ", 1) for l in open(f)]
        st = [(s, int(c)) for s, c in st if not idle(s)]
        busy = sum(c for _, c in st)
        for s, c in st:
            k = s.split(";")[0]
            cmd[k] = cmd.get(k, 0.0) + c / busy * r["cycles_per_byte"] / len(runs)
        whole += r["cycles_per_byte"] / len(runs)
    return {k: v / whole for k, v in cmd.items()}
checked = 0
for sid, scen in (("flame-0-svg", "no-gso"), ("flame-1-svg", "esp-null")):
    if not (svgs[sid][3].startswith(scen + " on ")): raise AssertionError(svgs[sid])
    px = float(svgs[sid][1]) * 1180 / 1200  # the frames' part of the SVG's rendered width
    exp = expected(scen)
    got = {l.split()[1]: float(l.split()[2]) for l in lines("frame") if l.split()[0] == sid}
    if not (set(got) == set(exp)): raise AssertionError((sid, set(got) ^ set(exp)))
    for k, share in exp.items():
        if not (abs(got[k] - share * px) <= 0.05): raise AssertionError((sid, k, got[k], share * px))
        checked += 1
print("%d command frames as wide as the folded stacks say" % checked)
# the click zooms, the root zooms out
before, after, hidden, named = lines("zoom")[0].split()
if not (abs(float(after) - 1180) < 0.01 and float(before) < 1170 and int(hidden) > 0 and named == "true"): raise AssertionError(lines("zoom"))
after, hidden = lines("unzoom")[0].split()
if not (abs(float(after) - float(before)) < 0.01 and hidden == "0"): raise AssertionError(lines("unzoom"))
# the hostile names as text
hostile = [json.loads(l) for l in lines("hostile")]
names = {h[0] for h in hostile}
for n in ('"><script>window.pwned=1</script>', "it's \"quoted\" & <b>bold</b>", "<img src=x onerror=window.pwned=2>"):
    if not (n in names): raise AssertionError((n, names))
for n, title, label in hostile:
    if not (title.startswith(n[:490])): raise AssertionError((n, title))
    if not (label == "" or n.startswith(label.rstrip("."))): raise AssertionError((n, label))
longs = [h for h in hostile if h[0].startswith("yyyy")]
if not (longs and len(longs[0][0]) == 500): raise AssertionError([len(h[0]) for h in longs])
PY

# compare's page: the two runs the README's sample compares
# (a command of the sample may go on over lines that end in a backslash)
set -- $(sed ':a;/\\$/{N;s/ *\\\n */ /;ba}' "$TOP/README.md" |
	sed -n 's/^\$ ipsecperf compare \(results\/examples\/[^ ]*\) \(results\/examples\/[^ ]*\)$/\1 \2/p' | head -1)
[ $# = 2 ] || fail "the README's sample compares no two committed examples"
A="$TOP/$1"
B="$TOP/$2"
rc=0
"$IPSECPERF" compare -f html "$A" "$B" > "$TMP/c.html" 2> "$TMP/err" || rc=$?
rct=0
"$IPSECPERF" compare -f json "$A" "$B" > "$TMP/c.json" 2> /dev/null || rct=$?
[ "$rc" = "$rct" ] || fail "compare -f html exit $rc, -f json $rct"
grep -q 'gnuplot' "$TMP/err" && fail "compare -f html wants gnuplot"
cat > "$TMP/cmp.js" <<'JS'
window.addEventListener('load', function () {
	var r = ['width ' + document.documentElement.scrollWidth + ' ' + window.innerWidth];
	document.querySelectorAll('div.row').forEach(function (d) {
		var b = d.querySelector('svg').getBoundingClientRect();
		r.push('row ' + d.className.replace(' ', '.') + ' ' + Math.round(b.width) + 'x' + Math.round(b.height) + ' ' +
		       d.querySelectorAll('circle.run').length + ' ' + d.querySelectorAll('line.median').length + ' ' +
		       d.querySelector('h4').textContent);
	});
	r.push('verdict ' + document.querySelector('.verdict').textContent);
	var p = document.createElement('pre');
	p.id = 'ipsecperf-check';
	p.textContent = r.join('\n');
	document.body.appendChild(p);
});
JS
check_page "$TMP/c.html" "$TMP/cmp.js" > "$TMP/res.c" || exit 1
python3 - "$TMP/res.c" "$TMP/c.json" <<'PY' || { cat "$TMP/res.c" >&2; fail "compare's page in the browser (above)"; }
import json, sys
res = open(sys.argv[1]).read().splitlines()
j = json.load(open(sys.argv[2]))
w, win = map(int, res[0].split()[1:])
if not (win == 1280 and w <= win): raise AssertionError(("the page is wider than the window", w, win))
rows = [l.split(" ", 5) for l in res if l.startswith("row ")]
if not (len(rows) == len(j["rows"]) > 0): raise AssertionError((len(rows), len(j["rows"])))
for (_, cls, size, dots, medians, head), jr in zip(rows, j["rows"]):
    sw, sh = map(int, size.split("x"))
    if not (sw > 100 and sh > 50): raise AssertionError(size)
    n = jr["base"]["n"] + jr["new"]["n"]
    if not (int(dots) == n): raise AssertionError((head, dots, n))
    if not (int(medians) == (jr["base"]["n"] > 0) + (jr["new"]["n"] > 0)): raise AssertionError((head, medians))
    want = "regression" if jr["regression"] else "improvement" if jr["improvement"] else ""
    got = cls.split(".", 1)[1] if "." in cls else ""
    if not (got == want): raise AssertionError((head, got, want))
verdict = [l for l in res if l.startswith("verdict ")][0]
nreg = sum(r["regression"] for r in j["rows"])
if not (("%d regression" % nreg in verdict) if nreg else ("no regression" in verdict)): raise AssertionError(verdict)
print("%d rows drawn, %d regressions marked" % (len(rows), nreg))
PY
exit 0
