#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The build, in a copy of the tree (the real build/ is not touched): a
# second make does nothing and make -q is 0; a touched .c remakes its
# object and the links only; a touched collector/lib/log.h remakes exactly the
# objects that include it, directly or through another header; a new
# version in debian/changelog remakes only the version.h includers; new
# flags (SANITIZE=1) or a new PREFIX are seen; the BPF programs' target
# architecture follows uname -m, BPF_ARCH overrides it and an unknown
# machine is refused. Built with -O0 to be quick.
. "$(dirname "$0")/lib.sh"

src="$TMP/src"
mkdir -p "$src"
if [ "$(git -C "$TOP" rev-parse --show-toplevel 2> /dev/null)" = "$TOP" ]; then
	git -C "$TOP" ls-files -z --cached --others --exclude-standard | tar -C "$TOP" --null -T - -cf -
else
	tar -C "$TOP" --exclude=./build -cf - .
fi | tar -xf - -C "$src" || fail "cannot copy the tree into $src"
[ ! -e "$src/build" ] || fail "the copy has a build/ of its own"

# the copy's build is its own: not the options of a make that runs this test
unset MAKEFLAGS MFLAGS MAKELEVEL CFLAGS LDFLAGS LDLIBS SANITIZE BPF_ARCH PREFIX DATADIR
m() { make --no-print-directory -C "$src" CFLAGS=-O0 "$@"; }
build() { # what
	m -j2 > "$TMP/make.out" 2>&1 || { rc=$?; cat "$TMP/make.out" >&2; fail "$1: make exited $rc"; }
}
# The objects made after the mark, as source paths (collector/lib/log.c), sorted.
mark() { sleep 0.1; touch "$TMP/mark"; sleep 0.1; }
remade() {
	(cd "$src/build/obj" && find . -name '*.o' -newer "$TMP/mark" | sed 's|^\./||; s|\.o$|.c|' | sort)
}
# The .c files of the program that include header $1, directly or through
# other headers of the tree (by name, as the sources do: #include "log.h").
includers() {
	local hs="$1" prev=""
	while [ "$hs" != "$prev" ]; do
		prev=$hs
		hs=$(cd "$src" && { echo "$prev"; for h in $prev; do
			grep -l "^#include \"\\(.*/\\)\\?$h\"" */*.h collector/*/*.h 2> /dev/null | xargs -rn1 basename
		done; } | sort -u)
	done
	(cd "$src/build/obj" && find . -name '*.o' | sed 's|^\./||; s|\.o$|.c|') | sort > "$TMP/objs"
	for h in $hs; do
		(cd "$src" && grep -l "^#include \"\\(.*/\\)\\?$h\"" $(cat "$TMP/objs"))
	done | sort -u
}
same_list() { # expected got what
	diff -u <(echo "$1") <(echo "$2") >&2 || fail "$3 (diff above: - expected, + remade)"
}

build "the first make"
[ -x "$src/build/ipsecperf" ] || fail "make made no build/ipsecperf"
m -q || fail "make -q exits $? right after make"
m -q all || fail "make -q all exits $? right after make"
nobj=$(find "$src/build/obj" -name '*.o' | wc -l)
[ "$nobj" -gt 5 ] || fail "only $nobj objects in build/obj"

mark
build "a second make"
got=$(cd "$src/build" && find . -type f -newer "$TMP/mark")
[ -z "$got" ] || fail "a second make with nothing changed remade: $got"

# one .c file: its object, the library and the program, nothing else
c=$(cd "$src" && ls collector/lib/*.c | head -1)
mark
touch "$src/$c"
build "make after touching $c"
same_list "$c" "$(remade)" "touching $c remade other objects"
[ "$src/build/ipsecperf" -nt "$TMP/mark" ] || fail "touching $c did not relink build/ipsecperf"
m -q || fail "make -q exits $? after the rebuild of $c"

# a header: exactly its includers
want=$(includers log.h)
n=$(echo "$want" | grep -c .)
[ "$n" -gt 0 ] && [ "$n" -lt "$nobj" ] || fail "log.h has $n includers of $nobj objects: no test"
mark
touch "$src/collector/lib/log.h"
build "make after touching collector/lib/log.h"
same_list "$want" "$(remade)" "touching collector/lib/log.h did not remake exactly its $n includers"
info "collector/lib/log.h: $n of $nobj objects remade"

# a new version: the includers of version.h, which holds it
sed -i '1s/(\([^)]*\))/(\1+buildtest)/' "$src/debian/changelog"
mark
build "make after a new version in debian/changelog"
same_list "$(includers version.h)" "$(remade)" "a new version did not remake exactly the version.h includers"
"$src/build/ipsecperf" --version | grep -q '+buildtest' || fail "the new version is not in ipsecperf --version"
m -q || fail "make -q exits $? after a new version"

# new flags and a new PREFIX are seen, and new flags remake every object
m -q SANITIZE=1 && fail "make -q SANITIZE=1 after make exits 0: the objects would be kept"
ncc=$(m -n SANITIZE=1 | grep -c -- ' -c .*\.c -o .*\.o$')
[ "$ncc" -eq "$nobj" ] || fail "make SANITIZE=1 after make would compile $ncc of $nobj objects"
m -q PREFIX=/opt/ipsecperf-test && fail "make -q with a new PREFIX exits 0: datadir.h would be kept"

# the BPF target architecture
case "$(uname -m)" in
x86_64 | i?86) arch=x86 ;; aarch64) arch=arm64 ;; armv7*) arch=arm ;; ppc64le) arch=powerpc ;;
s390x) arch=s390 ;; riscv64) arch=riscv ;; loongarch64) arch=loongarch ;; *) arch=unknown ;;
esac
bpfo=$(cd "$src" && ls probes/*.bpf.c | head -1 | sed 's|^probes/\(.*\)\.c$|build/probes/\1.o|')
m -n -B "$bpfo" | grep -q -- "-target bpf .*-D__TARGET_ARCH_$arch " ||
	fail "the BPF program is not built for $arch on $(uname -m): $(m -n -B "$bpfo" | grep -- '-target bpf')"
m -n -B BPF_ARCH=arm64 "$bpfo" | grep -q -- "-D__TARGET_ARCH_arm64 " || fail "BPF_ARCH=arm64 is not used"
mkdir "$TMP/pdp11" # (not $TMP/bin: lib.sh's, already on PATH where python3 is not /usr/bin's)
printf '#!/bin/sh\necho pdp11\n' > "$TMP/pdp11/uname" && chmod +x "$TMP/pdp11/uname"
PATH="$TMP/pdp11:$PATH" m -n -B "$bpfo" > "$TMP/pdp11.out" 2>&1 && fail "make on an unknown machine (pdp11) builds BPF"
grep -q 'unknown machine "pdp11".*BPF_ARCH' "$TMP/pdp11.out" ||
	fail "an unknown machine gets no clear error: $(cat "$TMP/pdp11.out")"
exit 0
