"""Sequential probability ratio tests on duplicate deals, and the Elo estimates beside them.

A match plays deals; every deal is played in every seat rotation with the same dice, so a deal is the
unit of independent evidence (as a pair of games on one opening is in fastchess's pentanomial model).
A deal's value is the candidate's mean result over its games (1 win, 1/2 draw, 0 loss against each
opponent; with two seats five values 0, 1/4, ..., 1: the pentanomial), or for a test on points the mean
score difference candidate − opponent over its games.

The test (Wald's SPRT in the generalised form fishtest and fastchess use): H0 says the mean deal value
is s0, H1 says s1; the log-likelihood ratio of the deals seen is approximated by the normal one with
the deals' own variance,

    LLR = N (s1 − s0) (2 x̄ − s0 − s1) / (2 v)        (N deals, mean x̄, variance v),

and the test accepts H1 when LLR ≥ log((1 − β) / α), H0 when LLR ≤ log(β / (1 − α)). Elo bounds become
scores: logistic Elo e gives s = 1 / (1 + 10^(−e/400)); normalized Elo n gives s = 1/2 + n σ ln(10) / 800,
σ the standard deviation of one game's result, estimated as sqrt(m v) from deals of m games (with
m = 2 that is fastchess's pentanomial sqrt(2) σ_pair). The deal values, not the games, carry the
variance, so duplicate dice and seat rotations are accounted for in full.

That normal approximation is the test on points (`points0`/`points1`, the mean score difference) and,
with `test=normal`, on Elo. The Elo test by default (`test=gsprt`) is the generalised SPRT on the deals'
points as a categorical distribution, the pentanomial model fastchess and fishtest use, generalised to
any table: a deal gives the candidate a number of points (per game and opponent 1 for a win, 1/2 for a
draw; with two seats and one opponent 0, 1/2, 1, 3/2 or 2 per deal pair: the pentanomial), its value is
the points over the most it could have made, and the deals' counts per value (every possible value,
an empty one counted as 1e-3, as fastchess does) give the empirical distribution p̂. Under a hypothesis
the distribution is the one closest to p̂ (maximum likelihood) among those that satisfy it: mean deal
value s (logistic), or (μ − 1/2) / σ_deal = t (normalized, σ_deal the standard deviation of a deal's
value, t = n sqrt(m) / NELO for normalized Elo n and m games per deal; m = 2 is fastchess's
sqrt(2) n / NELO of a pair); each is p_i = p̂_i / (1 + θ φ_i) with θ the root of Σ p̂_i φ_i / (1 + θ φ_i)
= 0, φ_i = a_i − s for a mean, and for normalized Elo φ_i = a_i − 1/2 − t σ (1 + ((a_i − μ)/σ)²) / 2 with
μ, σ of the current p, iterated to a fixed point (M. Van den Bergh, "Comments on normalized Elo",
sections 1 and 4). LLR = N Σ p̂_i log(p1_i / p0_i), N the deals (with the empty cells' 1e-3).
"""
import math
from dataclasses import dataclass

import numpy as np

from agents.stats import Z95
from yacht_env.config import ConfigError

MODELS = ("normalized", "logistic")
TESTS = ("gsprt", "normal")
EMPTY = 1e-3           # the count an empty category of the GSPRT is given
NELO = 800 / math.log(10)


