#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# run --profile on the netns testbed (clear and no-gso, 2 s each): a profile
# in every record with kernel functions, shares that add up to at most
# 100%, folded stacks whose counts match the samples, no perf left behind;
# then report --profile: top tables, the difference table, folded files.
. "$(dirname "$0")/lib.sh"

command -v perf > /dev/null || skip_ours "perf not installed (apt-get install linux-perf)"
perf record -a -e cpu-clock -o /dev/null -- true > /dev/null 2>&1 ||
	skip "perf record -a -e cpu-clock does not work here"

# Other tests may run beside this one (a shared host): look for what this
# run made (its namespaces, its perf), not at the whole host.
out="$TMP/res"
"$IPSECPERF" run --quiet --profile --duration 2 --omit 1 --repeat 1 -o "$out" clear no-gso \
	> "$TMP/stdout" 2> "$TMP/stderr" &
pid=$!
wait $pid || { rc=$?; cat "$TMP/stderr" >&2; fail "run --profile exited $rc"; }
ip netns list | grep -q "^ipsecperf-$pid-" && fail "the run left its namespaces behind"
pgrep -f "$out/raw" > /dev/null && fail "a perf record of this run is still running"
ls /tmp/ipsecperf-profile-* > /dev/null 2>&1 && info "note: /tmp/ipsecperf-profile-* exist (another run's, or left behind)"

python3 - "$out" <<'EOF' || fail "profile in the records (see above)"
import os, sys
from assert_json import records
out = sys.argv[1]
for r in records(os.path.join(out, "runs.jsonl")):
    name = "%s-r%d" % (r["scenario"], r["repeat"])
    if not (r["status"] == "ok"): raise AssertionError((name, r.get("reason")))
    p = r["profile"]
    if not (p["status"] == "ok"): raise AssertionError((name, p.get("reason")))
    if not (p["event"] == "cpu-clock" and p["hz"] > 0): raise AssertionError(name)
    if not (p["busy_samples"] > 0 and p["samples"] >= p["busy_samples"]): raise AssertionError((name, p))
    top = p["top"]
    if not (top): raise AssertionError(name + ": no functions")
    if not (any(f["kernel"] for f in top)): raise AssertionError(name + ": no kernel function in the top")
    total = sum(f["share"] for f in top)
    if not (0 < total <= 1.0 + 1e-9): raise AssertionError((name, total))
    for f in top:
        if not (0 <= f["share"] <= f["total_share"] <= 1.0 + 1e-9): raise AssertionError((name, f))
        cpb = r["cycles_per_byte"] * f["share"]
        if not (abs(f["cycles_per_byte"] - cpb) <= 1e-6 * max(1, cpb)): raise AssertionError((name, f))
    folded = os.path.join(out, p["folded"])
    count = 0
    for l in open(folded):
        stack, n = l.rstrip("\n").rsplit(" ", 1)
        count += int(n)
    if not (count == p["samples"]): raise AssertionError((name, count, p["samples"]))
    if not ("_[k]" in open(folded).read()): raise AssertionError(name + ": no kernel frame in the folded stacks")
    if not (not os.path.exists(os.path.join(out, "raw", name + "-perf.data"))): raise AssertionError(name + ": perf.data left")
    # the samples cover the measured window, not the warm-up: about hz per busy CPU second
    if not (p["busy_s_sampled"] <= r["cpu_busy_s"]["total"] * 1.5 + 0.5): raise AssertionError((name, p["busy_s_sampled"]))
EOF

"$IPSECPERF" report --profile --folded "$TMP" "$out" > "$TMP/report" 2> "$TMP/report.err" ||
	{ rc=$?; cat "$TMP/report.err" >&2; fail "report --profile exited $rc"; }
grep -q '^clear: 1 run' "$TMP/report" || fail "no top table for clear"
grep -q '^no-gso against clear' "$TMP/report" || fail "no difference table no-gso against clear"
[ -s "$TMP/profile-clear.folded" ] && [ -s "$TMP/profile-no-gso.folded" ] || fail "merged folded stacks missing"
"$IPSECPERF" report --profile --base no-gso "$out" | grep -q '^clear against no-gso' ||
	fail "--base no-gso not honoured"
"$IPSECPERF" report --profile --help | grep -q '^usage: ipsecperf report --profile' ||
	fail "report --profile --help does not print the profile page"
"$IPSECPERF" report --profile --base nosuch "$out" > /dev/null 2>&1
[ $? = 2 ] || fail "--base with an unknown scenario must exit 2"

# two kernels side by side: the same records under another kernel name
python3 - "$out" "$TMP/res2" <<'EOF'
import json, os, shutil, sys
src, dst = sys.argv[1], sys.argv[2]
shutil.copytree(src, dst)
with open(os.path.join(dst, "runs.jsonl"), "w") as f:
    for line in open(os.path.join(src, "runs.jsonl")):
        r = json.loads(line)
        r["kernel"] = "other-kernel"
        f.write(json.dumps(r) + "\n")
EOF
k=$(json_values "$out/runs.jsonl" 'r["kernel"]' | head -1)
"$IPSECPERF" report --profile --base-kernel "$k" --folded "$TMP" "$out" "$TMP/res2" > "$TMP/report2" ||
	fail "report --profile --base-kernel exited $?"
grep -q "^clear on other-kernel against $k" "$TMP/report2" || fail "no kernel difference table"
[ -s "$TMP/profile-other-kernel-clear.folded" ] || fail "no folded stacks per kernel and scenario"
exit 0
