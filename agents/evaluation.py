"""Measure agents: solitaire score distributions and 2-player head-to-head with identical dice.

Game i of a run with seed S uses the dice seed `game_seed(S, i)`, so every agent evaluated with
the same seed sees the same dice. Head-to-head deal i is played twice, seats swapped, so each
agent plays each sheet's dice once; a win counts 1, a tie 1/2, a loss 0.

Batched agents play many games at once through the engine (`yacht_env.core.lockstep`, by `seated_games`,
which also plays a tournament's tables of batched agents); any other agent plays one `Game` at a time. Both
give the same games.
"""

import numpy as np
from tqdm import tqdm

from yacht_env.core.dice_source import game_seeds
from yacht_env.core.engine import EXTRA_BONUS, UPPER_BONUS, State
from yacht_env.core.game import Game
from yacht_env.core.lockstep import Record, play, sheet_ranks
from yacht_env.gc_pause import gc_paused

from .base import play_game
from .stats import mean_ci, wilson

QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)
CHUNK = 8192   # games played at once by batched agents


def _chunks(total: int, size: int):
    for lo in range(0, total, size):
        yield lo, min(total, lo + size)


def seated_games(rules, players, seeds, seating, chunk: int = CHUNK, logs: bool = False):
    """Play game j -- dice seed seeds[j], seating[j, s] the index in `players` of the one at seat s -- for every
    j, in lockstep (`yacht_env.core.lockstep.play`), `chunk` games at a time; yield (lo, hi, state, logs) per
    chunk: the finished State of games lo..hi-1 (its table i is game lo + i) and, with `logs`, their move logs
    (as `Game.log`), else None. The players are prepared by the caller.

    The one player of duplicate-dice deals in lockstep: a deal is one seed in each of its seatings, whether the
    deals of `table_deals` (A against B) or the games of a tournament's tables of batched agents
    (`tournaments.batched`). A player that fails raises `yacht_env.core.lockstep.PlayerError` from the chunk
    it failed in (the chunks before were yielded whole)."""
    seeds, seating = np.asarray(seeds, np.uint64), np.asarray(seating, np.int64)
    for lo, hi in _chunks(len(seeds), chunk):
        state = State(rules, hi - lo, seating.shape[1])
        state.reset(seeds[lo:hi])
        record = Record(hi - lo) if logs else None
        with gc_paused():                     # thousands of small acyclic objects: moves and records
            play(state, players, seating[lo:hi], record=record)
            moves = record.logs(rules) if logs else None
        yield lo, hi, state, moves


def solitaire(agent, rules, games: int, seed: int = 0, progress: bool = True, desc: str = "",
              logs: bool = False) -> dict:
    """Play `games` one-player games; return arrays: totals, box scores (games, columns, boxes), upper and
    extra-Yacht bonus points, seeds, and with `logs` every game's move log (as `Game.log`)."""
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    seeds = game_seeds(seed, last=np.arange(games))
    totals = np.zeros(games, dtype=np.int64)
    boxes = np.zeros((games, rules.columns, len(rules.boxes)), dtype=np.int64)
    upper, extra = np.zeros(games, np.int64), np.zeros(games, np.int64)
    moves = [] if logs else None
    with tqdm(total=games, desc=desc or "games", unit="game", disable=not progress, leave=False) as bar:
        if agent.batched:
            agent.prepare(rules, 1)
            for lo, hi, state, chunk_logs in seated_games(rules, [agent], seeds, np.zeros((games, 1), np.int64),
                                                          logs=logs):
                totals[lo:hi] = state.totals[:, 0]
                boxes[lo:hi] = state.scores[:, 0]
                upper[lo:hi] = state.cols[:, 0, :, UPPER_BONUS].sum(axis=1)
                extra[lo:hi] = state.cols[:, 0, :, EXTRA_BONUS].sum(axis=1)
                if logs:
                    moves += chunk_logs
                bar.update(hi - lo)
        else:
            for i, s in enumerate(seeds.tolist()):
                g = play_game(Game(rules, 1, seed=s), [agent])
                totals[i] = g.totals()[0]
                boxes[i] = g.sheets[0].scores
                upper[i], extra[i] = g.sheets[0].upper_bonus.sum(), g.sheets[0].extra_bonus.sum()
                if logs:
                    moves.append(g.log)
                bar.update(1)
    return {"totals": totals, "boxes": boxes, "upper_bonus": upper, "extra_bonus": extra, "seeds": seeds,
            "logs": moves}


LISTED_FAULTS = 20   # faults listed one by one in a fault summary


def fault_count(agent) -> int:
    """How many faults an agent has recorded so far (external bots record theirs; others none)."""
    return len(getattr(agent, "faults", None) or [])


def recorded_faults(agent, before: int = 0, first_game: int = 1) -> list[dict]:
    """The faults an agent recorded after its first `before`, with the game (0-based, counted from the
    agent's game `first_game`) and move each hit."""
    return [{"game": int(f.game) - first_game, "move": int(f.move), "kind": f.kind, "cause": f.cause}
            for f in (getattr(agent, "faults", None) or [])[before:]]