@dataclass(frozen=True)
class SPRT:
    """A test: `kind` "elo" (bounds elo0, elo1 in `model` Elo; `test` "gsprt" on the deals' points as a
    categorical distribution, or "normal" on their mean and variance) or "points" (bounds on the mean score
    difference per game, normal)."""
    kind: str
    lo: float
    hi: float
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "normalized"
    test: str = "gsprt"

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1 - self.beta) / self.alpha)

    def bounds(self, var: float, games_per_deal: int) -> tuple[float, float]:
        """(s0, s1): the hypotheses as mean deal values."""
        if self.kind == "points":
            return self.lo, self.hi
        if self.model == "logistic":
            return logistic_score(self.lo), logistic_score(self.hi)
        sd = math.sqrt(games_per_deal * var)
        return 0.5 + self.lo * sd / NELO, 0.5 + self.hi * sd / NELO

    def llr(self, values, games_per_deal: int, grid: int | None = None) -> float:
        """The log-likelihood ratio of these deal values (0 before they vary). grid: the GSPRT's categories
        are the values k / grid, k = 0 .. grid (twice the most points a deal can give, so a draw's half point
        is a step); needed by an Elo test with test=gsprt."""
        if self.kind == "elo" and self.test == "gsprt":
            if grid is None:
                raise ValueError("the GSPRT needs the deals' grid of values")
            return self.gsprt_llr(deal_counts(values, grid), games_per_deal)
        x = np.asarray(values, dtype=float)
        if len(x) < 2:
            return 0.0
        var = float(x.var())
        if var <= 0:
            return 0.0
        s0, s1 = self.bounds(var, games_per_deal)
        return len(x) * (s1 - s0) * (2 * float(x.mean()) - s0 - s1) / (2 * var)

    def gsprt_llr(self, counts, games_per_deal: int) -> float:
        """The GSPRT's log-likelihood ratio of deal counts per value (counts[k]: deals of value k / grid)."""
        counts = np.asarray(counts, dtype=float)
        n = counts.sum()
        if n < 2:
            return 0.0
        values = np.linspace(0.0, 1.0, len(counts))
        weights = np.where(counts > 0, counts, EMPTY)
        n = weights.sum()
        freq = weights / n
        if self.model == "logistic":
            p0, p1 = (closest_with_mean(values, freq, logistic_score(e)) for e in (self.lo, self.hi))
        else:
            scale = math.sqrt(games_per_deal) / NELO
            p0, p1 = (closest_with_t(values, freq, e * scale) for e in (self.lo, self.hi))
        return float(n * np.sum(freq * (np.log(p1) - np.log(p0))))

    def decide(self, llr: float) -> str | None:
        """"H1", "H0" or None (go on)."""
        return "H1" if llr >= self.upper else "H0" if llr <= self.lower else None

    def describe(self) -> str:
        what = (f"{self.model} Elo, " + ("GSPRT on the deals' points (pentanomial at two seats)" if self.test == "gsprt"
                                           else "normal approximation")
                if self.kind == "elo" else "points per game")
        return (f"H0: {self.lo:g} against H1: {self.hi:g} {what}, alpha {self.alpha:g}, beta {self.beta:g}; "
                f"LLR bounds [{self.lower:.2f}, {self.upper:.2f}]")


def deal_counts(values, grid: int) -> np.ndarray:
    """Deals per value k / grid, k = 0 .. grid (values are points over the most a deal can give, so
    value * grid is a whole number)."""
    k = np.rint(np.asarray(values, dtype=float) * grid).astype(np.int64)
    return np.bincount(np.clip(k, 0, grid), minlength=grid + 1)


def _root(phi: np.ndarray, freq: np.ndarray) -> float:
    """θ with Σ freq_i φ_i / (1 + θ φ_i) = 0 and every 1 + θ φ_i > 0 (φ of both signs): the function falls
    strictly from +∞ to −∞ on (−1 / max φ, −1 / min φ), so bisection finds it."""
    lo, hi = -1.0 / phi.max(), -1.0 / phi.min()
    for _ in range(200):
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break
        if np.sum(freq * phi / (1 + mid * phi)) > 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def closest_with_mean(values: np.ndarray, freq: np.ndarray, s: float) -> np.ndarray:
    """The distribution on `values` of mean s closest to `freq` (maximum likelihood: Van den Bergh, 1.2)."""
    phi = values - s
    return freq / (1 + _root(phi, freq) * phi)


def closest_with_t(values: np.ndarray, freq: np.ndarray, t: float, tol: float = 1e-10) -> np.ndarray:
    """The distribution on `values` with (μ − 1/2) / σ = t closest to `freq` (maximum likelihood, found by the
    fixed-point iteration of Van den Bergh, section 4.1, from the uniform distribution)."""
    p = np.full(len(values), 1.0 / len(values))
    for _ in range(1000):
        mu = float(p @ values)
        sigma = math.sqrt(max(float(p @ (values - mu) ** 2), 1e-300))
        phi = values - 0.5 - t * sigma * (1 + ((values - mu) / sigma) ** 2) / 2
        new = freq / (1 + _root(phi, freq) * phi)
        done = np.abs(new - p).max() < tol
        p = new
        if done:
            break
    return p


def logistic_score(elo: float) -> float:
    return 1 / (1 + 10 ** (-elo / 400))


