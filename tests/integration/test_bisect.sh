#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# ipsecperf bisect on a real kernel tree: a git repository of the 6.12
# source with four commits on top, the second of which is the deliberate
# slowdown of test_kernel_patched.sh (kernel-patches/esp4-busywait.patch,
# a busy-wait in every esp_output); bisect --good BASE --bad C4 names that
# commit, with a report row (medians, verdict, p-value) per step, each
# step's runs interleaved with the good kernel's in one run (both
# releases in its records), and leaves the tree as it found it: HEAD,
# branch and status as before, no bisect in progress, nothing in TMPDIR
# or the journal folder, no git, make or qemu running. First, Ctrl-C
# during a build (--no-cache, so that there is one): the same. Last, a
# side branch whose first commit breaks esp4.c and whose second (the bad
# revision) mends it: that step does not build and is skipped, and only
# skipped revisions are left: exit 1, the report names both.
#
# Every step's build is kept in the bisect cache ($KTREE_CACHE/bisect-kernels):
# on a machine that ran this test before, the bisects build nothing
# ("cached build of"), and cost their VM runs and the broken step's make.
#
# Cheap enough to run: the repository is the source hard-linked (cp -al)
# with one commit, cached beside it; its build/ folder is a copy (cp -a,
# mtimes kept) of the base build, which sits inside its tree so kbuild
# names the source "..": each step rebuilds esp4.o and relinks. git
# rewrites only the files a checkout changes; the others keep the mtimes
# that make trusts.
#
# The steps run on the virtual clock (bisect's --clock auto, where KVM
# cannot run guests): qemu counts instructions, a run's figures do not
# move with this host's load, and the test needs no quiet host. Under the
# real clock it did: beside other tests' guests a step once judged the
# busy-wait commit good at p = 0.34. Where KVM runs guests the steps run
# on the real clock, and the verdicts below may fail by chance
# (docs/testing.md, "Speed assertions").
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vm_lib.sh"
. "$(dirname "$0")/kernel_lib.sh"

command -v git > /dev/null || skip_ours "git missing"
kb=$(ktree_base) || fail "the tests' kernel could not be built"
REPO="$KTREE_CACHE/src/linux-6.12-git" # the source as a git repository (cached)
BUILD="$REPO/build"                    # a copy of the base build that the steps rebuild (cached)
BRANCH=ipsecperf-bisect-test
SLOW="$TOP/tests/integration/kernel-patches/esp4-busywait.patch"
# its busy loop's turns (two instructions each: 1 ns each on the virtual clock)
turns=$(sed -n 's/^+.*unsigned long n = \([0-9]*\);.*/\1/p' "$SLOW")
[ -n "$turns" ] || fail "no busy loop (unsigned long n = TURNS) in $SLOW"
delay=$((turns * 2 / 1000))

# The repository and the build folder are made under kernel_lib.sh's lock,
# as its kernels are; the bisects after them need it no more (their builds
# are in the repository's own build folder, under bisect's own lock), so
# that the tests beside this one get their kernels meanwhile.
exec 8> "$KTREE_CACHE/build.lock"
flock 8

# no automatic gc: git would detach one to pack the fresh repository, and leave it running
git() { command git -c gc.auto=0 -c user.name=ipsecperf -c user.email=ipsecperf@localhost "$@"; }
export IPSECPERF_BISECT_CACHE="$KTREE_CACHE/bisect-kernels"
# The repository: the source with one commit, made once (a minute or two).
if [ "$(git -C "$REPO" log --format=%s --reverse 2> /dev/null | head -1)" != linux-source-6.12 ]; then
	info "making $REPO (once)"
	rm -rf "$REPO" "$REPO.part"
	cp -al "$KSRC" "$REPO.part" && rm -rf "$REPO.part/build" "$REPO.part/.ipsecperf-unpacked" ||
		fail "cp -al $KSRC"
	# Debian's .gitignore ignores the top level: -f takes every file
	git -C "$REPO.part" init -q -b base && git -C "$REPO.part" add -A -f . &&
		git -C "$REPO.part" commit -q -m linux-source-6.12 || fail "cannot make the repository"
	mv "$REPO.part" "$REPO"
fi
# cp -al of the source (here, ktree_variant) changes every file's ctime:
# without this, each git command after one would read the whole tree again
git -C "$REPO" config core.trustctime false
# a bisect or a branch that a killed earlier run left
[ -e "$REPO/.git/BISECT_START" ] && git -C "$REPO" bisect reset > /dev/null 2>&1
base=$(git -C "$REPO" rev-list --max-parents=0 HEAD) || fail "no first commit in $REPO"
git -C "$REPO" checkout -q -f base || fail "cannot check out base"

