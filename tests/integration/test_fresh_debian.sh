#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make demo` on a fresh Debian, as the README tells a new user to run it:
# a minimal image of this host's release (mmdebstrap --variant=minbase,
# plus make, git and ca-certificates) made from this host's apt sources
# (its Debian ones only) and cached, a scratch copy of it, this
# repository cloned into it, and `make demo` run there as root in a
# chroot. It passes only if the demo installs all it needs (DEMO_PKGS),
# builds, runs clear, no-tso and no-gso and prints their summary; and the
# demo must leave no namespace, link, process or journal behind, in the
# chroot or on this host.
#
# The clone is of the repository's HEAD: what is not committed is not
# tested (commit first). FRESH_REV=REV tests another commit (an older one
# shows what the test catches), FRESH_DEMO_ARGS the demo's options.
#
# Cached under $IPSECPERF_CACHE (default /var/cache/ipsecperf):
#   images/CODENAME-minbase.tar     the image, with its recipe beside it
#                                   (.recipe); made again when the recipe
#                                   changes (sources, apt options,
#                                   mmdebstrap's version) or it is missing;
#                                   written under another name and renamed,
#                                   so a half-made image is never used
#   fresh-debian/apt-archives/      the chroot's /var/cache/apt/archives
#   fresh-debian/apt-lists/         and /var/lib/apt/lists, bind-mounted,
#                                   so a second run downloads nothing
#   fresh-debian/lock               one run at a time
# Everything mounted is unmounted on exit, also on failure, SIGINT or
# SIGTERM (a trap); only SIGKILL escapes that, and the next run unmounts
# and removes what a killed run left.
. "$(dirname "$0")/lib.sh"

for t in mmdebstrap chroot setsid flock mount git tar apt-cache apt-config; do
	command -v $t > /dev/null || skip_ours "no $t: make deps installs mmdebstrap and what it needs"
done
[ -r /etc/os-release ] && . /etc/os-release
[ "${ID:-}" = debian ] && [ -n "${VERSION_CODENAME:-}" ] || skip "not a Debian host: the image is made from its apt sources"
codename=$VERSION_CODENAME
[ "$(git -C "$TOP" rev-parse --show-toplevel 2> /dev/null)" = "$TOP" ] ||
	skip "$TOP is not a git repository: this test clones its HEAD"
demo_args=${FRESH_DEMO_ARGS:---duration 2 --repeat 1}

cache=${IPSECPERF_CACHE:-/var/cache/ipsecperf}
images=$cache/images
image=$images/$codename-minbase.tar
mkdir -p "$images" "$cache/fresh-debian/apt-archives/partial" "$cache/fresh-debian/apt-lists/partial" || fail "cannot make $cache"
root=$TMP/root
echo $$ > "$TMP/owner"

