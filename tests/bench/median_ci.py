# SPDX-License-Identifier: GPL-2.0
"""The median of paired ratios with a distribution-free ~95% interval,
for the bench scripts: order statistics k and n+1-k of the sorted ratios,
k the largest with P(Binomial(n, 1/2) < k) <= 2.5%."""
import math
import statistics


def median_ci(values):
    v = sorted(values)
    n, k, tail = len(v), 0, 0.0
    while k < n and tail + math.comb(n, k) / 2**n <= 0.025:
        tail += math.comb(n, k) / 2**n
        k += 1
    if not k:
        return statistics.median(v), "- (too few pairs)"
    return statistics.median(v), f"{v[k-1]:.3f}-{v[n-k]:.3f} ({100 * (1 - 2 * tail):.1f}%)"
