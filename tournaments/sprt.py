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
"""
import math
from dataclasses import dataclass

import numpy as np

from agents.stats import Z95
from yacht_env.config import ConfigError

MODELS = ("normalized", "logistic")
NELO = 800 / math.log(10)


@dataclass(frozen=True)
class SPRT:
    """A test: `kind` "elo" (bounds elo0, elo1 in `model` Elo) or "points" (bounds on the mean score
    difference per game)."""
    kind: str
    lo: float
    hi: float
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "normalized"

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

    def llr(self, values, games_per_deal: int) -> float:
        """The log-likelihood ratio of these deal values (0 before they vary)."""
        x = np.asarray(values, dtype=float)
        if len(x) < 2:
            return 0.0
        var = float(x.var())
        if var <= 0:
            return 0.0
        s0, s1 = self.bounds(var, games_per_deal)
        return len(x) * (s1 - s0) * (2 * float(x.mean()) - s0 - s1) / (2 * var)

    def decide(self, llr: float) -> str | None:
        """"H1", "H0" or None (go on)."""
        return "H1" if llr >= self.upper else "H0" if llr <= self.lower else None

    def describe(self) -> str:
        what = f"{self.model} Elo" if self.kind == "elo" else "points per game"
        return (f"H0: {self.lo:g} against H1: {self.hi:g} {what}, alpha {self.alpha:g}, beta {self.beta:g}; "
                f"LLR bounds [{self.lower:.2f}, {self.upper:.2f}]")


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
    allowed = {"elo0", "elo1", "points0", "points1", "alpha", "beta", "model"}
    unknown = sorted(set(fields) - allowed)
    if unknown:
        raise ConfigError("command line", where, f"unknown key {unknown[0]!r}; allowed: "
                                                 f"elo0, elo1 (or points0, points1), alpha, beta, model")
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
    return SPRT(kind, lo, hi, num("alpha", 0.05, 0, 0.5), num("beta", 0.05, 0, 0.5), model)


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
