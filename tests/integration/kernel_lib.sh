# SPDX-License-Identifier: GPL-2.0
# A kernel built from source for the tests: Debian's linux-source-6.12
# (installed by `make deps` as /usr/src/linux-source-6.12.tar.xz),
# unpacked once and configured and built by `ipsecperf kernel config` and
# `kernel build` into its build/ folder (O=). Both stay in
# $IPSECPERF_KTREE_CACHE (default
# /var/cache/ipsecperf, next to the kernel cache), so a fresh machine
# builds it once (`make test` does, before the integration tests, see
# kernel_tree.sh) and later runs only check that nothing changed.
# Sourced; needs $IPSECPERF (the program) and fail().

KTREE_CACHE=${IPSECPERF_KTREE_CACHE:-/var/cache/ipsecperf}
KTREE_TAR=/usr/src/linux-source-6.12.tar.xz
KSRC="$KTREE_CACHE/src/linux-source-6.12"
# A build folder directly inside its tree: kbuild then names the source
# "..", not by its path, so a copy of tree and build folder elsewhere
# rebuilds only what differs (ktree_variant, the bisect test).
KBASE="$KSRC/build"

# Unpack the source once; a half-unpacked tree is never taken for one.
ktree_src() {
	[ -f "$KSRC/.ipsecperf-unpacked" ] && return 0
	[ -f "$KTREE_TAR" ] || { echo "no $KTREE_TAR: make deps installs linux-source-6.12" >&2; return 1; }
	mkdir -p "$KTREE_CACHE/src" || return 1
	rm -rf "$KSRC" "$KSRC.part"
	mkdir "$KSRC.part" && tar -xJf "$KTREE_TAR" -C "$KSRC.part" || return 1
	mv "$KSRC.part/linux-source-6.12" "$KSRC" && rmdir "$KSRC.part" || return 1
	touch "$KSRC/.ipsecperf-unpacked"
}

# What `kernel config` writes follows its code (collector/kbuild/kconfig.c's tables,
# collector/kbuild/kbuild.c's steps): a build folder configured by other code is
# configured again in place, and kbuild rebuilds what the options that
# changed touch; one from before the fragment (defconfig, 3.7 GB) is
# removed first.
ktree_recipe() {
	cat "$TOP/collector/kbuild/kconfig.c" "$TOP/collector/kbuild/kbuild.c" "$TOP/collector/kbuild/kbuild_fresh.c" | sha256sum | cut -c1-16
}

# A variant is a kernel to boot, never built on (a change to its patch
# or its base makes it anew): once built, only what a boot reads stays
# (docs/vm-testbed.md: the image, .config, the release, the modules and
# their lists, vmlinux for the DWARF anchors), 150 MB of its 1.2 GB. Its
# stamp is renewed, so that `kernel build` on it (the CI recipe's) still
# finds it up to date.
ktree_prune() { # builddir
	[ -f "$1/ipsecperf-built" ] || return 0
	find "$1" -type f ! -name '*.ko' ! -name 'modules.*' ! -name 'ipsecperf-*' ! -name '.ipsecperf-*' \
		! -path "$1/arch/x86/boot/bzImage" ! -path "$1/.config" ! -path "$1/include/config/kernel.release" \
		! -path "$1/vmlinux" ! -path "$1/System.map" ! -path "$1/Module.symvers" -delete &&
		touch "$1/ipsecperf-built"
}

# vmlinux.o (350 MB), the whole kernel in one relocatable object, is read
# by the link and by modpost only, and made again from vmlinux.a by every
# build that changes an object: the tests' builds always change one
# (a variant's patch, a bisect step) or find everything up to date
# without make. Removed after a build; the stamp is renewed, so that the
# removal does not count as a change.
ktree_drop_vmlinux_o() { # builddir
	[ -f "$1/vmlinux.o" ] && [ -f "$1/ipsecperf-built" ] || return 0
	rm -f "$1/vmlinux.o" && touch "$1/ipsecperf-built"
}

