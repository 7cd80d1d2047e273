"""The calibration search: the strength at which the dial hits a target under a rule set.

`search` finds it by a bracketing search on games with common dice and common decision numbers (the
same deals at every strength tried); `agents.levels.calibrate` runs it, and `agents.level_settings`
keeps its result (`Calibration`) per rule set.
"""
import math
from dataclasses import asdict, dataclass, field

import numpy as np
from tqdm import tqdm

from yacht_env.core.dice_source import game_seeds
from yacht_env.rules import load
from yacht_env.solver import Unsolvable, check_saved_rolls, check_solvable, solution_for

from .dial import DialAgent, LossMeter, check_strength
from .evaluation import head_to_head, solitaire
from .stats import Z95, mean_ci
from .strong import StrongAgent
from .targets import Target

CALIBRATION_SEED = 1_000_012   # dice of every calibration (the ladder is measured on other dice)
DEALS = 500                    # deals per head-to-head of a win-rate search (2 games each)
GAMES = 2000                   # solitaire games per run of a mean or percentage search
MAX_RUNS = 14                  # runs of the search at most (two ends + interpolation steps)
TOLERANCE = {"win": 0.01, "mean": 0.25, "pct": 0.1}   # stop this close to the target (about a run's standard error)


@dataclass
class Calibration:
    """The strength that hits a target under one rule set, with the figure measured there.

    measured / ci95: the target's figure at `strength` (win rate; expected score; % of the optimum)
    on the calibration's games; runs: every (strength, figure) the search measured, in order.
    """
    target: str
    strength: float
    measured: float
    ci95: list
    games: int
    seed: int
    estimate: str                  # how the figure was measured (see `_measure`)
    runs: list = field(default_factory=list)

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, doc) -> "Calibration":
        """A stored calibration; ValueError if the entry is damaged."""
        try:
            c = cls(**doc)
            ok = (isinstance(c.target, str) and isinstance(c.estimate, str) and type(c.games) is int
                  and type(c.seed) is int and isinstance(c.ci95, list) and len(c.ci95) == 2
                  and all(isinstance(x, (int, float)) and math.isfinite(x) for x in [c.measured, *c.ci95])
                  and isinstance(c.runs, list))
            check_strength(c.strength)
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise ValueError("damaged calibration entry")
        return c


def calibration_rules(rules):
    """The rules a level is calibrated under: the same game as two players on their own sheets (no teams;
    a team's sheet is played as a solitaire sheet)."""
    if rules.teams or (rules.min_players, rules.max_players) != (1, 8):
        rules = load(rules, teams=0, players={"min": 1, "max": 8})
    return rules


def check_reach(rules) -> None:
    """ValueError when the dial cannot play these rules (no solved table, exact or column-additive)."""
    column = load(rules, columns=1) if rules.columns > 1 else rules
    try:
        check_solvable(column)
        if rules.columns > 1:
            check_saved_rolls(rules, "several columns' additive play")
    except Unsolvable as e:
        raise ValueError(f"the strength dial and the levels need the solver's table: {e}") from None


def optimum(rules, progress: bool = False) -> float:
    """The optimal expected solitaire score of a one-column rule set (the solver's)."""
    return float(solution_for(rules, progress=progress).expected_score)


