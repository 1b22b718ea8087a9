# SPDX-License-Identifier: GPL-2.0
# A kernel built from source for the tests: Debian's linux-source-6.12
# (installed by `make deps` as /usr/src/linux-source-6.12.tar.xz),
# unpacked once and configured and built by `ipsecperf kernel config` and
# `kernel build`, out of tree. Both stay in $IPSECPERF_KTREE_CACHE (default
# /var/cache/ipsecperf, next to the kernel cache), so a fresh machine
# builds it once (`make test` does, before the integration tests, see
# kernel_tree.sh) and later runs only check that nothing changed.
# Sourced; needs $IPSECPERF (the program) and fail().

KTREE_CACHE=${IPSECPERF_KTREE_CACHE:-/var/cache/ipsecperf}
KTREE_TAR=/usr/src/linux-source-6.12.tar.xz
KSRC="$KTREE_CACHE/src/linux-source-6.12"
KBASE="$KTREE_CACHE/build/6.12-base"

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

# Configure (once) and build (incrementally) BUILDDIR from the source;
# prints BUILDDIR. Serialised: one kernel build at a time on the machine.
ktree_build() { # builddir [localversion]
	local out=$1 lv=${2:-}
	ktree_src || return 1
	(
		flock 9
		if [ ! -f "$out/.config" ]; then
			"$IPSECPERF" kernel config -q -O "$out" "$KSRC" >&2 || exit 1
		fi
		"$IPSECPERF" kernel build ${lv:+--localversion "$lv"} -O "$out" "$KSRC" >&2 || exit 1
	) 9> "$KTREE_CACHE/build.lock" || return 1
	echo "$out"
}

# The base build: the configuration `kernel config` writes, release 6.12.117.
ktree_base() {
	mkdir -p "$KTREE_CACHE/build" && ktree_build "$KBASE"
}
