"""Confidence intervals shared by evaluations, levels and tournaments: normal 95% intervals of a mean
and Wilson 95% intervals of a proportion."""
import math

import numpy as np

Z95 = 1.959963984540054      # the two-sided 95% quantile of the standard normal


def mean_ci(x) -> tuple[float, list[float], float]:
    """(mean, [lo, hi] normal 95% interval of the mean, sample sd) of a non-empty sample."""
    x = np.asarray(x, dtype=float)
    n = len(x)
    mean = float(x.mean())
    sd = float(x.std(ddof=1)) if n > 1 else 0.0
    half = Z95 * sd / math.sqrt(n)
    return mean, [mean - half, mean + half], sd


def wilson(successes: float, n: int) -> list[float]:
    """95% Wilson score interval for a proportion of `successes` in `n` trials (draws may count as half
    successes); [0, 1] when there are no trials."""
    if n == 0:
        return [0.0, 1.0]
    p = successes / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return [max(0.0, centre - half), min(1.0, centre + half)]


def t_within(t: float, df: int) -> float:
    """P(|T| <= t) for Student's t with a whole number `df` >= 1 of degrees of freedom (the closed forms
    of Abramowitz and Stegun 26.7.3 and 26.7.4: finite sums in cos of atan(t / sqrt(df)))."""
    theta = math.atan(t / math.sqrt(df))
    c2 = math.cos(theta) ** 2
    term, total = 1.0, 1.0 if df % 2 == 0 else 0.0
    if df % 2 == 0:
        for k in range(2, df, 2):         # 1 + (1/2) c^2 + (1.3 / 2.4) c^4 + ... up to c^(df - 2)
            term *= c2 * (k - 1) / k
            total += term
        return math.sin(theta) * total
    if df > 1:
        total = math.cos(theta)
        term = math.cos(theta)
        for k in range(3, df - 1, 2):     # cos + (2/3) cos^3 + (2.4 / 3.5) cos^5 + ... up to cos^(df - 2)
            term *= c2 * (k - 1) / k
            total += term
    return 2.0 / math.pi * (theta + math.sin(theta) * total)


def t_quantile95(df: int) -> float:
    """The two-sided 95% quantile of Student's t with `df` degrees of freedom (12.706 for 1, 4.303 for
    2, 1.960 in the limit), by bisection of `t_within` to 1e-9."""
    lo, hi = 0.0, 1e4
    while hi - lo > 1e-9:
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if t_within(mid, df) < 0.95 else (lo, mid)
    return (lo + hi) / 2


def mean_t_ci(x) -> tuple[float, list[float], float]:
    """(mean, [lo, hi] Student-t 95% interval of the mean, sample sd) of a sample of a few values (say
    training seeds), where the normal interval of `mean_ci` is too narrow; one value gives [mean, mean]."""
    x = np.asarray(x, dtype=float)
    n = len(x)
    mean = float(x.mean())
    sd = float(x.std(ddof=1)) if n > 1 else 0.0
    half = t_quantile95(n - 1) * sd / math.sqrt(n) if n > 1 else 0.0
    return mean, [mean - half, mean + half], sd
