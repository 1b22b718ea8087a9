#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The docs stand on their own and say what the program does:
# - docs/results-format.md has every key of meta.json and runs.jsonl that
#   the committed examples (vm, profiles) and a fresh netns run (with
#   --probe-cost, --probe-overhead, a failed and a skipped scenario) hold;
# - the user guide's command table lists every command of `ipsecperf help`;
# - every option the docs give to an ipsecperf command is one it has;
# - the README points at the docs inside the project, not outside it.
. "$(dirname "$0")/lib.sh"

page="$TOP/docs/results-format.md"
[ -f "$page" ] || fail "no docs/results-format.md"

# a fresh run: ok, failed (offloads the kernel will not combine) and, where
# this kernel has no ESP, skipped records; probe cost and the overhead pair
out="$TMP/res"
"$IPSECPERF" run --quiet --duration 2 --omit 1 --repeat 1 --probe-cost --probe-overhead -o "$out" \
	clear "$TOP/tests/integration/scenarios/cannot-apply.ini" esp-null > "$TMP/run.out" 2> "$TMP/run.err"
rc=$?
[ $rc = 0 ] || [ $rc = 1 ] || { cat "$TMP/run.err" >&2; fail "the run exited $rc"; }
assert_records "$out/runs.jsonl" 'any(r["status"] == "failed" for r in rs)' "the run has no failed record to document"
python3 "$TOP/tests/integration/doc_keys.py" "$page" "$out" "$TOP"/results/examples/*/ >&2 ||
	fail "keys the program writes are missing from docs/results-format.md (above)"

# the user guide's table: | command | what |, one row per command
for c in $("$IPSECPERF" help | awk '/^commands:$/ { on = 1; next } on && /^  [a-z]/ { print $1 }'); do
	grep -q "^| $c |" "$TOP/docs/user-guide.md" || fail "the user guide's command table lacks '$c'"
done

# options: in code (`...` and indented lines), what follows `ipsecperf CMD`
# must be CMD's options; a code span that starts with an option must be one
# of some command's
python3 - "$IPSECPERF" "$TOP/README.md" "$TOP"/docs/*.md << 'EOF' >&2 || fail "the docs name options the program does not have (above)"
import re, subprocess, sys

prog = sys.argv[1]
def helptext(*args):
    return subprocess.run([prog, *args], capture_output=True, text=True).stdout
def opts(text):
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*|-[a-zA-Z])\b", text))

cmds = re.findall(r"^  ([a-z][a-z-]*) ", helptext("help"), re.M)
known = {c: opts(helptext(c, "--help")) for c in cmds}
known["report"] |= opts(helptext("report", "--profile", "--help"))
top = opts(helptext("help"))
every = set().union(top, *known.values())
bad = []
for f in sys.argv[2:]:
    text = open(f).read()
    spans = re.findall(r"`([^`\n]+)`", text)
    code = spans + re.findall(r"^(?:    |\t)(.*)$", text, re.M)
    for c in code:
        for m in re.finditer(r"(?:^|[\s(;&|])(?:\S*/)?ipsecperf((?:\s+-v)*)\s+([a-z][a-z-]*)([^;&|#]*)", c):
            cmd, rest = m.group(2), m.group(3)
            for o in re.findall(r"(?<![\w/=.-])(--[a-z][a-z0-9-]*|-[a-zA-Z])(?=[\s=,)\]]|$)", rest):
                if cmd in known and o not in known[cmd] and o not in top:
                    bad.append("%s: `ipsecperf %s` has no %s: %s" % (f, cmd, o, c.strip()[:80]))
    for c in spans:
        m = re.match(r"\s*(--[a-z][a-z0-9-]*)", c)
        if m and m.group(1) not in every:
            bad.append("%s: no command has %s: %s" % (f, m.group(1), c.strip()[:80]))
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF

grep -q 'docs/results-format.md' "$TOP/README.md" || fail "the README does not point at docs/results-format.md"
grep -n 'shared folder\|/work/shared\|DESIGN\.md\|reference/' "$TOP/README.md" "$TOP"/docs/*.md >&2 &&
	fail "the docs point at a file outside the project (above)"
exit 0
