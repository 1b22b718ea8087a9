#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The docs stand on their own and say what the program does:
# - docs/results-format.md has every key of meta.json and runs.jsonl that
#   the committed examples (vm, profiles) and a fresh netns run (with
#   --probe-cost, --probe-overhead, a failed and a skipped scenario) hold;
# - the user guide's command table lists every command of `ipsecperf help`;
# - every command the docs show is one the program has (and kernel's
#   actions), every option they give it is one it has, and every scenario
#   they give run is one of `ipsecperf list`;
# - the README's sample, peer-testbed.md's mail and docs/example.md's
#   reports and comparisons are what the program prints for the committed
#   examples they name;
# - the docs and the code's comments stand alone: every path they name
#   under the tree's folders exists, and nothing cites an issue
#   number, DESIGN.md or the people who measured, nor speaks of the tree's
#   history, its development machines or a test's folders.
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
for c in $("$IPSECPERF" help | awk '/^commands:$/ { on = 1; next } on && /^$/ { exit } on && /^  [a-z]/ { print $1 }'); do
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
scenarios = {l.split()[0] for l in helptext("list").splitlines() if l.strip()}
takes_value = {"--time"}
for line in helptext("run", "--list-options").splitlines():
    f = line.split("\t")
    if f[2] != "-":
        takes_value.add(f[0])
        if f[1] != "-":
            takes_value.add(f[1])
kernel_actions = {"fetch", "list", "show", "config", "build"}
known["report"] |= opts(helptext("report", "--profile", "--help"))
top = opts(helptext("help"))
every = set().union(top, *known.values())
bad = []
for f in sys.argv[2:]:
    text = open(f).read()
    spans = re.findall(r"`([^`\n]+)`", text)
    code = spans + re.findall(r"^(?:    |\t)(.*)$", text, re.M)
    for c in code:
        if c.strip().startswith("ipsecperf:"):
            continue  # a message the program prints, not a command
        c = re.sub(r"(^|\s)#\s.*$", "", c)  # a shell comment
        for m in re.finditer(r"(?:^|[\s(;&|])(?:\S*/)?ipsecperf((?:\s+-v)*)\s+([a-z][a-z-]*)([^;&|#]*)", c):
            cmd, rest = m.group(2), m.group(3)
            if cmd not in known and subprocess.run([prog, "help", cmd], capture_output=True).returncode == 0:
                known[cmd] = opts(helptext(cmd, "--help"))  # a hidden one: bisect-step, guest
            if cmd not in known:
                bad.append("%s: `ipsecperf %s` is not a command: %s" % (f, cmd, c.strip()[:80]))
                continue
            words = rest.split()
            if cmd == "kernel" and words and re.match(r"^[a-z]+$", words[0]) and words[0] not in kernel_actions:
                bad.append("%s: `ipsecperf kernel %s` is no action of kernel: %s" % (f, words[0], c.strip()[:80]))
            skip = False
            for w in words if cmd == "run" else []:
                if skip or w.startswith("-"):
                    skip = not skip and w in takes_value
                    continue
                if re.match(r"^[a-z][a-z0-9-]*$", w) and w not in scenarios:
                    bad.append("%s: `ipsecperf run` has no scenario %s: %s" % (f, w, c.strip()[:80]))
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

