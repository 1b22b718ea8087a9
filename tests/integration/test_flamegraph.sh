#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Flame graphs drawn by ipsecperf (report --profile -f svg, and the HTML
# report's section), on the committed profiled VM runs:
# - the SVG parses as XML, carries one script (ours) and no external reference;
# - a single graph: each function's frames add up to its cycles per byte in
#   report --profile -f json, the root to the scenario's, widths in
#   proportion to the values;
# - the differential graph and the text's difference table come from the
#   same numbers: for every row of the difference (gains and losses), the
#   frames of that function add up to the row's two figures, on both sides;
#   functions of one side only are marked, and only they; the same for one
#   kernel against another (the run copied as a second kernel, its stacks
#   changed);
# - hostile function names (quotes, <script>, an element with a handler,
#   a 3000-character name) stay attribute values and text;
# - bad usage: one line, exit 2.
source "$(dirname "$0")/lib.sh"
command -v python3 > /dev/null || skip_ours "python3 missing"
EX="$TOP/results/examples/20261206T081450-vm-profile-nogso-esp-6.1"
[ -d "$EX" ] || fail "$EX missing"
cd "$TMP" || fail "cd"

svg() { # out args...: report --profile -f svg, checked to exit 0
	local out=$1
	shift
	"$IPSECPERF" report --profile -f svg -o "$out" "$@" 2> "$TMP/err" || { cat "$TMP/err" >&2; fail "svg $*: failed"; }
}
json() { # out args...
	local out=$1
	shift
	"$IPSECPERF" report --profile -f json --top 10000 --folded "$TMP" "$@" > "$out" 2> "$TMP/err" ||
		{ cat "$TMP/err" >&2; fail "json $*: failed"; }
}

svg one.svg --scenario esp-null "$EX"
json all.json --base no-gso "$EX"
svg diff.svg --base no-gso --scenario esp-null "$EX"

cat > "$TMP/check.py" <<'PY'
import json, math, sys
import xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"

def frames(path):
    root = ET.parse(path).getroot()  # raises on XML that does not parse
    scripts = root.findall(".//" + NS + "script")
    if not (len(scripts) == 1): raise AssertionError("%s: %d scripts" % (path, len(scripts)))
    text = open(path).read()
    for bad in ("href=", "src=", "url(http", "@import"):
        if not (bad not in text): raise AssertionError((path, bad))
    out = []
    for g in root.iter(NS + "g"):
        if g.get("class") != "f":
            continue
        r = g.find(NS + "rect")
        out.append(dict(n=g.get("data-n"), k=g.get("data-k"), d=int(g.get("data-d")), v=float(g.get("data-v")),
                        sv=float(g.get("data-sv")), b=float(g.get("data-b", "nan")), sb=float(g.get("data-sb", "nan")),
                        only=g.get("data-only"), w=float(r.get("width")), x=float(r.get("x"))))
    return root, out

def close(a, b, what):
    if not (abs(a - b) <= 1e-5 * max(1.0, abs(a), abs(b))): raise AssertionError("%s: %r != %r" % (what, a, b))

def close_px(a, b, what, tol=0.0006):  # the SVG's coordinates have 3 decimals
    if not (abs(a - b) <= tol): raise AssertionError("%s: %r != %r px" % (what, a, b))

def per_function(fs, key):
    s = {}
    for f in fs:
        if f["d"] >= 2:
            k = (f["n"], f["k"] == "k")
            s[k] = s.get(k, 0.0) + f[key]
    return s

def check_single(path, group):
    root, fs = frames(path)
    top = fs[0]
    if not (top["d"] == 0 and top["n"] == "all"): raise AssertionError
    close(top["v"], group["cycles_per_byte"], "root against the group's cycles/byte")
    if not ("cycles/byte" in ET.tostring(root, encoding="unicode")): raise AssertionError("no unit in the title")
    sv = per_function(fs, "sv")
    if not (group["top"]): raise AssertionError("no top functions")
    for f in group["top"]:
        close(sv[(f["function"], f["kernel"])], f["cycles_per_byte"], f["function"])
    # widths in proportion to the values (on a scale read off the root's
    # rounded width); every frame's children within it
    scale = top["w"] / top["v"]
    for f in fs:
        close_px(f["w"], f["v"] * scale, "width of " + f["n"], 0.0011)
    close(sum(f["sv"] for f in fs), top["v"], "the self values add up to the whole")
    return len(fs)

