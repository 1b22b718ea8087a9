#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make install into a DESTDIR, then the installed program on its own:
# list and doctor, a 2 s clear run (scenarios found beside the program,
# not in the source tree), a chart from the installed template, its man
# pages, its completion found by bash-completion; a copy moved elsewhere
# and a lone copy of the binary; then make uninstall leaves nothing.
. "$(dirname "$0")/lib.sh"

command -v man > /dev/null || skip_ours "no man: install man-db (make deps)"

D="$TMP/root"
P="$D/usr/local"
unset IPSECPERF_SCENARIOS IPSECPERF_TEMPLATES
make -s -C "$TOP" install DESTDIR="$D" > "$TMP/install.out" 2>&1 ||
	{ rc=$?; cat "$TMP/install.out" >&2; fail "make install DESTDIR=$D exited $rc"; }

for f in bin/ipsecperf share/ipsecperf/scenarios/clear.ini share/ipsecperf/scenarios/esp-null.ini \
	share/ipsecperf/templates/bars.gp share/man/man1/ipsecperf.1 share/man/man1/ipsecperf-run.1 \
	share/man/man1/ipsecperf-report.1 share/bash-completion/completions/ipsecperf \
	share/doc/ipsecperf/README.md share/doc/ipsecperf/docs/user-guide.md; do
	[ -f "$P/$f" ] || fail "make install did not install $P/$f"
done
cmp -s "$P/bin/ipsecperf" "$IPSECPERF" || fail "the installed program is not build/ipsecperf"
[ -x "$P/bin/ipsecperf" ] || fail "the installed program is not executable"
# one page per command that `ipsecperf help` lists
for c in $("$IPSECPERF" help | awk '/^commands:$/ { on = 1; next } on && /^$/ { exit } on && /^  [a-z]/ { print $1 }'); do
	[ -f "$P/share/man/man1/ipsecperf-$c.1" ] || fail "no man page ipsecperf-$c(1)"
done
# PREFIX moves everything (a dry run: the real build stays as it is)
make -s -n -C "$TOP" install DESTDIR=/x PREFIX=/opt/ipp | grep -q ' /x/opt/ipp/bin/ipsecperf$' ||
	fail "make install PREFIX=/opt/ipp does not install into /opt/ipp/bin"

# the installed program finds the installed data, not the source tree's
IP="$P/bin/ipsecperf"
"$IP" list > "$TMP/list" || fail "installed list exited $?"
grep -q '^clear ' "$TMP/list" && grep -q '^esp-null ' "$TMP/list" || fail "installed list lacks clear or esp-null"
"$IP" list -f json > "$TMP/list.json" || fail "installed list -f json exited $?"
assert_json --arg folder "$P/share/ipsecperf/scenarios" "$TMP/list.json" \
	'd["folder"] == folder and {"clear", "no-tso", "no-gso", "esp-null"} <= {s["name"] for s in d["scenarios"]}' \
	"installed list -f json: not the installed scenarios"
"$IP" doctor > "$TMP/doctor" 2> "$TMP/doctor.err" || { rc=$?; cat "$TMP/doctor.err" >&2; fail "installed doctor exited $rc"; }
grep -q '^IPsec$' "$TMP/doctor" || fail "installed doctor printed no IPsec section"

out="$TMP/res"
installed_clear_run "$IP" "$out" "$P/share/ipsecperf/scenarios" "the installed program"

if command -v gnuplot > /dev/null; then
	"$IP" report -c "$TMP/charts" "$out" > /dev/null 2> "$TMP/charts.err" ||
		{ rc=$?; cat "$TMP/charts.err" >&2; fail "installed report -c exited $rc"; }
	cmp -s "$TMP/charts/bars.gp" "$P/share/ipsecperf/templates/bars.gp" ||
		fail "report -c did not use the installed chart template"
fi