# the kinds of fact the docs repeat from the program, each held to the program:
# - names: a run's namespaces and journals as the program names them
#   (ipsecperf-PID-START-tx, journal-PID-START.jsonl), in the docs and the help;
#   the CSV's columns as report -f csv writes them;
# - exit statuses: a list of them lives on the command's page only; an
#   "exit N" the docs give one command is on that command's page;
# - options: a command line on a testbed uses only options that testbed takes;
# - defaults: "--opt ... default X" in the docs is the help's default.
python3 - "$IPSECPERF" "$TOP/README.md" "$TOP"/docs/*.md << 'EOF' >&2 || fail "the docs say otherwise than the program (above)"
import re, subprocess, sys

prog = sys.argv[1]
def out(*args):
    return subprocess.run([prog, *args], capture_output=True, text=True).stdout
cmds = re.findall(r"^  ([a-z][a-z-]*) ", out("help").split("\nexit status:")[0], re.M)
pages = {c: out(c, "--help") for c in cmds}
exits = {}
for c, page in pages.items():
    sec = page.split("\nexit status:\n", 1)[1].split("\n\n", 1)[0] if "\nexit status:\n" in page else ""
    exits[c] = set(re.findall(r"^  ([0-9]+(?:\+N)?)\b", sec, re.M))
testbeds_of = {}
for line in out("run", "--list-options").splitlines():
    f = line.split("\t")
    testbeds_of[f[0]] = set(f[3].split(",")) if f[3] != "-" else None
    if f[1] != "-":
        testbeds_of[f[1]] = testbeds_of[f[0]]
defaults = {}
for c in ("run", "compare", "report", "bisect"):
    # an option's help item, its text up to the next item
    for m in re.finditer(r"^  (?:-[a-zA-Z], )?(--[a-z][a-z0-9-]*)[^\n]*?  (.*(?:\n {24}.*)*)", pages.get(c, ""), re.M):
        d = re.search(r"\(default ([^ );:,]+)", m.group(2))
        if d:
            defaults.setdefault(m.group(1), set()).add(d.group(1))
names_ok = re.compile(r"(ipsecperf-(PID|\d+)-(START|\d+)-(tx|rx)|journal-(PID|\d+)-(START|\d+)\.jsonl|measuring-(PID|\d+)-(START|\d+))$")
bad = []
texts = [("`ipsecperf help run`", pages["run"])] + [(f, open(f).read()) for f in sys.argv[2:]]
for f, text in texts:
    for m in re.finditer(r"\b(ipsecperf-[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*-(?:tx|rx)|journal-[A-Z0-9]+(?:-[A-Z0-9]+)*\.jsonl|measuring-[A-Z0-9]+(?:-[A-Z0-9]+)*)\b", text):
        if not names_ok.match(m.group(1)) and "peertest" not in m.group(1):
            bad.append("%s: %s is not how the program names it (PID-START)" % (f, m.group(1)))
for f, text in texts[1:]:
    flat = re.sub(r"\s+", " ", text)
    for m in re.finditer(r"[Ee]xit status(?:es)?[:,]? 0\b[^.]{0,80}\b1\b[^.]{0,80}\b2\b", flat):
        bad.append("%s: a list of exit statuses (%s...): it is the command's page's (EXIT STATUS)" % (f, m.group(0)[:50]))
    for sent in re.split(r"(?<=[.;])\s", flat):
        # `ipsecperf help CMD` names CMD's page, not help's exit statuses
        named = {c if c != "help" else h for c, h in re.findall(r"`(?:\S*/)?ipsecperf (?:-v )?([a-z][a-z-]*) ?([a-z-]*)", sent)} & set(cmds)
        for n in re.findall(r"\bexit(?:s| status)? ([0-9]+)\b", sent):
            for c in named:
                if exits.get(c) and n not in exits[c]:
                    bad.append("%s: `ipsecperf %s` ... exit %s: not on its page (%s)" % (f, c, n, ", ".join(sorted(exits[c]))))
    for m in re.finditer(r"`(?:\S*/)?ipsecperf run ([^`]*--testbed ([a-z-]+)[^`]*)`", flat):
        tb = m.group(2)
        for o in re.findall(r"(?<![\w/=.-])(--[a-z][a-z0-9-]*|-[a-zA-Z])(?=[\s=]|$)", m.group(1)):
            where = testbeds_of.get(o)
            if where is not None and tb not in where:
                bad.append("%s: `ipsecperf run %s`: %s is not an option of the %s testbed" % (f, m.group(1)[:60], o, tb))
    for line in text.splitlines():
        for m in re.finditer(r"`(?:-[a-zA-Z]/)?(--[a-z][a-z0-9-]*)[^`]*`[^`|]*?\bdefault:? ([^ );:,`]+)", line):
            o, v = m.group(1), m.group(2).rstrip(".%")
            if o in defaults and v not in defaults[o]:
                bad.append("%s: %s's default is %s here, %s on its help page" % (f, o, v, "/".join(sorted(defaults[o]))))
