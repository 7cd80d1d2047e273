"""Play tables' games all at once when every seat's agent is a trusted batched agent.

The built-in agents decide for many games in one call (`agents.base.Agent.act_batch`) and are library
code that returns in bounded time (`trusted`), so the tables of them are played in this process, their
games in lockstep through the engine (`agents.evaluation.seated_games`, which plays the duplicate-dice deals
of `agents.evaluation.table_deals` too), without game workers. Tables are
independent, so a game is the same whichever games share its batch. The records are
the ones `tournaments.play.play_job` writes for the same jobs, field for field: same dice, same moves,
same places. If a batched call fails or answers with an illegal move, the games not yet stored are
handed back to be played game by game in the watched game workers, where the fault is recorded exactly.
"""
import numpy as np

from agents.evaluation import seated_games
from yacht_env.core.engine import EXTRA_BONUS, UPPER_BONUS, State
from yacht_env.core.lockstep import PlayerError, sheet_ranks
from yacht_env.gc_pause import gc_paused

from .play import make_record

CHUNK = 4096   # games played at once


def batchable(agents: dict, names) -> bool:
    """True when every agent named can play this table batched in this process."""
    return all(getattr(agents[n], "batched", False) and getattr(agents[n], "trusted", False) for n in names)


def play_batched(jobs, rules, agents: dict):
    """Play `jobs` (games of one table size, from any tables) in lockstep, CHUNK games at a time; yield
    (chunk, records), with records None when a player failed in that chunk (it plays no further chunk)."""
    names = sorted({n for job in jobs for n in job.agents})
    index = {n: i for i, n in enumerate(names)}
    players = [agents[n] for n in names]
    seats = len(jobs[0].agents)
    try:
        for p in players:
            p.prepare(rules, seats)
    except Exception:  # noqa: BLE001 - the per-game path records the failure as each game's forfeit
        yield jobs, None
        return
    seeds = np.array([job.seed for job in jobs], np.uint64)
    seating = np.array([[index[n] for n in job.agents] for job in jobs], np.int64)
    done = 0
    try:
        for lo, hi, state, logs in seated_games(rules, players, seeds, seating, CHUNK, logs=True):
            with gc_paused():                 # thousands of small acyclic objects: the records
                records = _records(jobs[lo:hi], state, logs)
            yield jobs[lo:hi], records
            done = hi
    except PlayerError:
        yield jobs[done:], None


def _records(jobs, state: State, logs) -> list[dict]:
    sheet = np.arange(state.num_players) % state.num_sheets
    ranks = sheet_ranks(state)[:, sheet]
    totals = state.totals[:, sheet]
    scores = state.scores[:, sheet]
    upper = state.cols[..., UPPER_BONUS].sum(axis=2)[:, sheet]
    extra = state.cols[..., EXTRA_BONUS].sum(axis=2)[:, sheet]
    faults = [None] * state.num_players
    return [make_record(job, sheet.tolist(), totals[i].tolist(), ranks[i].tolist(), scores[i].tolist(),
                        upper[i].tolist(), extra[i].tolist(), faults, logs[i])
            for i, job in enumerate(jobs)]
