"""Measure agents: solitaire score distributions and 2-player head-to-head with identical dice.

Game i of a run with seed S uses the dice seed `game_seed(S, i)`, so every agent evaluated with
the same seed sees the same dice. Head-to-head deal i is played twice, seats swapped, so each
agent plays each sheet's dice once; a win counts 1, a tie 1/2, a loss 0.

Batched agents play many games at once through the engine (`yacht_env.lockstep`); any other agent
plays one `Game` at a time. Both give the same games.
"""
import math

import numpy as np
from tqdm import tqdm

from yacht_env.dice_source import game_seeds
from yacht_env.engine import UPPER_BONUS, State
from yacht_env.game import Game
from yacht_env.lockstep import Record, play, sheet_ranks

from .base import play_game

Z95 = 1.959963984540054
QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)
CHUNK = 8192   # games played at once by batched agents


def mean_ci(x) -> tuple[float, list[float], float]:
    """(mean, [lo, hi] normal 95% interval of the mean, sample sd)."""
    x = np.asarray(x, dtype=float)
    n = len(x)
    mean = float(x.mean())
    sd = float(x.std(ddof=1)) if n > 1 else 0.0
    half = Z95 * sd / math.sqrt(n)
    return mean, [mean - half, mean + half], sd


def _chunks(total: int, size: int):
    for lo in range(0, total, size):
        yield lo, min(total, lo + size)


def solitaire(agent, rules, games: int, seed: int = 0, progress: bool = True, desc: str = "",
              record: bool = False) -> dict:
    """Play `games` one-player games; return arrays: totals, box scores (games, columns, boxes), bonus;
    with `record`, also logs: every game's moves (as `Game.log`)."""
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    totals = np.zeros(games, dtype=np.int64)
    boxes = np.zeros((games, rules.columns, len(rules.boxes)), dtype=np.int64)
    bonus = np.zeros(games, dtype=bool)
    logs = []
    with tqdm(total=games, desc=desc or "games", unit="game", disable=not progress, leave=False) as bar:
        if agent.batched:
            agent.prepare(rules, 1)
            for lo, hi in _chunks(games, CHUNK):
                state = State(rules, hi - lo, 1)
                state.reset(game_seeds(seed, last=np.arange(lo, hi)))
                moves = Record(hi - lo) if record else None
                play(state, [agent], record=moves)
                if record:
                    logs += moves.logs(rules)
                totals[lo:hi] = state.totals[:, 0]
                boxes[lo:hi] = state.scores[:, 0]
                bonus[lo:hi] = state.cols[:, 0, :, UPPER_BONUS].sum(axis=1) > 0
                bar.update(hi - lo)
        else:
            for i, s in enumerate(game_seeds(seed, last=np.arange(games)).tolist()):
                g = play_game(Game(rules, 1, seed=s), [agent])
                if record:
                    logs.append(g.log)
                totals[i] = g.totals()[0]
                boxes[i] = g.sheets[0].scores
                bonus[i] = g.sheets[0].upper_bonus.sum() > 0
                bar.update(1)
    run = {"totals": totals, "boxes": boxes, "upper_bonus": bonus}
    if record:
        run["logs"] = logs
    return run


def fault_note(name: str, agent) -> str | None:
    """One line on the faults an agent recorded (external bots), or None."""
    faults = getattr(agent, "faults", None)
    if not faults:
        return None
    kinds = {}
    for f in faults:
        kinds[f.kind] = kinds.get(f.kind, 0) + 1
    first = faults[0]
    return (f"{name}: {len(faults)} fault(s) ({', '.join(f'{n} {k}' for k, n in kinds.items())}), fallback moves "
            f"played; first in game {first.game}, move {first.move}: {first.cause}")


def summarize(name: str, rules, run: dict) -> dict:
    """The `yacht evaluate --json` document for one solitaire run."""
    t = run["totals"]
    mean, ci, sd = mean_ci(t)
    per_box = run["boxes"].mean(axis=0)
    if rules.columns == 1:
        per_box_mean = {b: float(per_box[0, i]) for i, b in enumerate(rules.boxes)}
    else:
        per_box_mean = {f"{b}@{c + 1}": float(per_box[c, i]) for c in range(rules.columns)
                        for i, b in enumerate(rules.boxes)}
    return {"agent": name, "rules": rules.name, "games": int(len(t)), "mean": mean, "ci95": ci, "std": sd,
            "median": float(np.median(t)),
            "quantiles": {f"p{round(q * 100)}": float(np.quantile(t, q)) for q in QUANTILES},
            "per_box_mean": per_box_mean, "p_upper_bonus": float(run["upper_bonus"].mean())}


def head_to_head(agent_a, agent_b, rules, deals: int, seed: int = 0, progress: bool = True, desc: str = "") -> dict:
    """A vs B over `deals` deals, each played twice with seats swapped (2 * deals games).

    win_rate_a counts ties as half a win; ci95 is the Wilson score interval over the 2 * deals games
    (the two games of a deal swap the same dice between the seats, so their results are, if anything,
    negatively correlated and the interval is conservative).
    """
    if deals < 1:
        raise ValueError(f"deals must be >= 1, got {deals}")
    per_deal = np.zeros(deals)
    seeds = game_seeds(seed, last=np.arange(deals))
    with tqdm(total=deals, desc=desc or "deals", unit="deal", disable=not progress, leave=False) as bar:
        if agent_a.batched and agent_b.batched:
            for a in (agent_a, agent_b):
                a.prepare(rules, 2)
            for lo, hi in _chunks(deals, CHUNK // 2):
                n = hi - lo
                state = State(rules, 2 * n, 2)
                state.reset(np.repeat(seeds[lo:hi], 2))
                seating = np.tile([[0, 1], [1, 0]], (n, 1))      # row 2d: A at seat 0; row 2d + 1: A at seat 1
                play(state, [agent_a, agent_b], seating)
                ranks = sheet_ranks(state)
                a_sheet = np.tile([0, 1], n) % state.num_sheets
                ra, rb = ranks[np.arange(2 * n), a_sheet], ranks[np.arange(2 * n), 1 - a_sheet]
                score = np.where(ra < rb, 1.0, np.where(ra == rb, 0.5, 0.0))
                per_deal[lo:hi] = score.reshape(n, 2).mean(axis=1)
                bar.update(n)
        else:
            for i, s in enumerate(seeds.tolist()):
                score = 0.0
                for a_seat in (0, 1):
                    seats = [agent_a, agent_b] if a_seat == 0 else [agent_b, agent_a]
                    g = play_game(Game(rules, 2, seed=s), seats)
                    ranks = g.sheet_ranks()     # totals, then the rule set's tiebreak
                    ra, rb = ranks[g.sheet_of(a_seat)], ranks[g.sheet_of(1 - a_seat)]
                    score += 1.0 if ra < rb else 0.5 if ra == rb else 0.0
                per_deal[i] = score / 2
                bar.update(1)
    rate = float(per_deal.mean())
    return {"games": 2 * deals, "win_rate_a": rate, "ci95": wilson(rate, 2 * deals)}


def wilson(p: float, n: int) -> list[float]:
    """95% Wilson score interval for a proportion p observed over n trials."""
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return [max(0.0, centre - half), min(1.0, centre + half)]