# names: the CSV's columns as report -f csv writes them
import glob, os
ex = sorted(glob.glob(os.path.join(os.path.dirname(sys.argv[2]), "results/examples/*/runs.jsonl")))
csv_head = out("report", "-f", "csv", os.path.dirname(ex[-1])).split("\n", 1)[0] if ex else None
for f, text in texts[1:]:
    for m in re.finditer(r"`(kernel,scenario,[a-z0-9_,]+)`", text):
        if csv_head is not None and m.group(1) != csv_head:
            bad.append("%s: the CSV's columns are %s, not %s" % (f, csv_head, m.group(1)))
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF

grep -q 'docs/results-format.md' "$TOP/README.md" || fail "the README does not point at docs/results-format.md"
grep -n 'shared folder\|/work/shared\|DESIGN\.md\|reference/' "$TOP/README.md" "$TOP"/docs/*.md >&2 &&
	fail "the docs point at a file outside the project (above)"
# the tree stands alone: no issue numbers, no DESIGN.md, no talk of who
# measured, in the docs or in the code's comments
(cd "$TOP" && git ls-files 2> /dev/null) | grep -E '\.(c|h|sh|py|awk|md)$|^Makefile$' |
	grep -v -E '^tests/integration/test_docs\.sh$' |
	(cd "$TOP" && xargs grep -n -i -E 'issue #?[0-9]+|DESIGN\.md|other engineers?\b|other helpers|what is owed|other sessions?\b') >&2 &&
	fail "the tree names issues, DESIGN.md or who measured (above)"
# ... nor a narrator, nor history: whose machine ("the development host",
# "a new session's"), when something was otherwise ("until 2026-12-01",
# "before this check"), targets no one owns, a test's or a work tree's
# folder in what a reader is shown
(cd "$TOP" && git ls-files 2> /dev/null) | grep -E '\.(c|h|sh|py|awk|md)$|^Makefile$' |
	grep -v -E '^tests/integration/test_docs\.sh$' |
	(cd "$TOP" && xargs grep -n -i -E "development (host|machine|vms?)\b|a new session|of the session\b|this session\b|until 20[0-9]{2}-[0-9]{2}|before this (check|change)\b|the project's rule|the figures asked for|[0-9]+-minute target|target (holds|is missed|is met|is not met)|/tmp/ipsecperf-test\.[A-Za-z0-9]*[a-z0-9][A-Za-z0-9]*/|(^|[^A-Za-z0-9_/$])/work/") >&2 &&
	fail "the tree speaks of its own history, its development machines or test folders (above)"