# Configure (once per recipe) and build (incrementally) BUILDDIR from the
# source; prints BUILDDIR. Serialised: one kernel build at a time on the
# machine. With prune=1, a variant's build is pruned (ktree_prune).
ktree_build() { # builddir localversion tree [configure: 1 for the base] [prune]
	local out=$1 lv=$2 tree=$3 conf=${4:-0} prune=${5:-0} recipe
	ktree_src || return 1
	recipe=$(ktree_recipe)
	(
		flock 9
		if [ "$conf" = 1 ] && [ "$(cat "$out/.ipsecperf-recipe" 2> /dev/null)" != "$recipe" ]; then
			[ -f "$out/ipsecperf-guest.config" ] || rm -rf "$out"
			"$IPSECPERF" kernel config -q -O "$out" "$tree" >&2 || exit 1
			echo "$recipe" > "$out/.ipsecperf-recipe"
		fi
		"$IPSECPERF" kernel build ${lv:+--localversion "$lv"} -O "$out" "$tree" >&2 || exit 1
		[ "$prune" = 0 ] || ktree_prune "$out"
		ktree_drop_vmlinux_o "$out"
	) 9> "$KTREE_CACHE/build.lock" || return 1
	echo "$out"
}

# The base build: the configuration `kernel config` writes, release 6.12.117.
ktree_base() {
	ktree_build "$KBASE" "" "$KSRC" 1
}

# A variant of the base build: the source with PATCH applied and, after
# it, scripts/config ARGS on the configuration; prints its build folder.
# tools/kernel-tree-copy.sh makes it: the source hard-linked (the files
# the patch changes written anew, so the base is untouched), its build/
# folder a copy of the base's, mtimes kept: only what the patch or the
# options change is rebuilt. Cached: prepared again only when PATCH, ARGS
# or the base build change. A build that fails returns 1 with the build
# log's tail on stderr.
ktree_variant() { # name patchfile [scripts/config args...]
	local name=$1 patch=$2 sum vsrc
	shift 2
	vsrc="$KTREE_CACHE/src/linux-6.12-$name"
	ktree_base > /dev/null || return 1
	# made again when the patch, the options, the base build or the recipe
	# changed, or when its build never ended (a pruned folder is not built on)
	sum=$( { cat "$patch"; echo "$*"; cat "$KBASE/.config"; stat -c %Y "$KBASE/arch/x86/boot/bzImage"; ktree_recipe; } |
		sha256sum | cut -c1-16)
	if [ "$(cat "$vsrc/build/.ipsecperf-variant" 2> /dev/null)" != "$sum" ] || [ ! -f "$vsrc/build/ipsecperf-built" ]; then
		rm -rf "$vsrc"
		bash "$TOP/tools/kernel-tree-copy.sh" "$KSRC" "$vsrc" "$patch" || return 1
		if [ $# -gt 0 ]; then
			"$vsrc/scripts/config" --file "$vsrc/build/.config" "$@" &&
				make -s -C "$vsrc" O="$vsrc/build" olddefconfig > /dev/null || return 1
		fi
		echo "$sum" > "$vsrc/build/.ipsecperf-variant"
	fi
	ktree_build "$vsrc/build" "-$name" "$vsrc" 0 1
}

# The base build and the busy-wait patch on it (esp4-busywait.patch), each
# with its release: sets kb, ks, base and slow, or fails the test.
ktree_base_and_slow() {
	local patches="$TOP/tests/integration/kernel-patches"
	kb=$(ktree_base) || fail "the tests' kernel could not be built"
	ks=$(ktree_variant esp-slow "$patches/esp4-busywait.patch") || fail "the patched kernel did not build"
	base=$(cat "$kb/include/config/kernel.release") slow=$(cat "$ks/include/config/kernel.release")
}
