#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# What the commands print for people and for programs: --version (and from
# a tree without git), -f json of doctor (its per-CPU SAs' row, and
# WireGuard's and MACsec's as the kernel has their modules), list, kernel list, kernel show,
# report --profile and probe --list --json, each parsed with python's json;
# report --profile's text within 72 columns; `kernel` alone one usage line.
. "$(dirname "$0")/lib.sh"

# --- versions ----------------------------------------------------------------
semver=$(awk 'NR == 1 { gsub(/[()]/, ""); print $2; exit }' "$TOP/debian/changelog")
[[ $semver =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "debian/changelog's version '$semver' is not X.Y.Z"
v=$("$IPSECPERF" --version) || fail "--version exited $?"
[[ $v =~ ^ipsecperf\ ([0-9]+\.[0-9]+\.[0-9]+)\ \((.+)\)$ ]] || fail "--version printed '$v', not 'ipsecperf X.Y.Z (GITDESC)'"
[ "${BASH_REMATCH[1]}" = "$semver" ] || fail "--version says ${BASH_REMATCH[1]}, debian/changelog $semver"
if git -C "$TOP" rev-parse --git-dir > /dev/null 2>&1; then
	gitdesc=$(git -C "$TOP" describe --always --dirty --tags)
	# the build may predate the last change of the tree: compare the commit only
	[ "${BASH_REMATCH[2]%-dirty}" = "${gitdesc%-dirty}" ] ||
		fail "--version says (${BASH_REMATCH[2]}), git describe $gitdesc (rebuild?)"
fi
[ "$("$IPSECPERF" version)" = "$v" ] || fail "'ipsecperf version' and --version differ"

# a release tarball has no git: its version comes from debian/changelog and
# .gitdesc, filled in by make dist (and by git archive's export-subst)
make -s -C "$TOP" dist > "$TMP/dist.out" 2>&1 || { rc=$?; cat "$TMP/dist.out" >&2; fail "make dist exited $rc"; }
mkdir "$TMP/tar"
tar -xzf "$TOP/build/ipsecperf-$semver.tar.gz" -C "$TMP/tar" || fail "cannot unpack the tarball"
src="$TMP/tar/ipsecperf-$semver"
[ -d "$src/.git" ] && fail "the tarball holds .git"
[ -f "$src/debian/changelog" ] && [ -f "$src/collector/cmd/main.c" ] || fail "the tarball lacks the sources"
GIT_DIR=/nonexistent make -s -C "$src" build/version.h > /dev/null 2>&1 || fail "version.h does not build from the tarball"
grep -qx "#define IPSECPERF_VERSION \"$semver\"" "$src/build/version.h" || fail "the tarball's build has not version $semver"
if [ -n "${gitdesc:-}" ]; then
	grep -qx "#define IPSECPERF_GITDESC \"$gitdesc\"" "$src/build/version.h" ||
		fail "the tarball's build does not carry git describe $gitdesc: $(grep GITDESC "$src/build/version.h")"
	mkdir "$TMP/arch"
	git -C "$TOP" archive HEAD | tar -x -C "$TMP/arch"
	GIT_DIR=/nonexistent make -s -C "$TMP/arch" build/version.h > /dev/null 2>&1 || fail "version.h from git archive"
	grep -qx "#define IPSECPERF_GITDESC \"$(git -C "$TOP" describe --always --tags HEAD)\"" "$TMP/arch/build/version.h" ||
		grep -qx "#define IPSECPERF_GITDESC \"$(git -C "$TOP" rev-parse --short HEAD)\"" "$TMP/arch/build/version.h" ||
		fail "git archive's tree does not know its commit: $(grep GITDESC "$TMP/arch/build/version.h")"
fi
rm -rf "$TMP/tar" "$TMP/arch"

# --- -f json ---------------------------------------------------------------
json_ok() { # what file expression-on-d [--arg NAME VALUE]...
	assert_json "${@:4}" "$2" "$3" "$1: not the JSON it should be"
}

ip xfrm state > "$TMP/sad.before" 2>&1
"$IPSECPERF" doctor -f json > "$TMP/doctor.json" || fail "doctor -f json exited $?"
# the per-CPU SAs' probe made its SA in a namespace of its own, which went with it
ip xfrm state > "$TMP/sad.after" 2>&1
cmp -s "$TMP/sad.before" "$TMP/sad.after" || fail "doctor left an SA here: $(diff "$TMP/sad.before" "$TMP/sad.after")"
json_ok "doctor -f json" "$TMP/doctor.json" \
	'd["kernel"]["release"] == release and len(d["checks"]) > 10 and
	 all(set(c) == {"section", "check", "verdict", "detail"} and c["verdict"] in ("yes", "likely", "no", "?") for c in d["checks"]) and
	 {"IPsec", "TCP authentication"} <= {c["section"] for c in d["checks"]} and
	 any(c["check"] == "iperf3" for c in d["checks"])' --arg release "$(uname -r)"
"$IPSECPERF" doctor | grep -q '^  xfrm netlink ' || fail "doctor's text lost its rows"
# per-CPU SAs (probed: as root, a yes or a no), WireGuard and MACsec (their modules, as this kernel has them)
wg=no; { [ -d /sys/module/wireguard ] || modprobe -n -q wireguard 2> /dev/null; } && wg=yes
ms=no; { [ -d /sys/module/macsec ] || modprobe -n -q macsec 2> /dev/null; } && ms=yes
json_ok "doctor's per-CPU SAs and encrypted links" "$TMP/doctor.json" \
	'[(c["verdict"], c["detail"] != "") for c in d["checks"] if c["check"] == "per-CPU SAs"] in ([("yes", True)], [("no", True)]) and
	 [c["verdict"] for c in d["checks"] if c["check"] in ("WireGuard", "MACsec")] == [wg, ms]' --arg wg "$wg" --arg ms "$ms"

"$IPSECPERF" list -f json > "$TMP/list.json" || fail "list -f json exited $?"
json_ok "list -f json" "$TMP/list.json" \
	'[s["name"] for s in d["scenarios"]] == sorted(s["name"] for s in d["scenarios"]) and
	 {"clear", "esp-null", "tcp-md5"} <= {s["name"] for s in d["scenarios"]} and
	 all(s["description"] != "" and s["file"].endswith("/" + s["name"] + ".ini") and s["load"] in ("iperf3", "stream", "tcp-rr", "tcp-crr", "udp-rr", "udp-rate") for s in d["scenarios"])'
[ "$(json_value "$TMP/list.json" 'len(d["scenarios"])')" = \
	"$("$IPSECPERF" list | wc -l)" ] || fail "list -f json and list name different scenarios"

# a kernel cache of one fake kernel
export IPSECPERF_CACHE="$TMP/cache"
k="$IPSECPERF_CACHE/linux-image-9.9.9-test_9.9.9-1_amd64"
mkdir -p "$k/boot" "$k/lib/modules/9.9.9-test"
touch "$k/boot/vmlinuz-9.9.9-test" "$k/lib/modules/9.9.9-test/modules.order" "$k/.ipsecperf-complete"
echo "CONFIG_XFRM=y" > "$k/boot/config-9.9.9-test"
"$IPSECPERF" kernel list -f json > "$TMP/klist.json" || fail "kernel list -f json exited $?"
json_ok "kernel list -f json" "$TMP/klist.json" \
	'd == [{"spec": "debian:linux-image-9.9.9-test", "release": "9.9.9-test", "dir": dir}]' --arg dir "$k"
"$IPSECPERF" kernel show -f json debian:linux-image-9.9.9-test "$k" > "$TMP/kshow.json" || fail "kernel show -f json exited $?"
json_ok "kernel show -f json" "$TMP/kshow.json" \
	'len(d) == 2 and all(x["release"] == "9.9.9-test" and x["image"].endswith("/boot/vmlinuz-9.9.9-test") and
	 x["modules"].endswith("/lib/modules/9.9.9-test") and len(x["config_sha256"]) == 64 for x in d) and
	 d[0]["spec"] == "debian:linux-image-9.9.9-test"'
"$IPSECPERF" kernel list | grep -q '^debian:linux-image-9.9.9-test  *9.9.9-test$' || fail "kernel list's text lost its row"
"$IPSECPERF" kernel list -f yaml > /dev/null 2>&1
[ $? = 2 ] || fail "kernel list -f yaml must exit 2"
unset IPSECPERF_CACHE

# `kernel` alone: one line of usage on stderr, nothing on stdout, exit 2
"$IPSECPERF" kernel > "$TMP/k.out" 2> "$TMP/k.err"
rc=$?
[ $rc = 2 ] || fail "'ipsecperf kernel' exited $rc, not 2"
[ -s "$TMP/k.out" ] && fail "'ipsecperf kernel' printed on stdout"
[ "$(wc -l < "$TMP/k.err")" = 1 ] || fail "'ipsecperf kernel' printed $(wc -l < "$TMP/k.err") lines, not one: $(cat "$TMP/k.err")"
grep -q 'fetch, list, show, config or build' "$TMP/k.err" || fail "'ipsecperf kernel' does not name the actions"

# report --profile on the committed profile example (a copy: it writes the folded stacks)
ex="$TOP/results/examples/20261206T084917-vm-profile-6.1"
[ -f "$ex/runs.jsonl" ] || fail "the profile example $ex is missing"
cp -r "$ex" "$TMP/prof"
"$IPSECPERF" report --profile --folded "$TMP" "$TMP/prof" > "$TMP/prof.txt" || fail "report --profile exited $?"
awk 'length($0) > 72 { printf "%d columns: %s\n", length($0), $0; bad = 1 } END { exit bad }' "$TMP/prof.txt" >&2 ||
	fail "report --profile has lines over 72 columns (above)"
grep -q '^esp-null against clear' "$TMP/prof.txt" || fail "report --profile lost its difference table"
grep -q '^  profile-esp-null.folded$' "$TMP/prof.txt" || fail "report --profile does not name the folded stacks"
# two kernels, one with a long name: headers name both
python3 - "$TMP/prof" "$TMP/prof2" << 'EOF'
import json, os, shutil, sys
src, dst = sys.argv[1], sys.argv[2]
shutil.copytree(src, dst)
old, new = "6.1.0-57-cloud-amd64", "6.12.117+deb12-cloud-amd64-localbuild"
os.rename(os.path.join(dst, "raw", old), os.path.join(dst, "raw", new))
with open(os.path.join(dst, "runs.jsonl"), "w") as f:
    for line in open(os.path.join(src, "runs.jsonl")):
        r = json.loads(line)
        r["kernel"] = new
        f.write(json.dumps(r) + "\n")
EOF
"$IPSECPERF" report --profile --base-kernel 6.1.0-57-cloud-amd64 --folded "$TMP" "$TMP/prof" "$TMP/prof2" > "$TMP/prof2.txt" ||
	fail "report --profile of two kernels exited $?"
awk 'length($0) > 72 { printf "%d columns: %s\n", length($0), $0; bad = 1 } END { exit bad }' "$TMP/prof2.txt" >&2 ||
	fail "report --profile of two kernels has lines over 72 columns (above)"
"$IPSECPERF" report --profile -f json --top 5 --base-kernel 6.1.0-57-cloud-amd64 --folded "$TMP" "$TMP/prof" "$TMP/prof2" \
	> "$TMP/prof.json" || fail "report --profile -f json exited $?"
json_ok "report --profile -f json" "$TMP/prof.json" \
	'len(d["groups"]) == 4 and all(len(g["top"]) == 5 and g["runs"] >= 3 and g["hz"] > 0 and g["cycles_per_byte"] > 0 and
	 g["busy_samples"] + g["idle_samples"] == g["samples"] and g["commands"][0]["command"] == "iperf3" for g in d["groups"]) and
	 sorted((x["kernel"], x["scenario"], x["base_kernel"]) for x in d["diffs"]) ==
	 [("6.12.117+deb12-cloud-amd64-localbuild", s, "6.1.0-57-cloud-amd64") for s in ("clear", "esp-null")] and
	 all(len(x["gains"]) <= 5 and all(r["gain"] > 0 for r in x["gains"]) for x in d["diffs"]) and
	 len(d["folded"]) == 4 and d["skipped"] == 0'