# The build folder: a copy of the base build, made again when that changed.
stamp="$(stat -c %Y "$kb/arch/x86/boot/bzImage") $(sha256sum < "$kb/.config")"
if [ "$(cat "$BUILD/.ipsecperf-bisect-base" 2> /dev/null)" != "$stamp" ]; then
	info "copying $kb to $BUILD"
	rm -rf "$BUILD" "$BUILD.part"
	# under the lock kernel build takes: no build writes the base meanwhile
	flock "$kb/ipsecperf-build.lock" cp -a "$kb" "$BUILD.part" || fail "cp -a $kb $BUILD"
	# objtool's and resolve_btfids' commands name the source and build
	# folders by their paths: as they were, make would take them for
	# changed, rebuild both tools and then every object that they process
	find "$BUILD.part/tools" -name '.*.cmd' -exec sed -i "s|$KSRC/|$REPO/|g" {} + ||
		fail "cannot move the tools' commands to $REPO"
	mv "$BUILD.part" "$BUILD" && echo "$stamp" > "$BUILD/.ipsecperf-bisect-base" || fail "mv $BUILD.part"
fi
ktree_drop_vmlinux_o "$BUILD"
flock -u 8
exec 8>&-

# Four commits on a fresh branch; files are written anew, never in place
# (the repository's files are hard links of the source's).
esp=net/ipv4/esp4.c
commit() { # message: commit $esp.new as $esp
	mv "$REPO/$esp.new" "$REPO/$esp" && git -C "$REPO" commit -q -a -m "$1" > /dev/null ||
		fail "cannot commit '$1'"
	git -C "$REPO" rev-parse HEAD
}
git -C "$REPO" checkout -q -B "$BRANCH" "$base" || fail "cannot make branch $BRANCH"
cleanup_repo() {
	[ -e "$REPO/.git/BISECT_START" ] && git -C "$REPO" bisect reset > /dev/null 2>&1
	git -C "$REPO" checkout -q -f base && git -C "$REPO" branch -q -D "$BRANCH" "$BRANCH-broken"
}
trap 'cleanup_repo; rm -rf "$TMP"' EXIT
sed '1a /* bisect test: a harmless comment (1) */' "$REPO/$esp" > "$REPO/$esp.new"
c1=$(commit "esp4: a harmless comment (1)")
patch -s -o "$REPO/$esp.new" "$REPO/$esp" < "$SLOW" || fail "$SLOW does not apply"
c2=$(commit "esp4: busy-wait $delay us in every esp_output")
sed '1a /* bisect test: a harmless comment (3) */' "$REPO/$esp" > "$REPO/$esp.new"
c3=$(commit "esp4: a harmless comment (3)")
sed '1a /* bisect test: a harmless comment (4) */' "$REPO/$esp" > "$REPO/$esp.new"
c4=$(commit "esp4: a harmless comment (4)")
info "good $base, bad $c4, the slowdown $c2"
# A side branch: b1 does not build (esp4.c), b2, the bad revision, mends it.
git -C "$REPO" checkout -q -B "$BRANCH-broken" "$base" || fail "cannot make branch $BRANCH-broken"
sed '1a #error "bisect test: this revision does not build"' "$REPO/$esp" > "$REPO/$esp.new"
b1=$(commit "esp4: does not build")
sed '2d' "$REPO/$esp" > "$REPO/$esp.new"
b2=$(commit "esp4: builds again")
git -C "$REPO" checkout -q "$BRANCH" || fail "cannot check out $BRANCH"

# The tree as a bisect must leave it.
tree_state() {
	git -C "$REPO" rev-parse HEAD
	git -C "$REPO" symbolic-ref HEAD
	git -C "$REPO" status --porcelain --untracked-files=no
	[ -e "$REPO/.git/BISECT_START" ] && echo "bisecting"
	git -C "$REPO" for-each-ref refs/bisect/
}
tree_state > "$TMP/tree.before"
assert_tree() { # what
	tree_state > "$TMP/tree.after"
	diff -u "$TMP/tree.before" "$TMP/tree.after" >&2 || fail "$1: the tree is not as it was (diff above)"
	assert_vm_clean "$1"
}

