#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The fuzz targets (tests/fuzz/, `make fuzz`) build and run: each links
# against the code it fuzzes as that code is today (a function moved to
# another file breaks the link, and nothing else would notice before the
# next fuzzing session), and each reads its seeds (tests/fuzz/seeds/) with
# ASan and UBSan and finds nothing: libFuzzer's -runs=0, the seeds only.
# About 35 s of CPU (clang, seven targets).
. "$(dirname "$0")/lib.sh"

command -v clang > /dev/null || skip_ours "clang missing"
targets=$(make -s -C "$TOP" -pn fuzz-build 2> /dev/null | sed -n 's/^FUZZ_TARGETS := //p' | tail -1)
[ -n "$targets" ] || fail "the Makefile names no fuzz targets"
make -s -C "$TOP" fuzz-build > "$TMP/build" 2>&1 || { cat "$TMP/build" >&2; fail "make fuzz-build failed"; }
n=0
for t in $targets; do
	bin="$TOP/build/fuzz/fuzz_$t"
	[ -x "$bin" ] || fail "fuzz_$t was not built"
	mkdir -p "$TMP/corpus-$t"
	"$bin" -runs=0 -close_fd_mask=3 -artifact_prefix="$TMP/" "$TMP/corpus-$t" "$TOP/tests/fuzz/seeds/$t" \
		> "$TMP/$t.out" 2>&1 || { tail -30 "$TMP/$t.out" >&2; fail "fuzz_$t failed on its seeds"; }
	grep -q 'INITED\|Done' "$TMP/$t.out" || { tail -5 "$TMP/$t.out" >&2; fail "fuzz_$t did not run its seeds"; }
	n=$((n + 1))
done
info "$n fuzz targets built and ran their seeds"
