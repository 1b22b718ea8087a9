#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# ipsecperf bisect without kernels, in seconds: a git repository whose
# Makefile stands in for a kernel's (it "builds" bzImage, vmlinux, a
# module and kernel.release into O=, and fails where a file BROKEN is).
# Its history: base (good), e1 (an empty commit: base's tree), b1 (does
# not build), b2 (builds again; bad). So:
# - the good revision is built once and kept in the cache (its tree, its
#   .config): a second bisect takes it ("cached build of <tree>"), without
#   a make; --no-cache builds it anew; an entry whose bzImage changed, or
#   that holds a file its manifest does not name, is not taken but built
#   again; only the last $IPSECPERF_BISECT_CACHE_KEEP entries used stay,
#   and a half-made entry of a process that is gone is removed;
# - e1 has the good revision's tree: judged good, neither built nor run;
#   as the bad revision of a bisect from base, git names it untested and
#   the bisect measures it: no worse, nothing to bisect (exit 1);
# - b1 does not build: its step exits 125 and git skips it;
# - then only skipped revisions are left: bisect exits 1 and its report
#   names the two the first bad commit may be (b1 skip, b2 bad (--bad));
# - every git the bisect runs has gc.auto=0 (its own, seen through a
#   wrapper first in PATH; its steps', from their environment), and no
#   git is left running in the tree; the tree is as it was found.
. "$(dirname "$0")/lib.sh"

command -v git > /dev/null || skip_ours "git missing"
[ -x "$IPSECPERF" ] || fail "$IPSECPERF is missing: run make"
cp "$IPSECPERF" "$TMP/ipsecperf" || fail "cannot copy $IPSECPERF"
IPSECPERF="$TMP/ipsecperf"
export IPSECPERF_SCENARIOS="$TOP/scenarios" TMPDIR="$TMP/scratch" IPSECPERF_JOURNAL_DIR="$TMP/journal"
export IPSECPERF_BISECT_CACHE="$TMP/cache"
mkdir -p "$TMPDIR"
REPO="$TMP/tree" BUILD="$TMP/build"
realgit=$(command -v git)

g() { "$realgit" -c gc.auto=0 -c user.name=ipsecperf -c user.email=ipsecperf@localhost -C "$REPO" "$@"; }
mkdir -p "$REPO/scripts" "$REPO/arch/x86" "$BUILD" || fail "mkdir"
touch "$REPO/Kconfig" "$REPO/arch/x86/Kconfig"
printf '#!/bin/sh\nexit 0\n' > "$REPO/scripts/config" && chmod +x "$REPO/scripts/config"
echo "CONFIG_STAND_IN=y" > "$BUILD/.config"
# "builds" gets a line a build: what gc.auto is to a git the build runs (as make's setlocalversion does)
cat > "$REPO/Makefile" << EOF
GIT = $realgit
EOF
cat >> "$REPO/Makefile" << 'EOF'
O ?= .
bzImage:
	@if [ -e BROKEN ]; then echo "BROKEN: this revision does not build" >&2; exit 1; fi
	mkdir -p $(O)/arch/x86/boot $(O)/include/config $(O)/net
	cat VERSION > $(O)/arch/x86/boot/bzImage
	echo 6.12.0$(LOCALVERSION) > $(O)/include/config/kernel.release
	cat VERSION > $(O)/vmlinux
	echo map > $(O)/System.map
	echo "gc.auto=$$($(GIT) config --get gc.auto)" >> $(O)/builds
modules: bzImage
	echo net/stand-in.o > $(O)/modules.order
	cat VERSION > $(O)/net/stand-in.ko
EOF
echo base > "$REPO/VERSION"
"$realgit" init -q -b work "$REPO" && g add -A && g commit -q -m "base: builds" || fail "cannot make the repository"
base=$(g rev-parse HEAD)
g commit -q --allow-empty -m "e1: an empty commit" && e1=$(g rev-parse HEAD)
touch "$REPO/BROKEN" && g add BROKEN && g commit -q -m "b1: does not build" && b1=$(g rev-parse HEAD)
g rm -q BROKEN && echo slow > "$REPO/VERSION" && g commit -q -a -m "b2: builds again, slower" &&
	b2=$(g rev-parse HEAD) || fail "cannot commit"
b1short=$(g rev-parse --short=12 "$b1") b2short=$(g rev-parse --short=12 "$b2")
basetree=$(g rev-parse "$base^{tree}")

# every git the bisect itself runs, with its arguments and -c from the environment
mkdir -p "$TMP/bin"
cat > "$TMP/bin/git" << EOF
#!/bin/sh
printf 'cfg=%s args=%s\n' "\${GIT_CONFIG_PARAMETERS:-}" "\$*" >> "$TMP/git.calls"
exec "$realgit" "\$@"
EOF
chmod +x "$TMP/bin/git"

