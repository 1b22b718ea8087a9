#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The Makefile's package lists cover what they are for, on a minimal Debian
# (Priority: required, Essential and apt: what mmdebstrap --variant=minbase
# makes), not on this host where everything is installed already:
#  - DEMO_PKGS, which `make demo` installs: every header `make all`
#    includes (the program's sources with the build's flags, the BPF
#    programs with clang's), every library it links, every program the
#    build and the netns demo run;
#  - DEB_PKGS, which `make deps` installs: the same, plus the unit tests'
#    and fuzz targets' headers and libraries, and the programs the tests
#    and the other testbeds run (a list below, and every `command -v NAME`
#    in tests/ and tools/).
# Each header, library and program is a file here; dpkg names its package;
# that package must be among those apt-get would install for the list on a
# minimal Debian (apt-get -s against an empty dpkg status: the list and its
# dependencies, as apt resolves them, without recommends).
# tests/integration/test_fresh_debian.sh runs the demo there for real.
. "$(dirname "$0")/lib.sh"

for t in apt-get dpkg-query cc; do
	command -v $t > /dev/null || skip_ours "no $t here"
done
[ -n "$(ls /var/lib/apt/lists/*_Packages* 2> /dev/null)" ] || skip "no apt lists here (apt-get update)"

unset MAKEFLAGS MFLAGS MAKELEVEL
var() { make -s --no-print-directory -C "$TOP" "print-$1"; }
demo_pkgs=$(var DEMO_PKGS) deb_pkgs=$(var DEB_PKGS)
[ -n "$demo_pkgs" ] && [ -n "$deb_pkgs" ] || fail "make print-DEMO_PKGS or print-DEB_PKGS printed nothing"
cflags=$(var IPP_CFLAGS) bpf_cflags=$(var BPF_CFLAGS) ldlibs=$(var IPP_LDLIBS)
clang=$(var CLANG)

# The programs `make all` and `make demo` run (the Makefile's recipes and
# $(shell), tools/mkman.sh, and the netns testbed: collector/cmd/cmd_run.c
# check_tools, collector/host/kmod.c). git is not here: without it the build says
# "unknown" for its version.
demo_progs="make cc ar clang bpftool pkg-config sh awk sed grep date uname dpkg printf mkdir rm
	iperf3 ethtool ip modprobe rmmod"
# What else the tests, the vm, vm-pair and peer testbeds, profiles, charts,
# kernel builds and the package run; `command -v NAME` in tests/ and
# tools/ are added below.
deb_progs="$demo_progs git python3 qemu-system-x86_64 busybox cpio lz4 zstd xz perf gnuplot ssh ssh-keygen
	sshd flex bison bc pahole dpkg-buildpackage dh dh_auto_build fakeroot lintian man strace chromium
	mmdebstrap xmllint script timeout"
# names that are not a Debian program: this program, Ubuntu's name of chromium
not_debian=" ipsecperf chromium-browser "
used=$(cd "$TOP" && grep -rhoE 'command -v [a-z][a-z0-9_.+-]*' tests tools | awk '{ print $3 }' | sort -u)
for p in $used; do
	case "$not_debian" in *" $p "*) continue ;; esac
	deb_progs="$deb_progs $p"
done

# What apt-get installs for packages "$@" on a minimal Debian: an empty
# dpkg status, the Priority: required and Essential packages and apt.
: > "$TMP/empty-status"
base=$(dpkg-query -W -f '${db:Status-Abbrev} ${Package} ${Priority} ${Essential}\n' |
	awk '$1 == "ii" && ($3 == "required" || $4 == "yes") { print $2 }' | sort -u)
[ "$(echo "$base" | wc -l)" -gt 20 ] || fail "only $(echo "$base" | wc -l) required packages here: $base"
fresh_set() { # packages...
	apt-get -s -q -o Debug::NoLocking=1 -o Dir::State::status="$TMP/empty-status" \
		-o Dir::State::extended_states="$TMP/ext" install --no-install-recommends $base apt "$@" \
		> "$TMP/sim" 2>&1 || { rc=$?; cat "$TMP/sim" >&2; fail "apt-get -s install of the list exited $rc"; }
	awk '/^Inst / { print $2 }' "$TMP/sim" | sort -u
}