# Every process whose working folder is in the repository (make, the compilers).
in_repo() {
	local p
	for p in /proc/[0-9]*; do
		case $(readlink "$p/cwd" 2> /dev/null) in "$REPO" | "$REPO"/*) echo "${p#/proc/} $(tr '\0' ' ' < "$p/cmdline")" ;; esac
	done
}
# 4 runs a revision reach p = 0.029 < 0.05 (Mann-Whitney's least: every run of
# one kernel beside every run of the other). On the virtual clock a
# kernel's repeats lie within 0.5% of each other (but for about one
# esp-null run in ten, 8-10% faster in a mode of TCP's ACKs): bisect's default
# threshold, 5%, parts the harmless commits (0%) from the busy-wait (-96%);
# 1 s windows, no warm-up.
bisect_args=(bisect --good "$base" --bad "$c4" -O "$BUILD" --repeat 4 --duration 1 --omit 0
	--no-probes "$REPO" esp-null)
# what no bisect may leave running: a build, a qemu of this test, a git or make in the repository
left_running() {
	pgrep -af "O=$BUILD|qemu-system.*$TMP" || true
	in_repo
}

# Ctrl-C while the good revision builds: the tree reset, nothing left.
"$IPSECPERF" "${bisect_args[@]}" --no-cache -o "$TMP/stopped" > "$TMP/stop.out" 2> "$TMP/stop.err" &
pid=$!
for _ in $(seq 600); do
	grep -q "building" "$TMP/stop.err" && break
	kill -0 $pid 2> /dev/null || break
	sleep 0.1
done
grep -q "building" "$TMP/stop.err" || { cat "$TMP/stop.err" >&2; fail "the bisect never started a build"; }
sleep 3
pgrep -f "O=$BUILD" > /dev/null || info "(no make running at the signal)"
kill -INT $pid
t0=$(date +%s)
wait $pid
rc=$?
info "stopped in $(($(date +%s) - t0)) s"
cat "$TMP/stop.err" >&2
[ $rc = 130 ] || fail "after SIGINT the bisect exited $rc, not 130"
grep -q "stopped by signal 2; the tree is back at $BRANCH" "$TMP/stop.err" || fail "no stop message"
sleep 1
left=$(left_running)
[ -z "$left" ] || fail "after SIGINT, left running: $left"
assert_tree "after SIGINT"

# The bisect: it names c2.
t0=$(date +%s)
"$IPSECPERF" "${bisect_args[@]}" -o "$TMP/out" > "$TMP/stdout" 2> "$TMP/stderr"
rc=$?
total=$(($(date +%s) - t0))
cat "$TMP/stderr" >&2
cat "$TMP/stdout" >&2
[ $rc = 0 ] || fail "bisect exited $rc"
assert_tree "after the bisect"
left=$(left_running)
[ -z "$left" ] || fail "after the bisect, left running: $left"
c2short=$(git -C "$REPO" rev-parse --short=12 "$c2")
grep -q "^first bad commit: $c2short esp4: busy-wait $delay us in every esp_output\$" "$TMP/stdout" ||
	fail "the bisect did not name $c2short"
cmp -s <(sed -n '/^ipsecperf bisect:/,$p' "$TMP/stdout" | sed '/^report and each step/,$d' | sed '$d') \
	"$TMP/out/report.txt" || fail "report.txt is not the report printed"
awk 'length > 80 { print; bad = 1 } END { exit bad }' "$TMP/out/report.txt" >&2 ||
	fail "the report has lines over 80 columns"
python3 - "$TMP/out" "$c1" "$c2" "$c3" "$c4" "$base" "$IPSECPERF_BISECT_CACHE" << 'PY' || fail "the steps are not right (above)"
import json, os, sys
out, c1, c2, c3, c4, base, cache = sys.argv[1:]
steps = [json.loads(l) for l in open(os.path.join(out, "steps.jsonl"))]
def kernel(s):  # a build from the cache (or made and kept there), its release following its tree
    if not (s["release"].endswith("-bisect-" + s["tree"][:12])): raise AssertionError(s)
    if not (os.path.dirname(s["kernel"]) == cache and os.path.basename(s["kernel"]).startswith(s["tree"])): raise AssertionError(s)
    if not (s["cached"] or os.path.exists(os.path.join(s["dir"], "build.log"))): raise AssertionError(s)
    return "cached" if s["cached"] else f"built in {s['build_s']:.0f} s"
g = steps[0]
if not (g["step"] == 0 and g["sha"] == base and g["verdict"] == "good" and "run_s" not in g): raise AssertionError(g)
print(f"  good revision: {kernel(g)}", file=sys.stderr)
tested = steps[1:]
if not (1 <= len(tested) <= 3): raise AssertionError([s["short"] for s in tested])
want = {c1: "good", c2: "bad", c3: "bad", c4: "bad"}
for s in tested:
    if not (s["verdict"] == want[s["sha"]]): raise AssertionError((s["short"], s["subject"], s["verdict"], s.get("why")))
    f = s["figures"]
    if not (len(f) == 1 and f[0]["scenario"] == "esp-null" and f[0]["metric"] == "throughput"): raise AssertionError(f)
    if not (isinstance(f[0]["p"], float) and f[0]["good"] > 0 and f[0]["this"] > 0): raise AssertionError(f)
    if s["verdict"] == "bad":
        if not (f[0]["p"] < 0.05 and f[0]["change_pct"] < -50): raise AssertionError(f)
    # the clock each step's runs were on: virtual where KVM cannot run guests
    clocks = {json.loads(l).get("clock") for l in open(os.path.join(s["dir"], "results", "runs.jsonl"))}
    if not (len(clocks) == 1 and clocks <= {"virtual", "real"}): raise AssertionError(clocks)
    print(f"  step {s['step']}: the {clocks.pop()} clock", file=sys.stderr)
    for d in ("run.log", "compare.txt", "results/runs.jsonl"):
        if not (os.path.exists(os.path.join(s["dir"], d))): raise AssertionError((s["dir"], d))
    built = kernel(s)
    # one run of both kernels, booted in turn: good, this, good, this, ...
    res = os.path.join(s["dir"], "results")
    recs = [json.loads(l) for l in open(os.path.join(res, "runs.jsonl"))]
    for rel in (g["release"], s["release"]):
        if not (sum(r["kernel"] == rel and r["status"] == "ok" for r in recs) == 4): raise AssertionError((rel, recs))
    boots = [v["release"] for v in json.load(open(os.path.join(res, "meta.json")))["vm"]]
    if not (boots == [g["release"], s["release"]] * 4): raise AssertionError(boots)
    print(f"  step {s['step']} {s['short']} {s['verdict']}: {f[0]['good']:.4f} -> {f[0]['this']:.4f} Gbit/s "
          f"({f[0]['change_pct']:+.1f}%), p {f[0]['p']:.4f}; {built}, run {s['run_s']:.0f} s",
          file=sys.stderr)
if not (c2 in {s["sha"] for s in tested} or c3 in {s["sha"] for s in tested}): raise AssertionError
PY
# one report row per step, each with its verdict and p-value
n=$(wc -l < "$TMP/out/steps.jsonl")
[ "$(grep -cE '^ +[1-9][0-9]* [0-9a-f]{12} esp-null +[0-9.]+ +[0-9.]+ +[-+][0-9.]+% +[0-9.]+  (good|bad)$' \
	"$TMP/out/report.txt")" = $((n - 1)) ] || fail "the report does not have a row with p and verdict per step"
[ -s "$TMP/out/git-bisect.log" ] || fail "no git-bisect.log"
info "bisect: $((n - 1)) steps after the good revision, $total s in all"

# Only skipped revisions left: b1 does not build (git skips it), b2 is the bad revision.
t0=$(date +%s)
"$IPSECPERF" "${bisect_args[@]/#$c4/$b2}" -o "$TMP/skipped" > "$TMP/skipped.out" 2> "$TMP/skipped.err"
rc=$?
cat "$TMP/skipped.err" "$TMP/skipped.out" >&2
[ $rc = 1 ] || fail "the bisect with only skipped revisions left exited $rc, not 1"
assert_tree "after the bisect with only skipped revisions left"
left=$(left_running)
[ -z "$left" ] || fail "after the bisect with only skipped revisions left, left running: $left"
b1short=$(git -C "$REPO" rev-parse --short=12 "$b1") b2short=$(git -C "$REPO" rev-parse --short=12 "$b2")
grep -q "^bisect: the good revision, .*: cached build of " "$TMP/skipped.err" ||
	fail "the good revision's build was not taken from the cache"
grep -q "^git bisect skip $b1\$" "$TMP/skipped/git-bisect.log" || fail "git did not skip $b1short"
assert_records --arg b1 "$b1" "$TMP/skipped/steps.jsonl" \
	'len(rs) == 2 and rs[1]["sha"] == b1 and rs[1]["verdict"] == "skip" and
	 rs[1]["why"].startswith("the build failed")' "the step on $b1short is not a skip for its build"
grep -q "bisect test: this revision does not build" "$TMP/skipped/step1-$b1short/build.log" ||
	fail "the build log of $b1short does not say why"
grep -q "^no first bad commit: only skipped revisions are left (git bisect run exited 2)\$" "$TMP/skipped.out" &&
	grep -q "^it is one of these 2:\$" "$TMP/skipped.out" &&
	grep -qE "^  $b1short esp4: does not build +skip\$" "$TMP/skipped.out" &&
	grep -qE "^  $b2short esp4: builds again +bad \(--bad\)\$" "$TMP/skipped.out" ||
	fail "the report does not name $b1short and $b2short as what the first bad commit may be"
info "bisect with only skipped revisions left: $(($(date +%s) - t0)) s"
exit 0