def check_diff(path, diff, side_names):
    root, fs = frames(path)
    sv, sb = per_function(fs, "sv"), per_function(fs, "sb")
    rows = diff["gains"] + diff["losses"]
    if not (len(rows) >= 5): raise AssertionError("too few rows to compare")
    for r in rows:
        k = (r["function"], r["kernel"])
        close(sv.get(k, 0.0), r["cycles_per_byte"], "new side of " + r["function"])
        close(sb.get(k, 0.0), r["base_cycles_per_byte"], "base side of " + r["function"])
    close(fs[0]["v"], diff["cycles_per_byte"], "new side's whole")
    close(fs[0]["b"], diff["base_cycles_per_byte"], "base side's whole")
    # marked one-sided: exactly the names with samples on one side only
    on = {}
    for f in fs:
        o = on.setdefault(f["n"], [False, False])
        o[0] |= f["b"] > 0
        o[1] |= f["v"] > 0
    marked = 0
    for f in fs:
        o = on[f["n"]]
        want = "base" if o[0] and not o[1] else "new" if o[1] and not o[0] else None
        if not (f["only"] == want): raise AssertionError((f["n"], f["only"], want))
        marked += want is not None
    if not (marked > 0): raise AssertionError("no frame of one side only")
    t = ET.tostring(root, encoding="unicode")
    for s in side_names:
        if not ("only in " + s in t): raise AssertionError("legend: only in " + s)
    if not ("change in cycles/byte" in t): raise AssertionError("no colour scale legend")
    # widths: the two sides together, on a scale read off the root's
    # rounded width (its 0.0005 px of rounding, scaled, comes on top)
    scale = fs[0]["w"] / (fs[0]["v"] + fs[0]["b"])
    for f in fs:
        close_px(f["w"], (f["v"] + f["b"]) * scale, "width of " + f["n"], 0.0011)
    return len(fs), marked

what = sys.argv[1]
j = json.load(open(sys.argv[3]))
if what == "single":
    g = [g for g in j["groups"] if g["scenario"] == sys.argv[4]][0]
    print("single: %d frames agree" % check_single(sys.argv[2], g))
else:
    d = [d for d in j["diffs"] if d["scenario"] == sys.argv[4] and d["kernel"] == sys.argv[5]][0]
    sides = (d["base_kernel"], d["kernel"]) if d["scenario"] == d["base_scenario"] else (d["base_scenario"], d["scenario"])
    print("diff: %d frames, %d one-sided, %d rows agree" % (check_diff(sys.argv[2], d, sides) + (len(d["gains"]) + len(d["losses"]),)))
PY
# the single graph's numbers: the top table with every function
json top.json "$EX"
python3 "$TMP/check.py" single one.svg top.json esp-null >&2 || fail "single graph against the text"
python3 "$TMP/check.py" diff diff.svg all.json esp-null 6.1.0-57-cloud-amd64 >&2 || fail "difference against the text"
# the text table's own rows (not JSON) carry the same figures: its first gain row
row=$("$IPSECPERF" report --profile --base no-gso --folded "$TMP" "$EX" | sed -n '/^esp-null against no-gso/,/^$/p' | sed -n 3p)
read -r base new gain fn _ <<< "$row"
python3 - diff.svg "$fn" "$base" "$new" <<'PY' || fail "the text's first row ($row) and the picture differ"
import sys, xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
sv = sb = 0.0
for g in ET.parse(sys.argv[1]).getroot().iter(NS + "g"):
    if g.get("class") == "f" and g.get("data-n") == sys.argv[2] and int(g.get("data-d")) >= 2:
        sv += float(g.get("data-sv")); sb += float(g.get("data-sb"))
if not ("%.3f" % sb == sys.argv[3] and "%.3f" % sv == sys.argv[4]): raise AssertionError((sb, sv, sys.argv[2:]))
PY

