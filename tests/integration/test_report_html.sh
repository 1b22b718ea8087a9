#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The HTML page in a real browser: Debian's headless chromium opens it at
# 1280 px, takes a screenshot, and a copy of the page with a checking script
# appended (the page itself carries no script) reports, after the load
# event, the page's scroll width against the window's, each <img> (loaded,
# natural width > 0) and each chart's inline SVG (its rendered size); the
# result is read back with --dump-dom. A page made 3000 px wide on purpose
# must fail the same check. Also: the summary comes first, the table of
# contents, counters without a value listed and not drawn, and the page
# without gnuplot (tables and a note, exit 0).
source "$(dirname "$0")/lib.sh"
SYNTH="$TOP/tests/integration/synth_results.py"
export IPSECPERF_TEMPLATES=${IPSECPERF_TEMPLATES:-"$TOP/analyze/templates"}
CHROMIUM=$(command -v chromium || command -v chromium-browser) || skip_ours "chromium missing (make deps)"
command -v gnuplot > /dev/null || skip_ours "gnuplot missing (make deps)"
command -v python3 > /dev/null || skip_ours "python3 missing"

browse() { # what page.html args...: chromium, headless, a fresh profile each time
	local what=$1 page=$2 prof
	shift 2
	prof=$(mktemp -d "$TMP/profile.XXXXXX")
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$prof" --window-size=1280,2000 "$@" "file://$page" 2> "$TMP/chromium.err" ||
		{ rc=$?; tail -5 "$TMP/chromium.err" >&2; fail "$what: chromium exit $rc"; }
}

check_page() { # what page.html -> prints "width W 1280", "img ok|broken SRC", "svg WxH"
	local what=$1 page=$2
	cp "$page" "$TMP/check.html"
	cat >> "$TMP/check.html" <<'JS'
<script>
window.addEventListener('load', function () {
	var r = ['width ' + document.documentElement.scrollWidth + ' ' + window.innerWidth];
	document.querySelectorAll('img').forEach(function (i) {
		r.push('img ' + (i.complete && i.naturalWidth > 0 ? 'ok' : 'broken') + ' ' + i.getAttribute('src'));
	});
	document.querySelectorAll('figure svg').forEach(function (s) {
		var b = s.getBoundingClientRect();
		r.push('svg ' + Math.round(b.width) + 'x' + Math.round(b.height));
	});
	var p = document.createElement('pre');
	p.id = 'ipsecperf-check';
	p.textContent = r.join('\n');
	document.body.appendChild(p);
});
</script>
JS
	browse "$what" "$TMP/check.html" --virtual-time-budget=5000 --dump-dom > "$TMP/dom.html"
	python3 - "$TMP/dom.html" <<'PY' || { tail -5 "$TMP/dom.html" >&2; fail "$what: no check result in the DOM"; }
import html, re, sys
m = re.search(r'<pre id="ipsecperf-check">(.*?)</pre>', open(sys.argv[1]).read(), re.S)
sys.exit(1) if not m else print(html.unescape(m.group(1)))
PY
}

assert_fits() { # what result-file nsvg
	local what=$1 res=$2 nsvg=$3
	read -r _ w win < <(grep '^width ' "$res")
	[ -n "$w" ] && [ "$win" = 1280 ] || fail "$what: no width measured"
	[ "$w" -le "$win" ] || fail "$what: the page is $w px wide, the window $win px"
	grep -q '^img broken' "$res" && { grep '^img broken' "$res" >&2; fail "$what: broken image"; }
	[ "$(grep -c '^svg [1-9][0-9]*x[1-9][0-9]*$' "$res")" = "$nsvg" ] ||
		{ cat "$res" >&2; fail "$what: not $nsvg charts rendered with a size"; }
}

# a real directory (TCG, two kernels, counters that are zero or unavailable)
EX="$TOP/results/examples/20261206T075656-vm-two-kernels"
"$IPSECPERF" report -f html -c "$TMP/charts" -o "$TMP/ex.html" "$EX" || fail "html: exit $?"
# without -c the charts are drawn in a folder under TMPDIR (default /tmp),
# removed after: nothing left there (/tmp: a tmpfs of a mount namespace
# of its own, so that only this report's files can be in it)
mkdir "$TMP/tmpdir"
TMPDIR="$TMP/tmpdir" "$IPSECPERF" report -f html -o "$TMP/tmp.html" "$EX" || fail "html without -c: exit $?"
[ -z "$(ls -A "$TMP/tmpdir")" ] || fail "report -f html without -c left behind: $(ls -A "$TMP/tmpdir"/*)"
grep -q '<svg' "$TMP/tmp.html" || fail "html without -c: no charts in the page"
left=$(unshare -m sh -c 'mount -t tmpfs tmpfs /tmp && "$1" report -f html "$2" > /dev/null && find /tmp -mindepth 1' sh "$IPSECPERF" "$EX") ||
	fail "html without -c, in a /tmp of its own: exit $?"