# The mount points at or under a folder, deepest first.
mounts_under() { # dir
	awk -v d="$1" '{ m = $5; gsub(/\\040/, " ", m); if (m == d || index(m, d "/") == 1) print m }' \
		/proc/self/mountinfo | sort -r
}
# Unmount everything under a folder; a busy mount is detached (umount -l)
# so that nothing under it can be reached from there any more.
unmount_under() { # dir
	local m
	for m in $(mounts_under "$1"); do
		umount "$m" 2> /dev/null || umount -l "$m" 2> /dev/null || echo "cannot unmount $m" >&2
	done
	[ -z "$(mounts_under "$1")" ]
}
# The processes whose root is the chroot (find reads /proc/PID/root as a
# link: one process, not one readlink per process).
chroot_pids() { # dir
	find /proc -mindepth 2 -maxdepth 2 -name root -lname "$1" 2> /dev/null | cut -d/ -f3
}
# TERM (ipsecperf restores the host on it), then KILL after 4 s: within
# the 10 s that run-all.sh's timeout leaves before its own KILL.
stop_chroot() { # dir
	local pids i
	pids=$(chroot_pids "$1")
	[ -n "$pids" ] || return 0
	kill -TERM $pids 2> /dev/null
	for i in $(seq 20); do
		sleep 0.2
		[ -z "$(chroot_pids "$1")" ] && return 0
	done
	pids=$(chroot_pids "$1")
	[ -z "$pids" ] || kill -KILL $pids 2> /dev/null
	for i in $(seq 10); do
		[ -z "$(chroot_pids "$1")" ] && return 0
		sleep 0.1
	done
}
# Remove a scratch folder only once nothing is mounted under it (rm must
# never reach this host's /dev, /sys or the apt cache through a bind
# mount). After a signal the removal (some seconds for a chroot with a
# compiler in it) goes on in the background, so that the test ends before
# run-all.sh's timeout kills it; a removal cut short is finished by the
# next run (its owner file says whose it was).
remove_scratch() { # dir [background]
	stop_chroot "$1/root"
	if ! unmount_under "$1"; then
		echo "test_fresh_debian: mounts are left under $1 (above); it is not removed" >&2
		return 1
	fi
	if [ -n "${2:-}" ]; then
		setsid rm -rf --one-file-system "$1" < /dev/null > /dev/null 2>&1 &
	else
		rm -rf --one-file-system "$1"
	fi
}
signalled=
cleanup() {
	local rc=$?
	# a second TERM comes (timeout signals the test, then its process
	# group): the clean-up must not die of it
	trap - EXIT
	trap '' INT TERM
	if [ -n "$signalled" ] && [ -s "$TMP/demo.out" ]; then
		echo "test_fresh_debian: stopped during make demo, whose output ended:" >&2
		tail -3 "$TMP/demo.out" | sed 's/^/  > /' >&2
	fi
	rm -f "$images/.$codename-minbase.tar.new" "$images/.$codename-minbase.recipe.new"
	remove_scratch "$TMP" $signalled || rc=1
	exit $rc
}
trap cleanup EXIT
trap 'signalled=1; exit 130' INT
trap 'signalled=1; exit 143' TERM

# one run at a time: the image and the apt caches are shared
exec 9> "$cache/fresh-debian/lock"
flock -w 1800 9 || fail "another test_fresh_debian holds $cache/fresh-debian/lock for 30 minutes"

# what a killed run (SIGKILL) left: its scratch folder, mounts and all
for o in /tmp/ipsecperf-test.*/owner; do
	[ -f "$o" ] && [ "$o" != "$TMP/owner" ] || continue
	kill -0 "$(cat "$o")" 2> /dev/null && continue
	info "removing what a killed run left: ${o%/owner}"
	remove_scratch "${o%/owner}" || fail "cannot clean up after a killed run: ${o%/owner}"
done

# The recipe: this host's Debian sources for its release (from apt's own
# view, so .list and .sources files alike, and without third-party
# sources whose keys a minimal image lacks), and the apt options that
# reach the mirror (proxy, validity checks of a snapshot mirror).
apt-cache policy | awk -v cn="$codename" '
	$1 ~ /^[0-9]+$/ && $2 ~ /^[a-z+]+:\/\// && $3 ~ /\// { uri = $2; split($3, sc, "/"); next }
	uri != "" && $1 == "release" {
		if ($2 ~ /(^|,)o=Debian(,|$)/ && (sc[1] == cn || index(sc[1], cn "-") == 1))
			print "deb " uri " " sc[1] " " sc[2]
		uri = ""
	}' | sort -u > "$TMP/sources.list"
[ -s "$TMP/sources.list" ] || skip "apt knows no Debian $codename source here (apt-get update)"
apt-config dump | grep -E '^Acquire::(Check-Valid-Until|Check-Date|(https?|ftp)::Proxy)( |::)' > "$TMP/aptopts"
aptopt=()
[ -s "$TMP/aptopts" ] && aptopt=(--aptopt="$TMP/aptopts")
mm_args=(--variant=minbase --include=make,git,ca-certificates --mode=root --format=tar)
recipe="test_fresh_debian image 1
mmdebstrap $(dpkg-query -W -f '${Version}' mmdebstrap) ${mm_args[*]} $codename $(dpkg --print-architecture)
$(cat "$TMP/sources.list")
$(cat "$TMP/aptopts")"

if [ -f "$image" ] && [ "$(cat "$image.recipe" 2> /dev/null)" = "$recipe" ]; then
	info "image: $image (cached)"