# one kernel against another: the run copied as kernel "6.1.0-57-other", with memmove's stacks left out
python3 - "$EX" "$TMP/k2" <<'PY' || fail "second kernel"
import json, os, shutil, sys
src, dst = sys.argv[1], sys.argv[2]
shutil.copytree(src, dst)
old, new = "6.1.0-57-cloud-amd64", "6.1.0-57-other"
os.rename(os.path.join(dst, "raw", old), os.path.join(dst, "raw", new))
for f in os.listdir(os.path.join(dst, "raw", new)):
    if f.endswith(".folded"):
        p = os.path.join(dst, "raw", new, f)
        lines = [l for l in open(p) if ";memmove_[k] " not in l]
        open(p, "w").writelines(lines)
runs = [json.loads(l) for l in open(os.path.join(dst, "runs.jsonl"))]
with open(os.path.join(dst, "runs.jsonl"), "w") as f:
    for r in runs:
        r["kernel"] = new
        f.write(json.dumps(r) + "\n")
m = json.load(open(os.path.join(dst, "meta.json")))
for k in m["kernels"]:
    k["release"] = new
json.dump(m, open(os.path.join(dst, "meta.json"), "w"))
PY
json k.json --base-kernel 6.1.0-57-cloud-amd64 "$EX" "$TMP/k2"
svg k.svg --base-kernel 6.1.0-57-cloud-amd64 --scenario esp-null "$EX" "$TMP/k2"
python3 "$TMP/check.py" diff k.svg k.json esp-null 6.1.0-57-other >&2 || fail "kernel difference against the text"
python3 - k.svg <<'PY' || fail "memmove not marked as the base kernel's only"
import sys, xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
m = [g.get("data-only") for g in ET.parse(sys.argv[1]).getroot().iter(NS + "g") if g.get("data-n") == "memmove"]
if not (m and set(m) == {"base"}): raise AssertionError(m)
PY

# hostile names: a copy of the run with three more stacks
cp -r "$EX" "$TMP/h"
long=$(printf 'x%.0s' $(seq 3000))
for f in "$TMP"/h/raw/*/esp-null-r*-profile.folded; do
	cat >> "$f" <<EOF
iperf3;entry_SYSCALL_64_[k];"><script>window.pwned=1</script>_[k] 400
iperf3;it's "quoted" & <b>bold</b> 300
iperf3;<img src=x onerror=window.pwned=1>;${long}_[k] 200
EOF
done
svg h.svg --scenario esp-null "$TMP/h"
python3 - h.svg "$long" <<'PY' || fail "hostile names"
import sys, xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
if not (len(root.findall(".//" + NS + "script")) == 1): raise AssertionError("a name became a script")
if not (not root.findall(".//" + NS + "img") and not root.findall(".//img") and not root.findall(".//b")): raise AssertionError
names = {g.get("data-n") for g in root.iter(NS + "g")}
for n in ('"><script>window.pwned=1</script>', "it's \"quoted\" & <b>bold</b>", "<img src=x onerror=window.pwned=1>"):
    if not (n in names): raise AssertionError(n)
longs = [n for n in names if n and n.startswith("xxxx")]
if not (len(longs) == 1 and len(longs[0]) == 500 and longs[0].endswith("...")): raise AssertionError([len(n) for n in longs])
for t in root.iter(NS + "text"):
    if not (len(t.text or "") < 200): raise AssertionError("a label longer than its frame")
PY

# bad usage: one line, exit 2
bad() { # what args...
	local what=$1 rc=0
	shift
	"$IPSECPERF" report --profile "$@" > /dev/null 2> "$TMP/err" || rc=$?
	[ "$rc" = 2 ] || fail "$what: exit $rc, not 2"
	[ "$(wc -l < "$TMP/err")" = 1 ] || { cat "$TMP/err" >&2; fail "$what: not one line"; }
}
bad "-o without -f svg" -o x.svg "$EX"
bad "an unprofiled scenario" -f svg --scenario clear "$EX"
bad "the base itself" -f svg --base no-gso --scenario no-gso "$EX"
bad "an unknown base" -f svg --base clear "$EX"
[ -e x.svg ] && fail "a refused command wrote its file"
exit 0