[ -z "$left" ] || fail "report -f html without -c left in /tmp: $left"
nsvg=$(ls "$TMP/charts"/*.svg | wc -l)
[ "$nsvg" -ge 3 ] || fail "html: only $nsvg charts"
browse "screenshot" "$TMP/ex.html" --screenshot="$TMP/shot.png"
python3 - "$TMP/shot.png" <<'PY' || fail "screenshot: not a 1280x2000 PNG with content"
import struct, sys, os
b = open(sys.argv[1], 'rb').read(32)
if not (b[:8] == b'\x89PNG\r\n\x1a\n'): raise AssertionError(b[:8])
w, h = struct.unpack('>II', b[16:24])
if not ((w, h) == (1280, 2000)): raise AssertionError((w, h))
if not (os.path.getsize(sys.argv[1]) > 20000): raise AssertionError(os.path.getsize(sys.argv[1]))
PY
[ -n "${KEEP_SCREENSHOT:-}" ] && cp "$TMP/shot.png" "$KEEP_SCREENSHOT"
check_page "example" "$TMP/ex.html" > "$TMP/res" || exit 1
assert_fits "example" "$TMP/res" "$nsvg"

# the order: summary, contents, figures, charts; the summary's warnings and caution
python3 - "$TMP/ex.html" "$nsvg" <<'PY' || fail "html: structure"
import re, sys
p = open(sys.argv[1]).read()
order = [p.find(s) for s in ('id=summary', '<h2>Contents', 'id=figures', 'id=charts', 'id=text', 'id=provenance')]
if not (all(o > 0 for o in order) and order == sorted(order)): raise AssertionError(order)
summary = p[order[0]:order[1]]
if not ('class=caution' in summary and 'emulated CPU' in summary): raise AssertionError('no TCG caution in the summary')
if not ('accelerator <strong>tcg</strong>' in summary): raise AssertionError
if not (summary.count('class="n warn"') >= 4): raise AssertionError('CV above 5% not highlighted')
if not ('ratio to first' in summary and 'Verdict:' in summary): raise AssertionError
toc = p[order[1]:order[2]]
if not (toc.count('href="#chart-') == int(sys.argv[2])): raise AssertionError(toc)
for i in range(int(sys.argv[2])):
    if not ('id="chart-%d"' % i in p): raise AssertionError
if not (p.count('<figcaption>') == int(sys.argv[2]) and 'accelerator tcg' in p[p.find('<figcaption>'):]): raise AssertionError
PY
for c in "$TMP/charts"/counter-*.dat; do
	awk '!/^#/ { for (i = 2; i <= NF; i++) if ($i != "-" && $i != 0) ok = 1 } END { exit !ok }' "$c" ||
		fail "$c: a counter drawn without a value"
done
# log scale where values span more than 10x (0.009 beside 0.39 Gbit/s)
grep -q '^logscale = 1' "$TMP/charts/throughput.vars.gp" || fail "throughput: no log scale"
[ "$(grep -cv '^#' "$TMP/charts/throughput.runs.dat")" = 64 ] || fail "throughput: not 64 runs as points"

# the check can fail: the same page made 3000 px wide
sed 's|<h1>ipsecperf report</h1>|<h1>ipsecperf report</h1><div style="width:3000px">wide</div>|' \
	"$TMP/ex.html" > "$TMP/wide.html"
check_page "wide" "$TMP/wide.html" > "$TMP/res.wide" || exit 1
read -r _ w _ < <(grep '^width ' "$TMP/res.wide")
[ "$w" -gt 1280 ] || fail "the width check cannot fail ($w px)"

# synthetic results: several kernels and failed runs also fit
python3 "$SYNTH" "$TMP/a" --kernels 6.1.0-28-cloud-amd64,6.12.43+deb12-cloud-amd64,6.18.0-a-rather-long-kernel-release-name \
	--scenarios clear,no-tso,no-gso,esp-null --noisy esp-null --fail no-gso:2 || fail "synth"
"$IPSECPERF" report -f html -c "$TMP/charts-a" -o "$TMP/a.html" "$TMP/a" || fail "synth html: exit $?"
check_page "synthetic" "$TMP/a.html" > "$TMP/res.a" || exit 1
assert_fits "synthetic" "$TMP/res.a" "$(ls "$TMP/charts-a"/*.svg | wc -l)"

# counters without a value in any run: listed with their reason, not drawn
python3 "$SYNTH" "$TMP/b" --kernels 6.18.0-test --scenarios clear,no-gso || fail "synth b"
"$IPSECPERF" report -f html -c "$TMP/charts-b" -o "$TMP/b.html" "$TMP/b" 2> "$TMP/err" || fail "html b: exit $?"
grep -q '<li><strong>esp_output</strong>: unavailable: no ESP in this scenario</li>' "$TMP/b.html" ||
	fail "a counter without value is not listed with its reason"
[ -e "$TMP/charts-b/counter-esp_output.svg" ] && fail "a counter without value is drawn"
[ -s "$TMP/charts-b/counter-xmit_skbs.svg" ] || fail "a counter with values is not drawn"
grep -qi 'warning' "$TMP/err" && { cat "$TMP/err" >&2; fail "gnuplot warned"; }
grep -q '^logscale = 0' "$TMP/charts-b/counter-xmit_skbs.vars.gp" || fail "xmit_skbs: log scale for a narrow range"

# without gnuplot: the page with tables and a note, exit 0
mkdir "$TMP/nobin"
PATH="$TMP/nobin" "$IPSECPERF" report -f html -o "$TMP/nognuplot.html" "$EX" 2> "$TMP/err" ||
	{ rc=$?; cat "$TMP/err" >&2; fail "no gnuplot: exit $rc"; }
grep -q 'gnuplot not found' "$TMP/err" || fail "no gnuplot: no warning"
grep -q 'No charts: gnuplot was not found' "$TMP/nognuplot.html" || fail "no gnuplot: no note in the page"
grep -q '<svg' "$TMP/nognuplot.html" && fail "no gnuplot: charts?"
# the same tables as the page with charts, cell for cell
cells() { grep -o '<td class=n>[^<]*</td>' "$1"; }
[ "$(cells "$TMP/ex.html" | wc -l)" -gt 10 ] && [ "$(cells "$TMP/ex.html")" = "$(cells "$TMP/nognuplot.html")" ] ||
	fail "no gnuplot: not the tables of the page with charts"
check_page "no gnuplot" "$TMP/nognuplot.html" > "$TMP/res.nog" || exit 1
assert_fits "no gnuplot" "$TMP/res.nog" 0
exit 0