tree_state() {
	g rev-parse HEAD
	g symbolic-ref HEAD
	g status --porcelain --untracked-files=no
	[ -e "$REPO/.git/BISECT_START" ] && echo "bisecting"
	g for-each-ref refs/bisect/
}
tree_state > "$TMP/tree.before"
# what a bisect leaves: the tree as it was, no git, make or scratch left
assert_left() { # what
	local p left
	tree_state > "$TMP/tree.after"
	diff -u "$TMP/tree.before" "$TMP/tree.after" >&2 || fail "$1: the tree is not as it was (diff above)"
	left=$(for p in /proc/[0-9]*; do
		case $(readlink "$p/cwd" 2> /dev/null) in "$REPO" | "$REPO"/*) tr '\0' ' ' < "$p/cmdline"; echo ;; esac
	done; ls -A "$TMPDIR" 2> /dev/null
	# the journal folder's subfolders (peer/: bisect's durable journal) may stay; no journal may
	find "$IPSECPERF_JOURNAL_DIR" -mindepth 1 ! -type d 2> /dev/null)
	[ -z "$left" ] || fail "$1: left behind: $left"
}

# the bisect: exit status, stdout, stderr in $TMP/$1.{rc,out,err}
bisect() { # name [options...]
	local name=$1
	shift
	PATH="$TMP/bin:$PATH" "$IPSECPERF" bisect --good "$base" --bad "$b2" -O "$BUILD" --repeat 4 --no-probes \
		-o "$TMP/$name" "$@" "$REPO" esp-null > "$TMP/$name.out" 2> "$TMP/$name.err"
	echo $? > "$TMP/$name.rc"
	assert_left "$name"
}
show() { cat "$TMP/$1.err" "$TMP/$1.out" >&2; }

# ---- the first bisect: the good build kept, e1 good unbuilt, b1 skipped, only skipped left
bisect first
[ "$(cat "$TMP/first.rc")" = 1 ] || { show first; fail "the bisect exited $(cat "$TMP/first.rc"), not 1"; }
grep -q "^no first bad commit: only skipped revisions are left (git bisect run exited 2)\$" "$TMP/first.out" &&
	grep -q "^it is one of these 2:\$" "$TMP/first.out" ||
	{ show first; fail "the report does not say only skipped revisions are left"; }
grep -qE "^  $b1short b1: does not build +skip\$" "$TMP/first.out" &&
	grep -qE "^  $b2short b2: builds again, slower +bad \(--bad\)\$" "$TMP/first.out" ||
	{ show first; fail "the report does not name b1 (skip) and b2 (bad) as the first bad commit's candidates"; }
grep -q "^git bisect skip $b1\$" "$TMP/first/git-bisect.log" || fail "git did not skip b1 (git-bisect.log)"
cmp -s <(sed -n '/^ipsecperf bisect:/,$p' "$TMP/first.out" | sed '/^report and each step/,$d' | sed '$d') \
	"$TMP/first/report.txt" || fail "report.txt is not the report printed"
assert_records --arg t "$basetree" --arg e1 "$e1" --arg b1 "$b1" "$TMP/first/steps.jsonl" \
	'[(r["step"], r["verdict"]) for r in rs] == [(0, "good"), (1, "skip"), (2, "good")] and
	 rs[0]["tree"] == t and rs[0]["cached"] is False and rs[0]["release"] == "6.12.0-bisect-" + t[:12] and
	 rs[1]["sha"] == b1 and rs[1]["why"].startswith("the build failed (exit 1)") and
	 rs[2]["sha"] == e1 and rs[2]["tree"] == t and "build_s" not in rs[2] and "run_s" not in rs[2]' \
	"the steps are not good (built), b1 skipped (not built), e1 good (the good tree, not built)"
[ "$(wc -l < "$BUILD/builds")" = 1 ] || fail "the good revision was not built once: $(cat "$BUILD/builds")"
entry=$(ls -d "$TMP/cache/$basetree"-*) || fail "no cache entry for the good revision's tree"
for f in manifest.json arch/x86/boot/bzImage vmlinux include/config/kernel.release .config System.map \
	modules.order net/stand-in.ko; do
	[ -f "$entry/$f" ] || fail "the cache entry has no $f"
done
# gc.auto=0 on every git: the bisect's own, and in its steps' environment
[ "$(wc -l < "$TMP/git.calls")" -gt 10 ] || fail "the git wrapper saw few calls: $(cat "$TMP/git.calls")"
grep -q "args=.*bisect run" "$TMP/git.calls" || fail "the git wrapper did not see git bisect run"
grep -v "args=-c gc.auto=0 " "$TMP/git.calls" >&2 && fail "a git of the bisect without -c gc.auto=0 (above)"
[ "$(cat "$BUILD/builds")" = gc.auto=0 ] || fail "$(cat "$BUILD/builds"): the good revision's build ran without gc.auto=0 in its environment"

# ---- again: the good revision's build from the cache, no make
touch -d '2 hours ago' "$entry"
bisect cached
[ "$(cat "$TMP/cached.rc")" = 1 ] || { show cached; fail "the second bisect exited $(cat "$TMP/cached.rc")"; }
grep -q "^bisect: the good revision, .*: cached build of ${basetree:0:12} (6.12.0-bisect-${basetree:0:12})\$" \
	"$TMP/cached.err" || { show cached; fail "the second bisect did not take the good revision's build"; }
grep "the good revision.*: building" "$TMP/cached.err" >&2 && fail "the second bisect built the good revision"
[ "$(wc -l < "$BUILD/builds")" = 1 ] || fail "the second bisect ran make for the good revision"
assert_records --arg e "$entry" "$TMP/cached/steps.jsonl" 'rs[0]["cached"] is True and rs[0]["kernel"] == e' \
	"the good revision's kernel is not its cache entry"
grep -qE "^ +base: builds +build cached  run +-\$" "$TMP/cached/report.txt" ||
	fail "the report's good row does not say cached: $(cat "$TMP/cached/report.txt")"
[ "$(find "$entry" -maxdepth 0 -mmin -60)" = "$entry" ] || fail "the entry taken was not marked used"

# ---- --no-cache: built anew, and the entry replaced by the new build
bisect nocache --no-cache
[ "$(wc -l < "$BUILD/builds")" = 2 ] || { show nocache; fail "--no-cache did not build the good revision"; }
assert_records "$TMP/nocache/steps.jsonl" 'rs[0]["cached"] is False'
[ "$(ls -d "$TMP/cache/$basetree"-* | wc -l)" = 1 ] || fail "--no-cache left two entries of one tree"

# ---- an entry that is not as its manifest says is not taken: built again
damaged() { # name what: the bisect builds again, saying why
	bisect "$1"
	grep -q "a cached build was not taken: $entry: $2; building it again" "$TMP/$1.err" ||
		{ show "$1"; fail "an entry whose $2 was taken (or not said so)"; }
	assert_records "$TMP/$1/steps.jsonl" 'rs[0]["cached"] is False'
}
echo x >> "$entry/arch/x86/boot/bzImage"
damaged changed "arch/x86/boot/bzImage is not the file its manifest names"
echo extra > "$entry/net/extra.ko"
damaged extra "net/extra.ko is not in its manifest"
ln -s /etc/passwd "$entry/vmlinux.new"
damaged symlink "vmlinux.new is not in its manifest"
bisect whole
grep -q "cached build of" "$TMP/whole.err" || { show whole; fail "the entry built again is not taken"; }

# ---- the bad revision the good one's child: git names it untested, so the bisect
# measures it; e1 has the good revision's tree: no worse, nothing to bisect
PATH="$TMP/bin:$PATH" "$IPSECPERF" bisect --good "$base" --bad "$e1" -O "$BUILD" --repeat 4 --no-probes \
	-o "$TMP/child" "$REPO" esp-null > "$TMP/child.out" 2> "$TMP/child.err"
echo $? > "$TMP/child.rc"
assert_left child
[ "$(cat "$TMP/child.rc")" = 1 ] &&
	grep -q "^no first bad commit: the bad revision is no worse than the good one: nothing to bisect\$" \
		"$TMP/child.out" || { show child; fail "a bad revision no worse than the good one was not said so"; }

a; half-made ones of a process gone removed
for i in 1 2 3; do
	mkdir "$TMP/cache/old$i" && touch -d "$i days ago" "$TMP/cache/old$i"
done
mkdir "$TMP/cache/.part-$basetree-x-999999999" "$TMP/cache/.part-$basetree-x-$$"
IPSECPERF_BISECT_CACHE_KEEP=2 bisect bound --no-cache
[ "$(cd "$TMP/cache" && ls -A | sort | tr '\n' ' ')" = ".lock .part-$basetree-x-$$ ${entry##*/} old1 " ] ||
	fail "the cache after a store with 2 kept: $(ls -A "$TMP/cache" | tr '\n' ' ')"
rm -rf "$TMP/cache/.part-$basetree-x-$$"
info "bisect cache: $(ls "$TMP/cache" | wc -l) entries; $(wc -l < "$TMP/git.calls") git calls, all with gc.auto=0"
exit 0