# Headers: the compiler's own answer (-M) for each source with its flags;
# -MG lets a header the build generates (version.h, the skeletons) be
# missing, and leaves any other missing header as a bare name, which fails
# below.
headers() { # out compiler flags... -- sources...
	local out=$1 cc=$2
	shift 2
	"$cc" "$@" > "$out.raw" 2> "$out.err" || { rc=$?; cat "$out.err" >&2; fail "$cc -M exited $rc ($out)"; }
	tr -s ' \\' '\n\n' < "$out.raw" | grep -v -e ':$' -e '^$' -e '\.c$' | sort -u > "$out.all"
	# relative: the tree's own headers, or generated ones
	grep -v '^/' "$out.all" | grep -vE '^build/|^(version|datadir|vmlinux)\.h$|\.skel\.h$' |
		while read -r h; do [ -f "$h" ] || echo "$h"; done > "$out.missing"
	[ ! -s "$out.missing" ] || fail "headers found nowhere on this host ($out): $(tr '\n' ' ' < "$out.missing")"
	grep '^/' "$out.all" | xargs -r realpath -s | sort -u > "$out"
}
cd "$TOP" || fail "cd $TOP"
src_dirs=$(var SRC_DIRS) # the Makefile's source folders, as it builds them
[ -n "$src_dirs" ] || fail "make print-SRC_DIRS printed nothing"
# shellcheck disable=SC2086 # a list of folders
prog_srcs=$(for d in $src_dirs; do ls "$d"/*.c; done | grep -v '\.bpf\.c$')
headers "$TMP/h.prog" cc $cflags -MG -M $prog_srcs
headers "$TMP/h.bpf" "$clang" $bpf_cflags -MG -M probes/*.bpf.c
headers "$TMP/h.unit" cc $cflags -MG -M tests/unit/*.c
headers "$TMP/h.fuzz" "$clang" -std=c11 -D_GNU_SOURCE $(printf -- '-I%s ' $src_dirs build) \
	-MG -M tests/fuzz/*.c
n=$(wc -l < "$TMP/h.prog")
[ "$n" -gt 100 ] || fail "only $n system headers for the program: the -M pass saw nothing"
grep -q '/dwarf\.h$' "$TMP/h.prog" || fail "probes/kdwarf.c's dwarf.h is not among the program's headers"

# Libraries: the file the linker takes for each -lNAME.
libs() { # out compiler -lNAME...
	local out=$1 cc=$2 l f
	shift 2
	for l in "$@"; do
		case $l in -l*) ;; *) continue ;; esac
		f=$("$cc" -print-file-name="lib${l#-l}.so")
		[ "$f" != "lib${l#-l}.so" ] || f=$("$cc" -print-file-name="lib${l#-l}.a")
		[ "${f#/}" != "$f" ] || fail "$cc finds no library for $l"
		realpath -s "$f" >> "$out.list"
	done
	sort -u "$out.list" > "$out"
}
libs "$TMP/l.prog" cc $ldlibs
libs "$TMP/l.unit" cc $ldlibs -lcmocka
rt=$("$clang" -print-resource-dir)/lib/linux/libclang_rt.fuzzer-$(uname -m).a
[ -f "$rt" ] || fail "no libFuzzer runtime ($rt): make fuzz cannot link"
echo "$rt" > "$TMP/l.fuzz"

# Programs: where Debian's PATH finds them here (not /usr/local, nor a
# PATH of this user's own).
progs() { # out names...
	local out=$1 p f
	shift
	for p in "$@"; do
		f=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v "$p") ||
			fail "$p is not installed here (no $p in /usr/sbin:/usr/bin:/sbin:/bin)"
		[ "${f#/}" != "$f" ] || continue # a shell builtin, no file
		echo "$f" >> "$out.list"
	done
	sort -u "$out.list" > "$out"
}
progs "$TMP/p.demo" $demo_progs
progs "$TMP/p.deb" $deb_progs

# The package of each file, "file package" (one line per package where
# several ship the same path), from dpkg's file lists (dpkg-query -S one
# file at a time takes minutes). dpkg knows a file by the path its package
# has: the path, or its real path (/usr/bin/cc is gcc-12's
# x86_64-linux-gnu-gcc-12), each as given or with /usr merged or not
# (iproute2 ships /bin/ip, found as /usr/bin/ip).
owners() { # files-list out
	xargs -r realpath < "$1" | paste -d ' ' "$1" - > "$2.paths"
	awk 'FILENAME == paths {
		for (i = 1; i <= 2; i++) { c = $i; want[c] = 1; sub(/^\/usr/, "", c); want[c] = 1; want["/usr" $i] = 1 }
		f[++n] = $1; r[n] = $2; next }
	FNR == 1 { pkg = FILENAME; sub(/.*\//, "", pkg); sub(/\.list$/, "", pkg); sub(/:.*/, "", pkg) }
	$0 in want { own[$0] = own[$0] " " pkg }
	END {
		for (i = 1; i <= n; i++) {
			got = ""
			for (j = 1; j <= 2 && got == ""; j++) {
				c = j == 1 ? f[i] : r[i]; u = c; sub(/^\/usr/, "", u)
				got = c in own ? own[c] : u in own ? own[u] : ("/usr" c) in own ? own["/usr" c] : ""
			}
			if (got == "") print f[i], "-"
			m = split(got, a, " "); for (k = 1; k <= m; k++) print f[i], a[k]
		}
	}' paths="$2.paths" "$2.paths" /var/lib/dpkg/info/*.list | sort -u > "$2"
	! grep ' -$' "$2" > "$2.none" || fail "no package ships: $(sed 's/ -$//' "$2.none" | tr '\n' ' ')"
}

