#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The Debian package: make deb (dpkg-buildpackage -b -us -uc in a copy of
# the tree without git), lintian clean at warning level, installed with
# apt; the installed program's version, doctor, a 2 s clear run from
# /usr/share/ipsecperf, man ipsecperf-run, its completion; then purged,
# and every file dpkg -L listed is gone.
#
# run-all: alone (it installs a package on this host, which the tests
# beside it would see, and holds dpkg's lock)
. "$(dirname "$0")/lib.sh"

for t in dpkg-buildpackage dh lintian apt-get man; do
	command -v $t > /dev/null || skip_ours "no $t: make deps installs the packaging tools"
done
# never replace a real install of this machine's owner
if dpkg-query -W -f='${Status}' ipsecperf 2> /dev/null | grep -q 'install ok installed'; then
	skip "ipsecperf is installed as a package here; this test would remove it"
fi
[ -e /usr/bin/ipsecperf ] && skip "/usr/bin/ipsecperf exists (not from a package); this test would replace it"

semver=$(awk 'NR == 1 { gsub(/[()]/, ""); print $2; exit }' "$TOP/debian/changelog")
arch=$(dpkg --print-architecture)
deb="$TOP/build/ipsecperf_${semver}_$arch.deb"
rm -f "$deb"
# no debug symbols package: not under test, and it takes time
DEB_BUILD_OPTIONS=noautodbgsym make -s -C "$TOP" deb > "$TMP/deb.out" 2>&1 ||
	{ rc=$?; cat "$TMP/deb.out" >&2; fail "make deb exited $rc"; }
[ -f "$deb" ] || fail "make deb did not make $deb"
dpkg-deb -f "$deb" Depends | grep -qw iperf3 || fail "the package does not depend on iperf3"
dpkg-deb -f "$deb" Recommends | grep -qw qemu-system-x86 || fail "the package does not recommend qemu-system-x86"
lintian --fail-on warning "$TOP/build/src/ipsecperf_${semver}_$arch.changes" \
	> "$TMP/lintian" 2>&1 || { cat "$TMP/lintian" >&2; fail "lintian finds warnings or errors (above)"; }
grep -E '^[EW]: ' "$TMP/lintian" >&2 && fail "lintian: warnings or errors (above)"

purge() {
	dpkg-query -W ipsecperf > /dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get purge -y -q ipsecperf > /dev/null 2>&1
}
trap 'purge; rm -rf "$TMP"' EXIT
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$deb" > "$TMP/apt.out" 2>&1 ||
	{ rc=$?; cat "$TMP/apt.out" >&2; fail "apt-get install $deb exited $rc"; }
dpkg -L ipsecperf > "$TMP/files" || fail "dpkg -L ipsecperf"

# the installed program, from the installed paths (not the source tree)
hash -r
[ "$(command -v ipsecperf)" = /usr/bin/ipsecperf ] || fail "ipsecperf in PATH is not /usr/bin/ipsecperf"
v=$(cd / && ipsecperf --version) || fail "ipsecperf --version exited $?"
[[ $v == "ipsecperf $semver ("*")" ]] || fail "the package's --version says '$v', not ipsecperf $semver (...)"
if git -C "$TOP" rev-parse --git-dir > /dev/null 2>&1; then
	[[ $v == *"($(git -C "$TOP" describe --always --dirty --tags))" ]] ||
		fail "the package (built in a copy without git) lost this tree's git describe: $v"
fi
(cd / && ipsecperf doctor) > "$TMP/doctor" 2> "$TMP/doctor.err" || { rc=$?; cat "$TMP/doctor.err" >&2; fail "ipsecperf doctor exited $rc"; }
grep -q '^IPsec$' "$TMP/doctor" || fail "the package's doctor printed no IPsec section"
(cd / && ipsecperf list -f json) > "$TMP/list.json"
assert_json "$TMP/list.json" 'd["folder"] == "/usr/share/ipsecperf/scenarios"' \
	"the package's program does not use /usr/share/ipsecperf/scenarios"

out="$TMP/res"
installed_clear_run ipsecperf "$out" /usr/share/ipsecperf/scenarios "the package"
assert_json --arg semver "$semver" --arg v "$v" "$out/meta.json" \
	'd["tool_semver"] == semver and d["tool_version"] == v.split(" ", 1)[1]' "meta.json: not the package's version"

man -P cat ipsecperf-run > "$TMP/man" 2> "$TMP/man.err" || { rc=$?; cat "$TMP/man.err" >&2; fail "man ipsecperf-run exited $rc"; }
grep -q 'ipsecperf-run - run a scenario matrix' "$TMP/man" || fail "man ipsecperf-run: no NAME line"
bash -c '. /usr/share/bash-completion/bash_completion; __load_completion ipsecperf && complete -p ipsecperf' 2> /dev/null |
	grep -q -- '-F _ipsecperf ipsecperf$' || fail "bash-completion does not load the package's completion"

# purge: every file the package had is gone; what is left of its folders
# are the shared ones (/usr, /usr/share/man/man1, ...)
DEBIAN_FRONTEND=noninteractive apt-get purge -y -q ipsecperf > "$TMP/purge.out" 2>&1 ||
	{ rc=$?; cat "$TMP/purge.out" >&2; fail "apt-get purge ipsecperf exited $rc"; }
dpkg-query -W -f='${Status}' ipsecperf 2> /dev/null | grep -q 'installed' && fail "ipsecperf is still installed"
[ "$(wc -l < "$TMP/files")" -gt 20 ] || fail "dpkg -L listed only $(wc -l < "$TMP/files") paths"
while read -r f; do
	[ -e "$f" ] || [ -L "$f" ] || continue
	[ -d "$f" ] && [[ $f != *ipsecperf* ]] && continue
	fail "left after the purge: $f"
done < "$TMP/files"
exit 0
