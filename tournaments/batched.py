"""Play a table's games all at once when every seat's agent is a trusted batched agent.

The built-in agents decide for many games in one call (`agents.base.Agent.act_batch`) and are library
code that returns in bounded time (`trusted`), so a table of them is played in this process, its games
in lockstep through the engine (`yacht_env.lockstep`), without a game worker per table. The records are
the ones `tournaments.play.play_job` writes for the same jobs, field for field: same dice, same moves,
same places. If a batched call fails or answers with an illegal move, the table's chunk is handed back
to be played game by game in the watched game workers, where the fault is recorded exactly.
"""
import numpy as np

from yacht_env.engine import EXTRA_BONUS, UPPER_BONUS, State
from yacht_env.lockstep import PlayerError, Record, play, sheet_ranks

from .play import make_record

CHUNK = 4096   # games played at once


def batchable(agents: dict, names) -> bool:
    """True when every agent named can play this table batched in this process."""
    return all(getattr(agents[n], "batched", False) and getattr(agents[n], "trusted", False) for n in names)


def play_batched(jobs, rules, agents: dict) -> list[dict] | None:
    """The records of `jobs` (games of one table size), played in lockstep; None if a player failed."""
    names = sorted({n for job in jobs for n in job.agents})
    index = {n: i for i, n in enumerate(names)}
    players = [agents[n] for n in names]
    seats = len(jobs[0].agents)
    try:
        for p in players:
            p.prepare(rules, seats)
    except Exception:  # noqa: BLE001 - the per-game path records the failure as each game's forfeit
        return None
    records = []
    for lo in range(0, len(jobs), CHUNK):
        chunk = jobs[lo:lo + CHUNK]
        state = State(rules, len(chunk), seats)
        state.reset(np.array([job.seed for job in chunk], np.uint64))
        seating = np.array([[index[n] for n in job.agents] for job in chunk], np.int64)
        record = Record(len(chunk))
        try:
            play(state, players, seating, record=record)
        except PlayerError:
            return None
        records += _records(chunk, state, record.logs(rules))
    return records


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