# man: the pages render without a warning, and man finds them by name
for f in "$P"/share/man/man1/*.1; do
	w=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$f" 2>&1 > /dev/null)
	[ -z "$w" ] || fail "$(basename "$f"): man --warnings: $w"
done
MANPATH="$P/share/man" man -P cat ipsecperf-run > "$TMP/man-run" 2> "$TMP/man.err" ||
	{ rc=$?; cat "$TMP/man.err" >&2; fail "MANPATH=... man ipsecperf-run exited $rc"; }
grep -q 'ipsecperf-run - run a scenario matrix' "$TMP/man-run" || fail "ipsecperf-run(1) has no NAME line"
grep -q -- '--duration S' "$TMP/man-run" || fail "ipsecperf-run(1) does not list --duration"
# the page is the help text: every option of `run --help` is on it
for o in $("$IPSECPERF" run --help | grep -o -- '--[a-z][a-z0-9-]*' | sort -u); do
	grep -q -- "$o" "$TMP/man-run" || fail "ipsecperf-run(1) lacks $o, which run --help has"
done
MANPATH="$P/share/man" man -P cat ipsecperf-report 2> /dev/null | grep -q '^REPORT --PROFILE' ||
	fail "ipsecperf-report(1) has no section for report --profile"
MANPATH="$P/share/man" man -P cat ipsecperf 2> /dev/null | grep -q 'IPSECPERF_SCENARIOS' ||
	fail "ipsecperf(1) does not name IPSECPERF_SCENARIOS"

# bash-completion's loader finds the installed completion
if [ -f /usr/share/bash-completion/bash_completion ]; then
	XDG_DATA_DIRS="$P/share" bash -c '. /usr/share/bash-completion/bash_completion
		__load_completion ipsecperf && complete -p ipsecperf' 2> /dev/null | grep -q -- '-F _ipsecperf ipsecperf$' ||
		fail "bash-completion does not load $P/share/bash-completion/completions/ipsecperf"
fi

# a copy of the whole install elsewhere finds its own data
cp -a "$P" "$TMP/moved"
"$TMP/moved/bin/ipsecperf" list -f json > "$TMP/moved.json"
assert_json --arg want "$TMP/moved/share/ipsecperf/scenarios" "$TMP/moved.json" \
	'd["folder"] == want' "a moved install does not use its own scenarios"
rm -rf "$TMP/moved"
# a lone copy of the program looks in the install it was built for, and says where
mkdir "$TMP/lone" && cp "$IP" "$TMP/lone/ipsecperf"
"$TMP/lone/ipsecperf" list -f json > "$TMP/lone.json" 2> /dev/null
assert_json "$TMP/lone.json" 'd["folder"] == "/usr/local/share/ipsecperf/scenarios"' \
	"a lone copy of the program does not fall back to /usr/local/share/ipsecperf/scenarios"
# the environment overrides the program's location
mkdir "$TMP/sc" && cp "$TOP/scenarios/no-gso.ini" "$TMP/sc/only-this.ini"
[ "$(IPSECPERF_SCENARIOS="$TMP/sc" "$IP" list | awk '{ print $1 }')" = only-this ] ||
	fail "IPSECPERF_SCENARIOS does not override the installed scenarios"

# uninstall: nothing left
make -s -C "$TOP" uninstall DESTDIR="$D" > "$TMP/uninstall.out" 2>&1 ||
	{ rc=$?; cat "$TMP/uninstall.out" >&2; fail "make uninstall exited $rc"; }
left=$(find "$D" -type f -o -type l -o -name '*ipsecperf*')
[ -z "$left" ] || fail "make uninstall left: $left"

# make demo installs only what the netns demo needs; make deps all of it
vars=$(make -s -C "$TOP" -pn demo-deps 2> /dev/null)
demo=$(awk -F' := ' '$1 == "DEMO_PKGS" { print $2 }' <<< "$vars")
deps=$(awk -F' := ' '$1 == "DEB_PKGS" { print $2 }' <<< "$vars")
[ -n "$demo" ] && [ -n "$deps" ] || fail "no DEMO_PKGS or DEB_PKGS in the Makefile"
for p in qemu-system-x86 busybox-static openssh-server linux-perf gnuplot-nox libcmocka-dev lintian; do
	grep -qw -- "$p" <<< "$demo" && fail "make demo would install $p, which the demo does not need"
done
for p in $demo; do grep -qw -- "$p" <<< "$deps" || fail "make deps lacks $p, which make demo installs"; done
make -s -C "$TOP" -n demo | grep -qw qemu-system-x86 && fail "make demo still installs what make deps does"
exit 0
