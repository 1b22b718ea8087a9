# SPDX-License-Identifier: GPL-2.0
# Functions for the VM testbed's tests (test_vm*.sh): sourced after lib.sh.
# Kernels come from Debian's archive through `ipsecperf kernel fetch` and
# stay in its cache ($IPSECPERF_CACHE, default /var/cache/ipsecperf/kernels),
# so only the first run downloads them.

[ -x "$IPSECPERF" ] || fail "$IPSECPERF is missing: run make"
# A VM test runs for minutes; a `make` in the same tree meanwhile must not
# swap the program under it. Run a copy, with the tree's scenarios.
cp "$IPSECPERF" "$TMP/ipsecperf" || fail "cannot copy $IPSECPERF"
IPSECPERF="$TMP/ipsecperf"
export IPSECPERF_SCENARIOS="${IPSECPERF_SCENARIOS:-$TOP/scenarios}"
command -v qemu-system-x86_64 > /dev/null || skip_ours "qemu-system-x86_64 missing (make deps)"
command -v apt-get > /dev/null || skip_ours "no apt-get to fetch Debian kernels"

# Other runs may share this machine (other tests, other people's VMs): this
# test's runs keep their scratch folders in $TMPDIR and their journals in
# $IPSECPERF_JOURNAL_DIR, both its own, so what they leave behind can be
# told from what others are doing.
export TMPDIR="$TMP/scratch" IPSECPERF_JOURNAL_DIR="$TMP/journal"
mkdir -p "$TMPDIR"

# What a VM run must not leave: its scratch folders, its qemu, its journal,
# the vm-pair's namespace (its bridges; the taps go with the qemus).
assert_vm_clean() { # what
	local left
	# the journal folder's own subfolders (peer/: the durable journals
	# of the peer and of bisect) may stay; no journal may
	left=$(ls -A "$TMPDIR" 2> /dev/null; find "$IPSECPERF_JOURNAL_DIR" -mindepth 1 ! -type d 2> /dev/null
	       pgrep -af qemu-system | grep -F "$TMP" || true
	       snapshot | grep -E '^ipsecperf-[0-9]+-[0-9]+-pair' || true)
	[ -z "$left" ] || fail "$1: left behind: $left"
}

# Print a --kernel spec for the newest Debian cloud kernel whose package
# name matches the extended regex $1 (the cached one if there is one),
# fetching it when needed; skip when it cannot be had (skip_ours: under
# make test that fails the test).
# Debian's 6.1 and, where it can be fetched, 6.12, as --kernel options in
# the array "kernels"; the status of vm_kernel when there is no 6.1. Under
# make test a 6.12 that cannot be had fails the test too.
vm_debian_kernels() {
	local k61 k612
	k61=$(vm_kernel "$DEB61") || return $?
	kernels=(--kernel "$k61")
	if k612=$(vm_kernel "$DEB612" 2> "$TMP/k612.err"); then
		kernels+=(--kernel "$k612")
	else
		[ -n "${IPSECPERF_TEST_DEPS:-}" ] && { cat "$TMP/k612.err" >&2; fail "no Debian 6.12 kernel (see above)"; }
		info "without 6.12: $(tail -1 "$TMP/k612.err")"
	fi
	info "kernels: ${kernels[*]}"
}

vm_kernel() { # regex
	local fd rc
	# one fetch at a time: run-all.sh runs two tests at once, and two
	# that want the same kernel on a new machine would both fetch it
	mkdir -p /run/lock && exec {fd}> /run/lock/ipsecperf-tests-kernel-fetch && flock "$fd"
	vm_kernel_unlocked "$1"
	rc=$?
	exec {fd}>&-
	return $rc
}
vm_kernel_unlocked() { # regex
	local cached pkg
	cached=$("$IPSECPERF" kernel list | awk '{print $1}' | sed 's/^debian://' |
		grep -E "^$1\$" | sort -V | tail -1)
	if [ -n "$cached" ]; then
		echo "debian:$cached"
		return
	fi
	pkg=$(apt-cache search --names-only "^$1\$" 2> /dev/null | awk '{print $1}' | sort -V | tail -1)
	if [ -z "$pkg" ]; then
		apt-get update -q > /dev/null 2>&1
		pkg=$(apt-cache search --names-only "^$1\$" 2> /dev/null | awk '{print $1}' | sort -V | tail -1)
	fi
	[ -n "$pkg" ] || skip_ours "apt knows no package matching $1"
	"$IPSECPERF" kernel fetch "debian:$pkg" > /dev/null 2> "$TMP/fetch.err" ||
		{ cat "$TMP/fetch.err" >&2; skip_ours "cannot fetch $pkg (offline?)"; }
	echo "debian:$pkg"
}

DEB61='linux-image-6\.1\.0-[0-9]+-cloud-amd64'
DEB612='linux-image-6\.12\.[0-9]+\+deb12-cloud-amd64'

# A stand-in qemu in BINDIR for the kernel images under GUESTS: it writes
# what the folder of the image holds onto the serial files (console, tar,
# live) and exits, as a guest that ran and stopped; with a file "flood" it
# floods the console, with "serve" it stays (a vm-pair receiver) until it
# is stopped, with "delay" it waits that many seconds before it exits. It
# leaves its argv, one word a line, in the folder's "argv". Any other
# kernel goes to the real qemu.
standin_qemu() { # guests bindir
	local real
	real=$(command -v qemu-system-x86_64)
	mkdir -p "$2"
	cat > "$2/qemu-system-x86_64" << EOF
#!/bin/bash
kernel= serial=()
prev=
for a in "\$@"; do
	case "\$prev" in
	-kernel) kernel=\$a ;;
	-serial) serial+=("\${a#file:}") ;;
	esac
	prev=\$a
done
case "\$kernel" in
"$1"/*)
	d=\$(dirname "\$kernel")
	printf '%s\\n' "\$@" > "\$d/argv"
	cp "\$d/console" "\${serial[0]}"
	[ -f "\$d/tar" ] && cp "\$d/tar" "\${serial[1]}"
	[ -f "\$d/live" ] && cp "\$d/live" "\${serial[2]}"
	if [ -f "\$d/flood" ]; then
		head -c 70000000 /dev/zero | tr '\0' 'x' >> "\${serial[0]}"
		exec sleep 600
	fi
	[ -f "\$d/serve" ] && exec sleep 600
	[ -f "\$d/delay" ] && sleep "\$(cat "\$d/delay")"
	exit 0 ;;
esac
exec "$real" "\$@"
EOF
	chmod +x "$2/qemu-system-x86_64"
}