def fault_summary(faults: list[dict]) -> dict:
    """How many faults, in how many games, by kind, and the first LISTED_FAULTS of them."""
    return {"count": len(faults), "games": len({f["game"] for f in faults}),
            "by_kind": {k: sum(f["kind"] == k for f in faults) for k in sorted({f["kind"] for f in faults})},
            "first": faults[:LISTED_FAULTS]}


def fault_note(name: str, faults: dict, games: int) -> str | None:
    """One line on a fault summary for the terminal, or None when there were none."""
    if not faults["count"]:
        return None
    f = faults["first"][0]
    kinds = ", ".join(f"{n} {k}" for k, n in faults["by_kind"].items())
    return (f"{name}: {faults['count']} fault(s) in {faults['games']} of {games} games ({kinds}); their fallback "
            f"moves are in the scores; first in game {f['game']}, move {f['move']}: {f['cause']}")


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
            "per_box_mean": per_box_mean, "upper_bonus_mean": float(run["upper_bonus"].mean()),
            "extra_bonus_mean": float(run["extra_bonus"].mean()),
            "p_upper_bonus": float((run["upper_bonus"] > 0).mean())}


def head_to_head(agent_a, agent_b, rules, deals: int, seed: int = 0, progress: bool = True, desc: str = "") -> dict:
    """A vs B over `deals` deals, each played twice with seats swapped (2 * deals games): `table_deals` at a
    table of two.

    win_rate_a counts ties as half a win; ci95 is the Wilson score interval over the 2 * deals games
    (the two games of a deal swap the same dice between the seats, so their results are, if anything,
    negatively correlated and the interval is conservative).
    """
    rate = float(table_deals(agent_a, agent_b, rules, deals, 2, seed, progress, desc).mean())
    return {"games": 2 * deals, "win_rate_a": rate, "ci95": wilson(rate * 2 * deals, 2 * deals)}


def table_deals(agent_a, agent_b, rules, deals: int, seats: int, seed: int = 0, progress: bool = True,
                desc: str = "") -> np.ndarray:
    """A's share of first place in each deal of `table_share` (the mean over the deal's `seats` rotations): the
    same games, so two agents A measured with one seed are compared deal by deal on the same dice. At two
    seats a tie for first place is half a win, as in `head_to_head`."""
    if deals < 1:
        raise ValueError(f"deals must be >= 1, got {deals}")
    rot = np.array([[0 if s == k else 1 for s in range(seats)] for k in range(seats)])   # row k: A at seat k
    per_deal = np.zeros(deals)
    seeds = game_seeds(seed, last=np.arange(deals))
    with tqdm(total=deals, desc=desc or "deals", unit="deal", disable=not progress, leave=False) as bar:
        if agent_a.batched and agent_b.batched:
            for a in (agent_a, agent_b):
                a.prepare(rules, seats)
            for lo, hi, state, _ in seated_games(rules, [agent_a, agent_b], np.repeat(seeds, seats),
                                                 np.tile(rot, (deals, 1)), seats * max(1, CHUNK // seats)):
                n = (hi - lo) // seats
                ranks = sheet_ranks(state)
                a_sheet = np.tile(np.arange(seats), n) % state.num_sheets
                mine = ranks[np.arange(seats * n), a_sheet]
                share = np.where(mine == 1, 1.0 / (ranks == 1).sum(axis=1), 0.0)
                per_deal[lo // seats:hi // seats] = share.reshape(n, seats).mean(axis=1)
                bar.update(n)
        else:
            for i, s in enumerate(seeds.tolist()):
                score = 0.0
                for k in range(seats):
                    g = play_game(Game(rules, seats, seed=s), [agent_a if x == 0 else agent_b for x in rot[k]])
                    ranks = g.sheet_ranks()
                    if ranks[g.sheet_of(k)] == 1:
                        score += 1.0 / ranks.count(1)
                per_deal[i] = score / seats
                bar.update(1)
    return per_deal


def table_share(agent_a, agent_b, rules, deals: int, seats: int, seed: int = 0, progress: bool = True,
                desc: str = "") -> dict:
    """A at one seat of a table of `seats`, B at every other, over `deals` deals, each played `seats` times
    with A in every seat (seats * deals games, the same dice for every rotation).

    win_rate_a: A's mean share of first place (1/k when k sheets tie for it; equal play gives 1/seats);
    ci95: a normal interval over deals (the games of a deal share its dice). The deal seeds are
    `head_to_head`'s, so at two seats the games are its games.
    """
    per_deal = table_deals(agent_a, agent_b, rules, deals, seats, seed, progress, desc)
    rate, ci, _ = mean_ci(per_deal)
    return {"games": seats * deals, "seats": seats, "win_rate_a": rate, "ci95": ci}
