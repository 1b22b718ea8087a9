# SPDX-License-Identifier: GPL-2.0
"""Strict assertions on the JSON the program writes (tests/integration).

    assert_json.py [MODE] [--arg NAME VALUE]... FILE EXPR [MESSAGE]

MODE is one of
    --doc     (default) FILE is one JSON document, bound to `d`
    --each    FILE is JSON lines: EXPR must hold for every record, `r`
    --all     FILE is JSON lines: EXPR over the list of records, `rs`
    --print   FILE is JSON lines: print EXPR of every record, one a line
    --value   FILE is one JSON document: print EXPR of it, `d`
FILE "-" is standard input. --arg binds NAME to the string VALUE.

EXPR passes only when it evaluates to exactly True (a bool). It fails,
with exit 1 and one line naming the file, the line, the expression and
why, when it is False or not a bool, when it raises, when it reads a key
that is missing or whose value is null, or when the file has no record.
Reading a key with r["k"] (or an element with x[i], or iterating) is
strict: a missing key or a null fails. r.get("k") and r.get("k", default)
are the explicit ways to read a key that may be missing or null.
Bad usage exits 2.

Inline test scripts use the same strictness with
    from assert_json import document, records
(lib.sh puts this folder on PYTHONPATH).

The expressions are the tests' own, not hostile input; still they are
evaluated with a small set of builtins and no imports.
"""
import json
import re
import sys


class Missing(Exception):
    """A key or an element the expression read is missing or null."""


def strict(v):
    if isinstance(v, dict) and not isinstance(v, StrictDict):
        return StrictDict(v)
    if isinstance(v, list) and not isinstance(v, StrictList):
        return StrictList(v)
    return v


def _nonnull(v, what):
    if v is None:
        raise Missing(f"{what} is null")
    return v


class StrictDict(dict):
    """A JSON object whose [] fails on a missing key and on a null."""

    def __init__(self, src):
        super().__init__((k, strict(v)) for k, v in src.items())

    def __getitem__(self, k):
        if not dict.__contains__(self, k):
            raise Missing(f"missing key {k!r}")
        return _nonnull(dict.__getitem__(self, k), f"key {k!r}")

    def values(self):
        return [_nonnull(v, f"key {k!r}") for k, v in dict.items(self)]

    def items(self):
        return [(k, _nonnull(v, f"key {k!r}")) for k, v in dict.items(self)]


class StrictList(list):
    """A JSON array whose elements, read or iterated, must not be null."""

    def __init__(self, src):
        super().__init__(strict(v) for v in src)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return StrictList(list.__getitem__(self, i))
        try:
            v = list.__getitem__(self, i)
        except IndexError:
            raise Missing(f"no element {i} (of {len(self)})") from None
        return _nonnull(v, f"element {i}")

    def __iter__(self):
        for i, v in enumerate(list.__iter__(self)):
            yield _nonnull(v, f"element {i}")


class Bad(Exception):
    """The file itself is unusable: unreadable, not JSON, no record."""


def _open(path):
    try:
        return sys.stdin if path == "-" else open(path, encoding="utf-8")
    except OSError as e:
        raise Bad(f"cannot read: {e.strerror}") from None


def document(path):
    """The JSON document in path, strict."""
    with _open(path) as f:
        try:
            return strict(json.load(f))
        except ValueError as e:
            raise Bad(f"not JSON: {e}") from None


def numbered_records(path):
    """(line number, strict record) of every line of a JSON lines file."""
    out = []
    with _open(path) as f:
        for n, line in enumerate(f, 1):
            try:
                out.append((n, strict(json.loads(line))))
            except ValueError as e:
                raise Bad(f"line {n}: not JSON: {e}") from None
    if not out:
        raise Bad("no records")
    return out


def records(path):
    """Every record of a JSON lines file, strict; at least one."""
    return [r for _, r in numbered_records(path)]


