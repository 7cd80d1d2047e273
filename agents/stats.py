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