def logistic_elo(score: float) -> float:
    score = min(max(score, 1e-9), 1 - 1e-9)
    return -400 * math.log10(1 / score - 1)


def parse_sprt(text: str, where: str = "--sprt") -> SPRT:
    """`elo0=0,elo1=5,alpha=0.05,beta=0.05[,model=normalized|logistic]` or `points0=0,points1=2,...`."""
    fields: dict[str, str] = {}
    for part in str(text).split(","):
        key, eq, value = part.partition("=")
        if not eq or not key.strip():
            raise ConfigError("command line", where, f"expected KEY=VALUE pairs separated by commas, got {part!r}")
        fields[key.strip()] = value.strip()
    allowed = {"elo0", "elo1", "points0", "points1", "alpha", "beta", "model", "test"}
    unknown = sorted(set(fields) - allowed)
    if unknown:
        raise ConfigError("command line", where, f"unknown key {unknown[0]!r}; allowed: "
                                                 f"elo0, elo1 (or points0, points1), alpha, beta, model, test")
    kind = "points" if "points0" in fields or "points1" in fields else "elo"
    names = ("points0", "points1") if kind == "points" else ("elo0", "elo1")
    if kind == "points" and ("elo0" in fields or "elo1" in fields):
        raise ConfigError("command line", where, "give elo0/elo1 or points0/points1, not both")

    def num(key, default, lo=-math.inf, hi=math.inf):
        if key not in fields:
            if default is None:
                raise ConfigError("command line", where, f"{key} is missing")
            return default
        try:
            v = float(fields[key])
        except ValueError:
            v = math.nan
        if not (lo < v < hi):
            raise ConfigError("command line", where, f"{key} must be a number"
                                                     + (f" between {lo:g} and {hi:g}" if math.isfinite(lo) else "")
                                                     + f", got {fields[key]!r}")
        return v

    lo, hi = num(names[0], None, -1e4, 1e4), num(names[1], None, -1e4, 1e4)
    if not lo < hi:
        raise ConfigError("command line", where, f"{names[0]} must be below {names[1]}, got {lo:g} and {hi:g}")
    model = fields.get("model", "normalized")
    if model not in MODELS:
        raise ConfigError("command line", where, f"model must be one of {', '.join(MODELS)}, got {model!r}")
    if kind == "points" and "model" in fields:
        raise ConfigError("command line", where, "model applies to Elo bounds only")
    test = fields.get("test", "gsprt" if kind == "elo" else "normal")
    if test not in TESTS:
        raise ConfigError("command line", where, f"test must be one of {', '.join(TESTS)}, got {test!r}")
    if kind == "points" and "test" in fields:
        raise ConfigError("command line", where, "test applies to Elo bounds only (points are tested on the "
                                                 "normal approximation)")
    return SPRT(kind, lo, hi, num("alpha", 0.05, 0, 0.5), num("beta", 0.05, 0, 0.5), model, test)


def estimates(results, diffs, games_per_deal: int) -> dict:
    """Score, logistic and normalized Elo, and mean score difference, each with a 95% interval from
    the spread of the deal values (`results`: mean result per deal; `diffs`: mean score difference)."""
    x = np.asarray(results, dtype=float)
    n = len(x)
    if n == 0:
        return {"deals": 0}
    mean = float(x.mean())
    se = float(x.std(ddof=1)) / math.sqrt(n) if n > 1 else math.inf
    sd_game = math.sqrt(games_per_deal * float(x.var(ddof=1))) if n > 1 else 0.0
    lo, hi = mean - Z95 * se, mean + Z95 * se
    d = np.asarray(diffs, dtype=float)
    dse = float(d.std(ddof=1)) / math.sqrt(n) if n > 1 else math.inf
    out = {"deals": n, "score": mean, "score_ci95": [lo, hi],
           "elo": logistic_elo(mean), "elo_ci95": [logistic_elo(lo), logistic_elo(hi)],
           "points": float(d.mean()), "points_ci95": [float(d.mean()) - Z95 * dse, float(d.mean()) + Z95 * dse]}
    if sd_game > 0:
        out["nelo"] = (mean - 0.5) / sd_game * NELO
        out["nelo_ci95"] = [(lo - 0.5) / sd_game * NELO, (hi - 0.5) / sd_game * NELO]
    return out