else
	rm -f "$image.recipe"
	start=$SECONDS
	new=$images/.$codename-minbase.tar.new
	mmdebstrap "${mm_args[@]}" "${aptopt[@]}" "$codename" "$new" "$TMP/sources.list" \
		> "$TMP/mmdebstrap.log" 2>&1 9>&- || { rc=$?; tail -30 "$TMP/mmdebstrap.log" >&2; fail "mmdebstrap exited $rc"; }
	mv -f "$new" "$image" || fail "cannot rename $new"
	printf '%s\n' "$recipe" > "$images/.$codename-minbase.recipe.new" &&
		mv -f "$images/.$codename-minbase.recipe.new" "$image.recipe" || fail "cannot write $image.recipe"
	info "image: $image made in $((SECONDS - start)) s"
fi

# the scratch copy, in memory where there is room (4 GB; it fills some
# 1.2 GB): dpkg's fsyncs cost nothing there, and it goes in one umount
# where removing it from a busy disk took 40 s; then the clone of HEAD
mkdir "$root" || fail "cannot make $root"
avail_kb=$(awk '$1 == "MemAvailable:" { print $2 }' /proc/meminfo)
if [ "${avail_kb:-0}" -gt $((6 * 1024 * 1024)) ]; then
	mount -t tmpfs -o size=4g,mode=0755 tmpfs "$root" || fail "cannot mount a tmpfs on $root"
fi
tar --numeric-owner -xf "$image" -C "$root" || fail "cannot unpack $image into $root"
[ -x "$root/usr/bin/make" ] && [ -x "$root/usr/bin/git" ] || fail "the image has no make or git"
for p in gcc clang bpftool iperf3 pkg-config; do
	[ ! -e "$root/usr/bin/$p" ] || fail "the image already has $p: it is not a fresh Debian"
done
[ ! -e "$root/usr/include/dwarf.h" ] || fail "the image already has dwarf.h: it is not a fresh Debian"
rev=${FRESH_REV:-HEAD}
head=$(git -C "$TOP" rev-parse --verify -q "$rev^{commit}") || fail "FRESH_REV $rev is not a commit here"
git clone -q --no-hardlinks "$TOP" "$root/root/ipsecperf" 9>&- &&
	git -C "$root/root/ipsecperf" checkout -q "$head" || fail "git clone $TOP (at $head) exited $?"
[ "$(git -C "$root/root/ipsecperf" rev-parse HEAD)" = "$head" ] || fail "the clone is not at $rev ($head)"
dirty=
[ "$rev" != HEAD ] || [ -z "$(git -C "$TOP" status --porcelain --untracked-files=no)" ] ||
	dirty=" (this working tree's changes are not in it)"
info "a clone of $rev, $(git -C "$TOP" log -1 --format='%h %s' "$head" | cut -c1-60)$dirty"

# what the chroot needs: proc, this host's sys and dev (BPF, BTF, veth,
# tracing), a /run of its own (ip netns, the journal: looked at below),
# this kernel's modules, the host's DNS, and the apt caches
rm -f "$root/etc/resolv.conf" && cp -L /etc/resolv.conf "$root/etc/resolv.conf" || fail "cannot copy resolv.conf"
mount -t proc proc "$root/proc" &&
	mount --rbind --make-rslave /sys "$root/sys" &&
	mount --rbind --make-rslave /dev "$root/dev" &&
	mount -t tmpfs -o mode=0755 tmpfs "$root/run" &&
	mount --bind "$cache/fresh-debian/apt-archives" "$root/var/cache/apt/archives" &&
	mount --bind "$cache/fresh-debian/apt-lists" "$root/var/lib/apt/lists" || fail "cannot mount the chroot's file systems"
if [ -d "/lib/modules/$(uname -r)" ]; then
	mkdir -p "$root/lib/modules/$(uname -r)" &&
		mount --bind "/lib/modules/$(uname -r)" "$root/lib/modules/$(uname -r)" &&
		mount -o remount,bind,ro "$root/lib/modules/$(uname -r)" || fail "cannot mount this kernel's modules"
fi

# a dpkg stopped half-way, as a machine may come: its journal of one
# status change (make's own stanza) in /var/lib/dpkg/updates, on which
# apt-get refuses to install ("dpkg was interrupted"); make demo must
# finish dpkg's work first
mkdir -p "$root/var/lib/dpkg/updates" &&
	awk '/^Package: make$/ { p = 1 } p && /^$/ { exit } p' "$root/var/lib/dpkg/status" \
		> "$root/var/lib/dpkg/updates/0000" && [ -s "$root/var/lib/dpkg/updates/0000" ] ||
	fail "cannot leave a dpkg journal entry in the image"