def search(rules, target: Target, shared: StrongAgent, opponent, deals: int = DEALS, games: int = GAMES,
           seed: int = CALIBRATION_SEED, progress: bool = False) -> Calibration:
    """The strength whose figure is closest to `target` under `rules` (`calibration_rules` already applied),
    found by a bracketing search; `agents.levels.calibrate` is the entry point.

    Every run plays the same games (seed): `deals` two-player deals against `opponent` for a win rate,
    `games` solitaire games for a mean or percentage; every dial agent tried plays from `shared`'s
    policies. The figure is non-decreasing in strength up to the noise of a finite run
    (tests/agents/test_levels.py), so the search brackets the target between strengths 0 and 1 and narrows
    the bracket by interpolation (Illinois' rule), at most `MAX_RUNS` runs. ValueError when the target
    is out of the dial's reach under these rules.
    """
    if rules.columns == 1:
        best_possible = optimum(rules, progress)
        if target.kind == "mean" and target.value > best_possible:
            raise ValueError(f"target mean={target.value:g} is above the optimal expected score under rules "
                             f"{rules.name!r} ({best_possible:.2f})")
    else:      # no exact optimum: strong's mean score on the calibration's games is the reference
        shared.prepare(rules, 1)
        best_possible = float(solitaire(shared, rules, games, seed, progress=False)["totals"].mean())
    runs = []
    bar = tqdm(desc=f"calibrate {target.key} under {rules.name}", unit="run", disable=not progress, leave=False)

    def run(s: float):
        exact = _exact_at_one(target, rules, best_possible) if s == 1.0 else None
        if exact is not None:      # known without playing
            figure, ci, n, how = exact, [exact, exact], 0, "exact (strength 1 is strong)"
        else:
            figure, ci, n, how = _measure(rules, DialAgent(s, shared), target, opponent, deals, games, seed,
                                          best_possible)
        runs.append((s, figure, ci, n, how))
        bar.update(1)
        bar.set_postfix(strength=f"{s:.3f}", figure=f"{figure:.4g}")
        return figure

    with bar:
        lo, hi = 0.0, 1.0
        f_lo, f_hi = run(lo) - target.value, run(hi) - target.value
        if f_lo > 0 or f_hi < 0:
            reach = f"{f_lo + target.value:.4g} .. {f_hi + target.value:.4g}"
            raise ValueError(f"target {target.key} is out of the dial's reach under rules {rules.name!r}: "
                             f"strengths 0 .. 1 give {reach}")
        side = 0
        while len(runs) < MAX_RUNS and hi - lo > 1e-4:
            if min(abs(f_lo), abs(f_hi)) <= TOLERANCE[target.kind]:
                break
            s = lo + (hi - lo) * f_lo / (f_lo - f_hi) if f_hi != f_lo else (lo + hi) / 2
            s = min(max(s, lo + 0.02 * (hi - lo)), hi - 0.02 * (hi - lo))   # keep clear of the ends
            f = run(s) - target.value
            if f < 0:
                lo, f_lo = s, f
                if side == -1:
                    f_hi /= 2          # Illinois: the end that stays twice in a row counts half
                side = -1
            else:
                hi, f_hi = s, f
                if side == 1:
                    f_lo /= 2
                side = 1
    s, figure, ci, n, how = min(runs, key=lambda r: (abs(r[1] - target.value), r[0]))
    return Calibration(target=target.key, strength=s, measured=figure, ci95=ci, games=n, seed=seed, estimate=how,
                       runs=[[a, b] for a, b, *_ in runs])


def _exact_at_one(target, rules, best_possible):
    """The figure at strength 1 when it is known without playing, else None: against strong, each deal's two
    games (seats swapped) mirror each other, so strong wins exactly half; with one column, strong loses
    nothing, so its expected score is the optimum."""
    if target.kind == "win":
        return 0.5 if target.against == "strong" else None
    if rules.columns == 1:
        return best_possible if target.kind == "mean" else 100.0
    return None


def _measure(rules, agent, target, opponent, deals, games, seed, best_possible):
    """(figure, ci95, games, how) of a dial agent for `target` on the calibration's games.

    win: head-to-head against the opponent, ties half (Wilson interval). mean / pct with one column:
    the optimum minus the points lost per game (the expected points the dial's decisions lost against
    the best moves, exact solver values: the same expectation as the mean score without the luck of
    the dice, so far fewer games pin it down); several columns: the mean score (the values are an
    approximation there). pct: the expected score as a % of `best_possible` (one column: the optimum;
    several columns: strong's mean score on the same games).
    """
    if target.kind == "win":
        h = head_to_head(agent, opponent, rules, deals, seed, progress=False)
        return h["win_rate_a"], h["ci95"], h["games"], "head-to-head win rate (ties half)"
    if rules.columns == 1:
        agent.meter = LossMeter()
        solitaire(agent, rules, games, seed, progress=False)
        lost = agent.meter.per_game(game_seeds(seed, last=np.arange(games)))
        mean = best_possible - float(lost.mean())
        half = Z95 * float(lost.std(ddof=1)) / math.sqrt(games) if games > 1 else 0.0
        ci, how = [mean - half, mean + half], "optimum - expected points lost per game"
    else:
        mean, ci, _ = mean_ci(solitaire(agent, rules, games, seed, progress=False)["totals"])
        how = "mean score"
    if target.kind == "pct":
        return 100 * mean / best_possible, [100 * x / best_possible for x in ci], games, how + " (% of the optimum)"
    return mean, ci, games, how