# check WHAT VAR-NAME PACKAGES FILE-LISTS...: every file's package is in
# what apt-get installs for PACKAGES on a minimal Debian.
check() {
	local what=$1 name=$2 pkgs=$3 missing
	shift 3
	fresh_set $pkgs > "$TMP/set.$name"
	[ "$(wc -l < "$TMP/set.$name")" -gt 50 ] || fail "apt-get -s installs only $(wc -l < "$TMP/set.$name") packages for $name"
	sort -u "$@" > "$TMP/files.$name"
	owners "$TMP/files.$name" "$TMP/owners.$name"
	# a file is covered when any package that ships it is installed
	missing=$(awk 'NR == FNR { in_set[$1] = 1; next } { pk[$1] = pk[$1] " " $2; if ($2 in in_set) ok[$1] = 1 }
		END { for (f in pk) if (!(f in ok)) print "  " f " (" substr(pk[f], 2) ")" }' \
		"$TMP/set.$name" "$TMP/owners.$name" | sort)
	[ -z "$missing" ] || fail "$what: $name does not install (on a minimal Debian) the package of:
$missing"
	info "$name: $(wc -l < "$TMP/files.$name") files, from $(awk '{ print $2 }' "$TMP/owners.$name" | sort -u | wc -l) packages, all installed by its $(wc -l < "$TMP/set.$name") packages"
}

check "make demo (make all and the netns run)" DEMO_PKGS "$demo_pkgs" \
	"$TMP/h.prog" "$TMP/h.bpf" "$TMP/l.prog" "$TMP/p.demo"
check "make deps (the build, unit tests, fuzz targets, tests and testbeds)" DEB_PKGS "$deb_pkgs" \
	"$TMP/h.prog" "$TMP/h.bpf" "$TMP/h.unit" "$TMP/h.fuzz" "$TMP/l.prog" "$TMP/l.unit" "$TMP/l.fuzz" \
	"$TMP/p.deb"
exit 0