chroot "$root" apt-get install -y -q make > "$TMP/apt-interrupted" 2>&1 &&
	fail "apt-get does not see the dpkg journal entry: the test would not show that make demo handles it"
grep -q 'dpkg was interrupted' "$TMP/apt-interrupted" ||
	fail "apt-get refused for another reason than an interrupted dpkg: $(head -3 "$TMP/apt-interrupted")"

# this host's namespaces, links and journals (lib.sh's snapshot); its
# processes are left out: the demo's are known exactly, by their root,
# and other runs on a shared host would show up by name
host_state() { snapshot | awk '/^## / { section = $2 } section != "processes"'; }
host_state > "$TMP/before"
start=$SECONDS
# its own session, so that the trap can stop all of it; the make of a
# new user (no MAKEFLAGS, a plain environment), two jobs at a time
setsid chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	sh -c 'cd /root/ipsecperf && exec make -j"$(nproc)" demo DEMO_ARGS="$1"' sh "$demo_args" \
	> "$TMP/demo.out" 2>&1 9>&- &
wait $!
rc=$?
secs=$((SECONDS - start))
if [ $rc != 0 ]; then
	tail -40 "$TMP/demo.out" >&2
	grep -E 'fatal error|No such file|not found|Unable to locate' "$TMP/demo.out" | head -5 | sed 's/^/  > /' >&2
	fail "make demo in a fresh $codename exited $rc after $secs s (the output's end above): a package missing from DEMO_PKGS?"
fi
info "make demo in a fresh $codename: $secs s"
grep -q 'dpkg was interrupted: dpkg --configure -a first' "$TMP/demo.out" ||
	fail "make demo did not say that it finished an interrupted dpkg first"
[ -z "$(ls -A "$root/var/lib/dpkg/updates")" ] || fail "dpkg's journal is still in the image after make demo"

# the summary: a row per scenario, one run each, and where the results are
for s in clear no-tso no-gso; do
	grep -qE "^$s +1 +[0-9]" "$TMP/demo.out" || { tail -20 "$TMP/demo.out" >&2; fail "the demo's summary has no row for $s with 1 run"; }
done
# and ESP: measured, or skipped with its reason where this kernel has none
grep -qE "^esp-null +" "$TMP/demo.out" || { tail -20 "$TMP/demo.out" >&2; fail "the demo's summary has no row for esp-null"; }
res=$(sed -n 's/^results: //p' "$TMP/demo.out" | tail -1)
[ -n "$res" ] || fail "the demo printed no results: line"
case $res in /*) ;; *) res=/root/ipsecperf/$res ;; esac
assert_records "$root$res/runs.jsonl" \
	'[(r["scenario"], r["status"]) for r in rs][:3] == [("clear", "ok"), ("no-tso", "ok"), ("no-gso", "ok")] and
	 len(rs) == 4 and rs[3]["scenario"] == "esp-null" and (rs[3]["status"] == "ok" or
	 (rs[3]["status"] == "skipped" and bool(rs[3].get("reason"))))' \
	"the demo's runs are not clear, no-tso and no-gso, each once and ok, then esp-null ok or skipped with its reason"
# what the demo installed: DEMO_PKGS, nothing from make deps alone
installed() { chroot "$root" dpkg-query -W -f '${Status}' "$1" 2> /dev/null | grep -q 'install ok installed'; }
for p in libdw-dev clang bpftool iperf3; do
	installed $p || fail "the demo ran without $p installed: the test does not see what it installs"
done
for p in qemu-system-x86 openssh-server libcmocka-dev; do
	! installed $p || fail "make demo installed $p, which only make deps needs"
done

# nothing left: no process in the chroot, no namespace or journal in its
# /run, and this host as it was
left=$(chroot_pids "$root")
[ -z "$left" ] || fail "the demo left processes: $(ps -o pid=,comm= -p $left | tr '\n' ' ')"
ns=$(ls "$root/run/netns" 2> /dev/null)
[ -z "$ns" ] || fail "the demo left namespaces: $ns"
j=$(ls "$root/run/ipsecperf" 2> /dev/null | grep journal-)
[ -z "$j" ] || fail "the demo left journals: $j"
host_state > "$TMP/after"
assert_same_snapshot "$TMP/before" "$TMP/after" "after make demo in a chroot"
exit 0
