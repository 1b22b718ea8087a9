#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tools/layers.sh: first that it rejects what it must (a tiny tree with an
# include up a layer, an include cycle and a call cycle, and a clean tree
# it must pass), then the project's own tree, includes and calls; and
# that no function is over 80 lines and no .c file over 800, and that a
# header declaring several files' functions says it is a façade.
source "$(dirname "$0")/lib.sh"
LAYERS="$TOP/tools/layers.sh"

# The self-test tree, laid out as the project's (collector/ and analyze/):
# lib/low.c includes host/high.h (up); host/a.h and host/b.h include each
# other's module (cycle); host/j.c and run/k.c call each other with no
# include between them (a call cycle only nm can see).
t=$TMP/tree
mkdir -p "$t"/analyze "$t"/collector/{lib,host,run}
printf '#include "high.h"\nint low(void) { return high(); }\n' > "$t/collector/lib/low.c"
printf 'int high(void);\n' > "$t/collector/host/high.h"
printf '#include "high.h"\nint high(void) { return 1; }\n' > "$t/collector/host/high.c"
printf '#include "b.h"\nint a(void);\n' > "$t/collector/host/a.h"
printf '#include "a.h"\nint a(void) { return 0; }\n' > "$t/collector/host/a.c"
printf 'int b(void);\n' > "$t/collector/host/b.h"
printf '#include "b.h"\n#include "a.h"\nint b(void) { return a(); }\n' > "$t/collector/host/b.c"
printf 'int k(void);\nint j(int n) { return n ? k() : 0; }\n' > "$t/collector/host/j.c"
printf 'int j(int);\nint k(void) { return j(0); }\n' > "$t/collector/run/k.c"
printf '#include "results.h"\nint r(void);\n' > "$t/analyze/stats.h"
printf 'int r(void);\n' > "$t/analyze/results.h"
for c in "$t"/collector/*/*.c; do
	o=$t/obj/${c#"$t"/}; o=${o%.c}.o
	mkdir -p "$(dirname "$o")"
	cc -c -I"$t/collector/lib" -I"$t/analyze" -I"$t/collector/host" -I"$t/collector/run" -o "$o" "$c" || fail "self-test tree does not build"
done
out=$("$LAYERS" -o "$t/obj" "$t") && fail "layers.sh passed a tree with an upward include and cycles"
echo "$out" | sed 's/^/    self-test: /' >&2
echo "$out" | grep -qx 'up: collector/lib/low.c:1 includes collector/host/high.h (collector/lib includes from collector/host, a higher layer)' ||
	fail "the upward include lib/low.c -> host/high.h is not reported"
echo "$out" | grep -Eq '^cycle \(include\): collector/host/(a collector/host/b|b collector/host/a)$' || fail "the include cycle a <-> b is not reported"
echo "$out" | grep -Eq '^cycle \(call\): (collector/host/j collector/run/k|collector/run/k collector/host/j)$' || fail "the call cycle j <-> k is not reported"
echo "$out" | grep -q 'up: collector/host/j.c calls k() of collector/run/k.c' || fail "the call up from host/j.c to run/k.c is not reported"
echo "$out" | grep -q analyze && fail "analyze/ including its own folder was reported"
# Without the objects the call cycle is invisible, the rest still seen.
out=$("$LAYERS" -n "$t") && fail "layers.sh -n passed a tree with an upward include"
echo "$out" | grep -q 'cycle (call)' && fail "layers.sh -n read objects"
# A tree with neither passes.
rm -rf "$t/collector/lib/low.c" "$t/collector/host/a.h" "$t/collector/run" "$t/obj"
"$LAYERS" "$t" >&2 || fail "layers.sh rejected a clean tree"
# Bad usage: one line, exit 2.
"$LAYERS" "$TMP/none" 2>/dev/null; [ $? = 2 ] || fail "layers.sh on a missing folder did not exit 2"

# The project: every include and every call goes down a layer, no cycles.
[ -d "$TOP/build/obj" ] || fail "no build/obj: run make first"
if ! out=$("$LAYERS" "$TOP"); then
	echo "$out" >&2
	fail "the tree's layers are broken ($(echo "$out" | grep -c '^[a-z]') findings above)"
fi

# Functions of at most 80 lines, files of at most 800: longer ones do more
# than one job (tools/longfuncs.sh, tools/longfiles.sh; docs/architecture.md).
long=$("$TOP/tools/longfuncs.sh") || fail "longfuncs.sh exited $?"
[ -z "$long" ] || { echo "$long" >&2; fail "functions over 80 lines (above)"; }
long=$("$TOP/tools/longfiles.sh") || fail "longfiles.sh exited $?"
[ -z "$long" ] || { echo "$long" >&2; fail ".c files over 800 lines (above)"; }

# A header declaring the functions of several files says it is a façade
# (tools/headers.sh): a tiny tree whose x.h declares y.c's y() is
# reported until x.h's comment says so; then the project's headers.
h=$TMP/htree
mkdir -p "$h/collector/lib" "$h/obj/collector/lib"
printf '/* SPDX-License-Identifier: GPL-2.0 */\n/* x and y. */\nint x(void);\nint y(void);\n' > "$h/collector/lib/x.h"
printf 'int x(void) { return 0; }\n' > "$h/collector/lib/x.c"
printf 'int y(void) { return 1; }\n' > "$h/collector/lib/y.c"
for f in x y; do cc -c -o "$h/obj/collector/lib/$f.o" "$h/collector/lib/$f.c" || fail "the headers self-test tree does not build"; done
out=$("$TOP/tools/headers.sh" -o "$h/obj" "$h") && fail "headers.sh passed x.h, which declares y.c's y() unsaid"
echo "$out" | grep -qx "collector/lib/x.h: declares functions of collector/lib/x.c (1), collector/lib/y.c (1)" ||
	fail "headers.sh did not name x.h's two files: $out"
sed -i 's|/\* x and y. \*/|/* x and y: a façade of x.c and y.c. */|' "$h/collector/lib/x.h"
"$TOP/tools/headers.sh" -o "$h/obj" "$h" >&2 || fail "headers.sh rejected a header that says it is a façade"
if ! out=$("$TOP/tools/headers.sh"); then
	echo "$out" >&2
	fail "headers declare several files' functions unsaid (above)"
fi
