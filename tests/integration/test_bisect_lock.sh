#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# ipsecperf bisect holds its build folder's lock (ipsecperf-build.lock, the
# one `kernel config` and `kernel build` take) from before its first
# checkout to after the tree is reset, so that a `kernel build` of the same
# tree never races its checkouts and boots: while another holds the lock,
# bisect waits and says so, with the tree as it was; Ctrl-C ends the wait
# and leaves nothing. Its steps' `kernel build` take the inherited lock as
# their own (no wait on their own bisect). The tree is a stand-in: the
# files that make a folder a kernel tree, three commits, and a Makefile
# that fails, so that each step is a build that does not build.
. "$(dirname "$0")/lib.sh"

command -v git > /dev/null || skip_ours "git missing"
for p in make gcc flex bison bc pahole; do
	command -v $p > /dev/null || skip_ours "$p missing (make deps installs what a kernel build needs)"
done
export IPSECPERF_JOURNAL_DIR="$TMP/journal" IPSECPERF_BISECT_CACHE="$TMP/cache" TMPDIR="$TMP/scratch"
mkdir -p "$TMPDIR"
git() { command git -c gc.auto=0 -c user.name=ipsecperf -c user.email=ipsecperf@localhost "$@"; }
tree="$TMP/linux"
mkdir -p "$tree/scripts" "$tree/arch/x86"
printf '%%:\n\t@echo no kernel here >&2; false\n' > "$tree/Makefile"
touch "$tree/Kconfig" "$tree/arch/x86/Kconfig" "$tree/.config"
printf '#!/bin/sh\n' > "$tree/scripts/config"
chmod +x "$tree/scripts/config"
printf '.config\nipsecperf-*\n' > "$tree/.gitignore"
git -C "$tree" init -q -b main && git -C "$tree" add -A && git -C "$tree" commit -q -m base &&
	for i in 1 2; do echo "$i" > "$tree/f" && git -C "$tree" add f && git -C "$tree" commit -q -m "c$i"; done ||
	fail "cannot make the stand-in tree"
head=$(git -C "$tree" rev-parse HEAD)

bisect() { # out
	"$IPSECPERF" bisect --no-cache --good HEAD~2 --bad HEAD -o "$1" "$tree" clear > "$TMP/bisect.out" 2> "$TMP/bisect.err" &
	bpid=$!
}
tree_as_it_was() { # what
	[ "$(git -C "$tree" rev-parse HEAD)" = "$head" ] && [ "$(git -C "$tree" symbolic-ref -q HEAD)" = refs/heads/main ] ||
		fail "$1: HEAD moved: $(git -C "$tree" log --oneline -1 HEAD)"
	[ -e "$tree/.git/BISECT_START" ] && fail "$1: the tree is bisecting"
	return 0
}

# 1. another holds the lock: bisect waits before it checks anything out, and Ctrl-C leaves nothing
exec 9> "$tree/ipsecperf-build.lock"
flock 9
bisect "$TMP/out1"
for _ in $(seq 100); do grep -q 'waiting for it' "$TMP/bisect.err" && break; kill -0 $bpid 2> /dev/null || break; sleep 0.1; done
grep -q "bisect: another kernel config, build or bisect is using $tree; waiting for it" "$TMP/bisect.err" ||
	{ kill -INT $bpid 2> /dev/null; wait $bpid; cat "$TMP/bisect.err" >&2; fail "bisect did not wait for the build folder's lock"; }
sleep 1
tree_as_it_was "while bisect waits"
kill -INT $bpid
wait $bpid
rc=$?
[ $rc = 130 ] || { cat "$TMP/bisect.err" >&2; fail "bisect stopped while waiting: exit $rc, not 130"; }
tree_as_it_was "after Ctrl-C"
[ -z "$(ls -A "$TMPDIR")" ] || fail "bisect left $(ls "$TMPDIR") in TMPDIR"
ls "$IPSECPERF_JOURNAL_DIR" "$IPSECPERF_JOURNAL_DIR/peer" 2> /dev/null | grep -q '^journal-' && fail "bisect left a journal"
exec 9>&-

# 2. the lock free: bisect runs, and its steps' kernel build do not wait for their own bisect
bisect "$TMP/out2"
for _ in $(seq 600); do kill -0 $bpid 2> /dev/null || break; sleep 0.1; done
if kill -0 $bpid 2> /dev/null; then
	kill -INT $bpid; wait $bpid
	cat "$TMP/bisect.err" >&2
	fail "bisect did not end within 60 s (a step waiting for its own bisect's lock?)"
fi
wait $bpid
grep -rq 'waiting for it' "$TMP/bisect.err" "$TMP/out2" && { cat "$TMP/bisect.err" >&2; fail "a step waited for the lock"; }
# the good revision's kernel build got past the lock to make
grep -rqs 'no kernel here' "$TMP/out2" || { cat "$TMP/bisect.err" >&2; ls -R "$TMP/out2" >&2; fail "no kernel build reached make"; }
tree_as_it_was "after the bisect"
exit 0