def unsaid(r, n):
    """How many of n counts a kprobe may have missed with no record saying
    so: kernels before 6.7 give no kprobe's own missed hits (docs/probes.md,
    "Missed counts"), so there a count may be short by a few, at most 1 in
    10,000 (1 at least); 0 on 6.7 and later, which say them."""
    m = re.match(r"(\d+)\.(\d+)", r.get("kernel") or "")
    return max(1, n // 10000) if m and (int(m.group(1)), int(m.group(2))) < (6, 7) else 0


def slack(r, n, said="probe_missed"):
    """How far below n a kprobe count over record r's whole load may fall:
    the runs the kernel skipped and said it did (r[said].load) and, before
    6.7, unsaid()."""
    return ((r.get(said) or {}).get("load") or 0) + unsaid(r, n)


def probe_equals_sa(r, ctr, key, direction="out"):
    """The probe counter ctr, per SPI over the whole load, equals each
    SA's own count key ("packets", "wire_packets") in record r, of the SAs
    of that direction ("out": the sender's, "in": the receiver's); printed.
    Short by at most the program runs the kernel skipped and said it did
    (probe_missed.load, results-format.md) and, before 6.7, unsaid(), never
    over."""
    per = r["counters"][ctr]["per_sa_load"]
    outs = [s for s in r["sa_load"] if s["dir"] == direction]
    missed = (r.get("probe_missed") or {}).get("load") or 0
    if not (outs): raise AssertionError((r["scenario"], r["sa_load"]))
    for s in outs:
        got = per.get(s["spi"], 0)
        print(f"  {r['scenario']}: {ctr} {s['spi']} {got} calls, SA {key} {s[key]}"
              + (f", {missed} runs missed" if missed else ""), file=sys.stderr)
        if not (s[key] - slack(r, s[key]) <= got <= s[key]): raise AssertionError((r["scenario"], ctr, s["spi"], got, key, s[key], missed))


def match(pattern, s):
    """Whether the extended regex pattern is found in the string s."""
    if not isinstance(s, str):
        raise TypeError(f"match() needs a string, not {type(s).__name__}")
    return re.search(pattern, s) is not None


SAFE = {f.__name__: f for f in (
    abs, all, any, bool, dict, enumerate, float, int, isinstance, len, list, max,
    min, range, round, set, sorted, str, sum, tuple, zip)}
SAFE["match"] = match


def value(expr, names):
    """The expression's value; it may span lines (it is put in brackets)."""
    code = compile("(" + expr + "\n)", "<expr>", "eval")
    return eval(code, {"__builtins__": SAFE, **names})  # our tests' own expressions


def check(expr, names):
    """Return if the expression is True, or raise with why it is not."""
    v = value(expr, names)
    if v is True:
        return
    if v is False:
        raise AssertionError("is False")
    raise AssertionError(f"is {type(v).__name__} {str(v)[:80]!r}, not True")


def where(r):
    """A record's name, its status and, when it is not ok, why."""
    if not isinstance(r, dict):
        return ""
    parts = [f"{k} {dict.get(r, k)}" for k in ("scenario", "repeat", "status") if k in r]
    if dict.get(r, "status") != "ok" and isinstance(dict.get(r, "reason"), str):
        parts.append(f"reason {dict.get(r, 'reason')[:100]!r}")
    return f" ({', '.join(parts)})" if parts else ""


def summary(rs):
    """The records, briefly, for a failed --all: what there was instead."""
    text = "; ".join(where(r)[2:-1] for r in rs)
    return f" [records: {text[:300]}]"


def why(e):
    if isinstance(e, (Missing, AssertionError)):
        return str(e)
    return f"{type(e).__name__}: {e}"


def usage(msg):
    print(f"assert_json.py: {msg} (see its docstring)", file=sys.stderr)
    sys.exit(2)


def parse(argv):
    mode, names, rest = "--doc", {}, []
    while argv:
        a = argv.pop(0)
        if a in ("--doc", "--each", "--all", "--print", "--value"):
            mode = a
        elif a == "--arg":
            if len(argv) < 2 or not argv[0].isidentifier():
                usage("--arg takes NAME VALUE")
            names[argv[0]] = argv[1]
            del argv[:2]
        else:
            rest.append(a)
    if len(rest) not in (2, 3):
        usage("takes FILE EXPR [MESSAGE]")
    return mode, names, rest[0], rest[1], (rest[2] if len(rest) == 3 else "")


def run(mode, names, path, expr, message):
    """Evaluate; on failure print one line and return 1."""
    name = "stdin" if path == "-" else path
    shown = " ".join(expr.split())  # one line
    lead = f"FAIL: {message}: " if message else "FAIL: "
    n, r, rs = None, None, None
    try:
        if mode == "--doc":
            check(expr, {**names, "d": document(path)})
        elif mode == "--value":
            print(value(expr, {**names, "d": document(path)}))
        elif mode == "--all":
            rs = records(path)
            check(expr, {**names, "rs": rs})
        else:
            for n, r in numbered_records(path):
                if mode == "--each":
                    check(expr, {**names, "r": r})
                else:
                    print(value(expr, {**names, "r": r}))
    except BrokenPipeError:  # --print into `head`: what was wanted was read
        sys.stdout = None
        return 0
    except Bad as e:
        print(f"{lead}{name}: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # anything the expression raises is a failure
        at = f" line {n}{where(r)}" if n is not None else ""
        more = summary(rs) if rs is not None else ""
        print(f"{lead}{name}{at}: {shown}: {why(e)}{more}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(run(*parse(sys.argv[1:])))
