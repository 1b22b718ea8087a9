#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Reference values for tests/unit/test_stats.c from an independent
implementation, SciPy (Debian's python3-scipy), printed as a C header:

    python3 tools/stats-reference.py > tests/unit/stats_reference.h

Run once and committed; the unit tests never need SciPy. Each case is a
pair of samples (unequal sizes, with and without ties, on both sides of
the exact/approximate threshold MW_EXACT_MAX = 80) and what SciPy says of
them:
- Mann-Whitney U, exact without ties: mannwhitneyu(method="exact");
- Mann-Whitney U, exact with ties (the permutation distribution of the
  mid-rank sum, every split counted): permutation_test over all
  C(na + nb, na) splits of |rank sum of a - na (n + 1) / 2|, as
  analyze/stats.c defines the two-sided p;
- Mann-Whitney U above the threshold: mannwhitneyu(method="asymptotic",
  use_continuity=True), the normal approximation with the tie and
  continuity corrections;
- Welch: ttest_ind(equal_var=False), and its t and Welch-Satterthwaite
  degrees of freedom (written beside it; the p depends on them);
- Student t at fractional degrees of freedom: t.cdf, t.ppf;
- the median's interval: binom.cdf for the coverage of order statistics
  k and n + 1 - k.
The data come from random.Random with fixed seeds; they are printed into
the header, so the test does not depend on how Python draws them.

    python3 tools/stats-reference.py --check-r

checks the header's values against a second implementation instead, R
(Debian's r-base-core: wilcox.test, t.test, pt, qt, pbinom, and the
exact p with ties by enumerating every split with combn), and prints
the largest relative difference of each kind.
"""
import math
import random
import re
import subprocess
import sys

import numpy as np
import scipy
from scipy import stats

MW_EXACT_MAX = 80


def arr(name, xs):
    vals = [repr(float(x)) for x in xs]
    lines = [", ".join(vals[i:i + 8]) for i in range(0, len(vals), 8)]
    return f"static const double {name}[{len(xs)}] = {{\n\t" + ",\n\t".join(lines) + "\n};"


def draw(seed, n, scale=1.0, shift=0.0, levels=None):
    """n values: uniform on [shift, shift + scale), or integers below levels."""
    r = random.Random(seed)
    if levels:
        return [math.floor(r.random() * levels) + shift for _ in range(n)]
    return [round(shift + scale * r.random(), 6) for _ in range(n)]


def ties_of(xs):
    vals = sorted(xs)
    return len(vals) != len(set(vals))


def exact_ties_p(a, b):
    """P(|W - E| >= |w - E|) over every split of the pooled mid-ranks."""
    na, n = len(a), len(a) + len(b)
    e = na * (n + 1) / 2

    def stat(x, y, axis=-1):
        pooled = np.concatenate([x, y], axis=axis)
        ranks = stats.rankdata(pooled, axis=axis)
        return np.abs(ranks[..., :x.shape[axis]].sum(axis=axis) - e)

    res = stats.permutation_test((np.array(a), np.array(b)), stat, permutation_type="independent",
                                 vectorized=True, n_resamples=np.inf, alternative="greater")
    return res.pvalue


def mw_case(name, a, b, why):
    n = len(a) + len(b)
    u = stats.mannwhitneyu(a, b, method="asymptotic").statistic
    if n > MW_EXACT_MAX:
        p = stats.mannwhitneyu(a, b, method="asymptotic", use_continuity=True).pvalue
        how = "mannwhitneyu(method=\"asymptotic\", use_continuity=True)"
    elif ties_of(a + b):
        p = exact_ties_p(a, b)
        how = "permutation_test over all splits"
    else:
        p = stats.mannwhitneyu(a, b, method="exact").pvalue
        how = "mannwhitneyu(method=\"exact\")"
    print(f"/* {name}: {why}; {len(a)} vs {len(b)}{', ties' if ties_of(a + b) else ''}: {how} */")
    print(arr(f"{name}_a", a))
    print(arr(f"{name}_b", b))
    print(f"#define {name.upper()}_U {float(u)!r}")
    print(f"#define {name.upper()}_P {float(p)!r}\n")


def welch_case(name, a, b, why):
    va, vb = np.var(a, ddof=1) / len(a), np.var(b, ddof=1) / len(b)
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    res = stats.ttest_ind(a, b, equal_var=False)
    print(f"/* {name}: {why}; {len(a)} vs {len(b)}: ttest_ind(equal_var=False), "
          f"t {float(res.statistic)!r}, df {float(df)!r} */")
    print(arr(f"{name}_a", a))
    print(arr(f"{name}_b", b))
    print(f"#define {name.upper()}_P {float(res.pvalue)!r}\n")


def median_ci_case(n):
    k, tail = 0, 0.0
    while k < n and stats.binom.cdf(k, n, 0.5) <= 0.025:
        k += 1
    tail = stats.binom.cdf(k - 1, n, 0.5) if k else 0
    return k, (1 - 2 * tail) if k else float("nan")


def main():
    print("/* SPDX-License-Identifier: GPL-2.0 */")
    print("/*")
    print(" * Generated, do not edit: python3 tools/stats-reference.py > tests/unit/stats_reference.h")
    print(f" * (SciPy {scipy.__version__}, NumPy {np.__version__}, Python {sys.version.split()[0]}).")
    print(" * Reference values for tests/unit/test_stats.c; the script says how each was computed.")
    print(" */")
    print("#ifndef IPSECPERF_STATS_REFERENCE_H\n#define IPSECPERF_STATS_REFERENCE_H\n")

    mw_case("mw_exact_4_9", draw(1, 4), draw(2, 9, shift=0.3), "exact, unequal sizes")
    mw_case("mw_exact_3_17", draw(3, 3, shift=0.5), draw(4, 17), "exact, one sample much smaller")
    mw_case("mw_ties_5_9", draw(5, 5, levels=5), draw(6, 9, levels=5, shift=2), "exact with ties")
    mw_case("mw_ties_7_12", draw(7, 7, levels=4), draw(8, 12, levels=4, shift=1), "exact with many ties")
    mw_case("mw_ties_11_4", draw(9, 11, levels=9), draw(10, 4, levels=4, shift=3), "exact with ties, a larger")
    # at the threshold: 80 is still exact, 81 is not; the two differ by far at the tails
    mw_case("mw_edge_30_50", draw(11, 30, shift=0.1), draw(12, 50), "exact at the threshold (n 80)")
    mw_case("mw_edge_41_40", draw(13, 41, shift=0.25), draw(14, 40), "the first n above the threshold (81)")
    mw_case("mw_normal_50_37", draw(15, 50, levels=10), draw(16, 37, levels=10, shift=1),
            "normal approximation, heavy ties")
    mw_case("mw_normal_100_23", draw(17, 100), draw(18, 23, shift=0.12), "normal approximation, no ties")
    mw_case("mw_normal_60_45", draw(19, 60, levels=3), draw(20, 45, levels=3),
            "normal approximation, three values only")
    same = draw(28, 30)
    mw_case("mw_normal_30_60", same, sorted(same + same, key=lambda v: (v * 7919) % 1),
            "normal approximation, U at its mean (p 1: |U - mean| - 1/2 < 0)")

    welch_case("welch_4_11", draw(21, 4, scale=3.0), draw(22, 11, shift=0.8), "unequal sizes and spreads")
    welch_case("welch_2_30", draw(23, 2, shift=1.0), draw(24, 30, scale=0.5), "two values against thirty")
    welch_case("welch_13_6", draw(25, 13, scale=0.2, shift=5.0), draw(26, 6, scale=2.0, shift=5.0),
               "the small sample the noisy one")

    print("/* Student t at fractional degrees of freedom: {df, t, t.cdf(t, df), t.ppf(0.975, df)} */")
    rows = []
    for df, t in ((1.5, 2.1), (2.5, -0.7), (4.37, 3.3), (9.93, 1.2), (47.2, -2.6), (300.5, 1.97)):
        rows.append(f"\t{{ {df!r}, {t!r}, {float(stats.t.cdf(t, df))!r}, {float(stats.t.ppf(0.975, df))!r} }},")
    print("static const double t_reference[][4] = {\n" + "\n".join(rows) + "\n};\n")

    print("/* The median's interval: {n, k, coverage}, order statistics k and n + 1 - k (binom.cdf) */")
    rows = []
    for n in (6, 7, 9, 17, 40, 101, 1000):
        k, cov = median_ci_case(n)
        rows.append(f"\t{{ {n}, {k}, {cov!r} }},")
    print("static const struct { int n, k; double coverage; } median_ci_reference[] = {\n"
          + "\n".join(rows) + "\n};\n")

    x = draw(27, 7, scale=10.0)
    m, sem = np.mean(x), stats.sem(x)
    lo, hi = stats.t.interval(0.95, len(x) - 1, loc=m, scale=sem)
    print("/* stats_compute: mean, sd (ddof 1) and t.interval(0.95, n - 1, mean, sem) */")
    print(arr("summary_x", x))
    print(f"#define SUMMARY_MEAN {float(m)!r}\n#define SUMMARY_SD {float(np.std(x, ddof=1))!r}")
    print(f"#define SUMMARY_CI_LO {float(lo)!r}\n#define SUMMARY_CI_HI {float(hi)!r}\n")
    print("#endif")


def check_r(path="tests/unit/stats_reference.h"):
    """Each value of the header against R's; the largest relative difference of each kind."""
    h = open(path, encoding="utf-8").read()
    arrs = {m.group(1): [float(x) for x in m.group(2).replace("\t", "").replace("\n", "").split(",")]
            for m in re.finditer(r"static const double (\w+)\[\d+\] = \{(.*?)\};", h, re.S)}
    defs = {m.group(1): float(m.group(2)) for m in re.finditer(r"#define (\w+) ([-+.\de]+)\n", h)}
    vec = lambda x: "c(" + ",".join(repr(t) for t in x) + ")"
    cmds, want = [], []
    for name in sorted({k[:-2] for k in arrs if k.startswith(("mw_", "welch_"))}):
        a, b, p = arrs[name + "_a"], arrs[name + "_b"], defs[name.upper() + "_P"]
        n, ties = len(a) + len(b), ties_of(a + b)
        if name.startswith("welch_"):
            cmds.append(f"t.test({vec(a)}, {vec(b)})$p.value")
        elif n <= MW_EXACT_MAX and ties:
            cmds.append(f"{{r <- rank(c({vec(a)}, {vec(b)})); e <- {len(a)} * {n + 1} / 2; "
                        f"w <- sum(r[1:{len(a)}]); mean(abs(combn({n}, {len(a)}, function(i) sum(r[i])) - e) "
                        f">= abs(w - e) - 1e-9)}}")
        else:
            cmds.append(f"suppressWarnings(wilcox.test({vec(a)}, {vec(b)}, exact={'FALSE' if n > MW_EXACT_MAX else 'TRUE'}, "
                        "correct=TRUE))$p.value")
        want.append(("Mann-Whitney" if name.startswith("mw_") else "Welch", p))
    for df, t, cdf, q in re.findall(r"\{ ([\d.]+), (-?[\d.]+), ([\d.e-]+), ([\d.e-]+) \}", h):
        cmds += [f"pt({t}, {df})", f"qt(0.975, {df})"]
        want += [("t cdf", float(cdf)), ("t quantile", float(q))]
    for n, k, cov in re.findall(r"\{ (\d+), (\d+), ([\d.e-]+) \}", h):
        cmds.append(f"1 - 2 * pbinom({int(k) - 1}, {n}, 0.5) + 1000 * ({k} != {{k <- 0; "
                    f"while (k < {n} && pbinom(k, {n}, 0.5) <= 0.025) k <- k + 1; k}})")
        want.append(("median interval", float(cov)))
    x = vec(arrs["summary_x"])
    cmds += [f"t.test({x})$conf.int[1]", f"t.test({x})$conf.int[2]"]
    want += [("summary interval", defs["SUMMARY_CI_LO"]), ("summary interval", defs["SUMMARY_CI_HI"])]
    script = "".join(f"cat(sprintf('%.17g\\n', {c}))\n" for c in cmds)
    got = subprocess.run(["Rscript", "-e", script], capture_output=True, text=True, check=True).stdout.split()
    worst = {}
    for (kind, ref), r in zip(want, got):
        worst[kind] = max(worst.get(kind, 0.0), abs(float(r) - ref) / abs(ref))
    for kind, d in worst.items():
        print(f"{kind}: R and SciPy differ by {d:.1e} at most (relative)")
    return 0 if len(got) == len(want) and max(worst.values()) < 1e-7 else 1


if __name__ == "__main__":
    if sys.argv[1:] == ["--check-r"]:
        sys.exit(check_r())
    main()