# ... and in what a user reads, the kinds of it beyond those words: the
# measuring machine as "this machine", "here" or "at hand" (a measurement
# says its machine in docs/measurements.md), what was so before or is not
# yet, and targets or rules no one owns
narrator=(
	'\b(one|this|that|first|new) session\b'          # whose sitting
	'\bthis (machine|host) (has|had|lacks|cannot)\b' # whose machine
	'\b(measured|seen|found|counted) here\b'
	'\bon this (host|machine) \('
	'\bno quiet machine\b|\bwas (not available|at hand)\b'
	'\b(not known|left) (yet|until)\b|\(yet\)'      # what is to come
	'\b(added|measured|timed) after that run\b'
	'\bas before\b|\bused to (be|inflate|find|read|take|run)\b|\bthe old (code|version|tree|reader|time)\b'
	'\bwhen that was\b|\bbefore the (hash table|boot changes|netlink)'
	'\b(the probes'"'"'|the suite'"'"'s|our) target\b|\bkept within [0-9]+ minutes\b'
	'/tmp/ipsecperf-test\.|--kernel[ =]/var/cache/ipsecperf/' # the tests' fixtures as a sample
)
for re in "${narrator[@]}"; do
	grep -n -i -E "$re" "$TOP/README.md" "$TOP"/docs/*.md >&2 &&
		fail "the docs narrate (/$re/, above): say the fact, its conditions in docs/measurements.md"
done

# every path the docs and the code name under the tree's folders is in the tree
python3 - "$TOP" << 'EOF' >&2 || fail "the docs or the code name files that are not in the tree (above)"
import glob, os, re, sys
top = sys.argv[1]
dirs = "docs|tools|tests|results|scenarios|analyze|collector|cmd|lib|run|vm|host|probes|testbed|kbuild|debian"
bad = []
pages = [os.path.join(top, "README.md"), os.path.join(top, "results", "README.md")] + sorted(glob.glob(os.path.join(top, "docs", "*.md")))
# and the code's comments (a moved file leaves its old path behind there too)
for d in ("collector", "analyze", "probes", "tests", "tools"):
    pages += sorted(f for f in glob.glob(os.path.join(top, d, "**", "*"), recursive=True)
                    if re.search(r"\.(c|h|sh|py)$", f) and os.path.isfile(f)
                    and not f.endswith("/test_layers.sh"))  # its self-test trees are made up
for f in pages:
    for n, line in enumerate(open(f), 1):
        for m in re.finditer(r"(?<![\w/.~$-])((?:%s)/[A-Za-z0-9_.+-]+(?:/[A-Za-z0-9_.+-]+)*)" % dirs, line):
            p = m.group(1).rstrip(".,:;")
            # files of the tree by their kind, and the committed examples; not
            # /lib/modules or a guest's run/ folder, nor placeholders (results/DIR)
            if not re.search(r"\.(c|h|sh|py|md|awk|gp|patch|ini|bash-completion)$|^results/examples/", p):
                continue
            if os.path.exists(os.path.join(top, p)) or re.search(r"[A-Z]{2,}|X\.Y\.Z|PID|<", p):
                continue
            bad.append("%s:%d: %s" % (os.path.relpath(f, top), n, p))
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF

# the README's sample and peer-testbed.md's mail: the program's own output
# for the committed examples they name
between() { # file marker
	awk -v m="$2" '$0 == "<!-- " m " end -->" { on = 0 } on { print } $0 == "<!-- " m " begin -->" { on = 1 }' "$1"
}
between "$TOP/README.md" sample > "$TMP/sample"
# every "$ ipsecperf ..." of the sample, on committed examples: what the program prints for it
grep -q '^\$ ipsecperf compare results/examples/' "$TMP/sample" || fail "the README's sample has no compare of committed examples"
python3 - "$IPSECPERF" "$TOP" "$TMP/sample" << 'EOF' >&2 || fail "the README's sample is not what the program prints and exits (above; tools/worked-example.sh refill)"
import re, subprocess, sys
prog, top, sample = sys.argv[1], sys.argv[2], open(sys.argv[3]).read().split("\n")
bad, rcs = [], []
for i, l in enumerate(sample):
    if not l.startswith("$ ipsecperf "):
        continue
    end = sample.index("```", i)
    # a command goes on over lines that end in a backslash
    cmd, j = l, i
    while cmd.endswith("\\"):
        j += 1
        cmd = cmd[:-1] + " " + sample[j]
    i = j
    args = cmd[len("$ ipsecperf "):].split()
    r = subprocess.run([prog] + args, cwd=top, capture_output=True, text=True)
    if "\n".join(sample[i + 1:end]) + "\n" != r.stdout:
        bad.append("README.md: `ipsecperf %s` prints otherwise now" % " ".join(args))
    if args[0] == "compare":
        rcs.append(r.returncode)
# every line within a mail's 72 columns, the commands as what they print
bad += ["README.md: a line of the sample is %d columns, not 72 at most: %s" % (len(l), l[:40])
        for l in sample if len(l) > 72]
# the exit statuses the prose gives, in its order, are the compares'; with two
# compares, one passes (nothing changed) and one catches the change
prose = re.sub(r"```.*?```", "", "\n".join(sample), flags=re.S)
said = [int(n) for n in re.findall(r"exit status (\d+)", prose)]
if said and said != rcs:
    bad.append("README.md: the sample's prose says exit status %s, the compares exit %s" % (said, rcs))
if len(rcs) >= 2 and not (0 in rcs and 1 in rcs):
    bad.append("README.md: the sample's compares exit %s: none passes or none catches a change" % rcs)
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF
between "$TOP/docs/peer-testbed.md" mail | sed 's/^    //' > "$TMP/mail"
p=$(sed -n 's/^Records and raw iperf3 output: <a link to \(.*\)>$/\1/p' "$TMP/mail")
[ -n "$p" ] && [ -f "$TOP/$p/meta.json" ] || fail "peer-testbed.md's mail names no committed results directory ('$p')"
(cd "$TOP" && "$IPSECPERF" report --summary "$p") | sed 's/ *$//' > "$TMP/want"
python3 - "$TMP/mail" "$TMP/want" << 'EOF' || fail "peer-testbed.md's mail does not hold report --summary of $p (tools/worked-example.sh peer)"
import sys
mail, want = open(sys.argv[1]).read(), open(sys.argv[2]).read()
sys.exit(0 if want in mail and "testbed   peer" in want else 1)
EOF
# docs/example.md: each code block under a command of report or compare on
# a committed example is what that command prints (tools/worked-example.sh)
python3 - "$IPSECPERF" "$TOP" << 'EOF' >&2 || fail "docs/example.md is not what the program prints (above; tools/worked-example.sh)"
import re, subprocess, sys
prog, top = sys.argv[1], sys.argv[2]
lines = open(top + "/docs/example.md").read().split("\n")
bad, checked = [], 0
for i, l in enumerate(lines):
    m = re.search(r"`ipsecperf ((?:report|compare) [^`]*results/examples/[^`]*)`", l)
    if not m or "-c DIR" in m.group(1) or "-f " in m.group(1):
        continue
    j = next((k for k in range(i + 1, min(i + 5, len(lines))) if lines[k] == "```"), None)
    if j is None:
        continue
    end = lines.index("```", j + 1)
    out = subprocess.run([prog] + m.group(1).split(), cwd=top, capture_output=True, text=True).stdout
    checked += 1
    if "\n".join(lines[j + 1:end]) + "\n" != out:
        bad.append("docs/example.md:%d: `ipsecperf %s` prints otherwise now" % (i + 1, m.group(1)))
print("\n".join(bad))
sys.exit(1 if bad or checked < 3 else 0)
EOF
# docs/compare.md's refusal: the command and what it prints, as it is
python3 - "$IPSECPERF" "$TOP" << 'EOF' >&2 || fail "docs/compare.md's sample is not what compare prints (above)"
import re, subprocess, sys
prog, top = sys.argv[1], sys.argv[2]
text = open(top + "/docs/compare.md").read()
m = re.search(r"^    \$ ipsecperf (compare (?:.*\\\n)*.*)\n((?:    ipsecperf: .*\n)+)", text, re.M)
if not m:
    sys.exit("docs/compare.md: no `$ ipsecperf compare` sample followed by its messages")
argv = re.sub(r"\\\n\s*", " ", m.group(1)).split()
want = "".join(l[4:] + "\n" for l in m.group(2).splitlines())
got = subprocess.run([prog] + argv, cwd=top, capture_output=True, text=True).stderr
if got != want:
    sys.exit("docs/compare.md: `ipsecperf %s` prints\n%s" % (" ".join(argv), got))
EOF
exit 0