for f in $(json_value "$TMP/prof.json" '" ".join(d["folded"])'); do
	[ -s "$f" ] || fail "report --profile -f json: folded stacks $f empty or missing"
done
"$IPSECPERF" report --profile -f json --base esp-null "$TMP/prof" > "$TMP/base.json" ||
	fail "report --profile -f json --base esp-null exited $?"
json_ok "report --profile -f json --base esp-null: not clear against esp-null with its losses" "$TMP/base.json" \
	'len(d["diffs"]) == 1 and (d["diffs"][0]["scenario"], d["diffs"][0]["base_scenario"]) == ("clear", "esp-null") and
	 all(r["gain"] > 0 for r in d["diffs"][0]["gains"]) and 0 < len(d["diffs"][0]["losses"]) <= 5 and
	 [r["gain"] for r in d["diffs"][0]["losses"]] == sorted(r["gain"] for r in d["diffs"][0]["losses"]) and
	 d["diffs"][0]["losses"][-1]["gain"] < 0'

# probe --list --json: the reason in a field of its own
if "$IPSECPERF" probe --list --json > "$TMP/probe.json" 2> "$TMP/probe.err"; then
	json_ok "probe --list --json" "$TMP/probe.json" \
		'"esp_output" in d and "xmit_skbs" in d and all(
		 (v["available"] is True and v["symbol"] != "" and v.get("reason") is None) or
		 (v["available"] is False and v.get("symbol") is None and v["reason"] != "" and
		  not v["reason"].startswith("unavailable")) for v in d.values())'
	"$IPSECPERF" probe --list -f json | cmp -s - "$TMP/probe.json" || info "note: probe -f json and --json differ (a probe changed in between?)"
	# a path of this kernel's is named as it is, never as a placeholder
	grep -q 'RELEASE' "$TMP/probe.json" && fail "probe --list names /lib/modules/RELEASE, not this kernel's folder"
else
	info "probe --list --json exited non-zero here: $(head -1 "$TMP/probe.err")"
fi
exit 0
