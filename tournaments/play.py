"""Play one scheduled game and turn it into a store record; faults become forfeits.

An agent that raises, runs past the move time limit or plays an illegal move forfeits the game:
the fault is recorded, its remaining moves are replaced by the fallback (score the first legal box),
and it is placed below every seat that did not fault.
"""
import signal
import threading
from contextlib import contextmanager

import numpy as np

from agents.base import play_game
from yacht_env.dice import NUM_HOLDS
from yacht_env.game import Game

from .schedule import Job


class MoveTimeout(Exception):
    """An agent thought longer than the move time limit."""


@contextmanager
def move_alarm(seconds: float | None):
    """For the block (one game): SIGALRM raises MoveTimeout. Yields whether timing is possible (a
    limit is set, Unix, main thread); the clock itself is started per call with `timed`."""
    if not (seconds and hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()):
        yield False
        return

    def _expired(signum, frame):
        raise MoveTimeout(f"no move within the {seconds:g} s limit")

    old = signal.signal(signal.SIGALRM, _expired)
    try:
        yield True
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def timed(seconds: float | None, fn, *args, **kwargs):
    """Call fn with the alarm clock set to `seconds` (None: untimed); inside `move_alarm`."""
    if seconds is None:
        return fn(*args, **kwargs)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn(*args, **kwargs)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def fallback_action(mask: np.ndarray) -> int:
    """The move played for a seat that faulted: the first legal box (or the first legal action)."""
    legal = np.flatnonzero(mask)
    boxes = legal[legal >= NUM_HOLDS]
    return int(boxes[0] if len(boxes) else legal[0])


def describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


class Guarded:
    """Wraps an agent: time limit per call, and fallback moves once it has faulted.

    Agents that handle their own faults (external bots replace a bad move and append to a `faults`
    list) are seen through that list: a new entry during the game is a fault too.
    """

    def __init__(self, agent, timeout: float | None):
        self.agent, self.timeout = agent, timeout
        self.fault: str | None = None
        self.fault_move: int | None = None    # index in the game log where the fault happened
        self._at = 0

    def _reported(self) -> int:
        return len(getattr(self.agent, "faults", None) or ())

    def _check_reported(self) -> None:
        faults = getattr(self.agent, "faults", None) or ()
        if self.fault is None and len(faults) > self._seen:
            f = faults[self._seen]
            kind, cause = getattr(f, "kind", None), getattr(f, "cause", None)
            self.fault = f"{kind}: {cause}" if kind and cause else str(f)
            self.fault_move = self._at

    def reset(self, rules, seat, num_players, seed=None):
        self.fault = self.fault_move = None
        self._at = 0
        self._seen = self._reported()
        try:
            timed(self.timeout, self.agent.reset, rules, seat, num_players, seed=seed)
        except Exception as e:  # noqa: BLE001 - any failure is a forfeit
            self.fault, self.fault_move = "reset: " + describe(e), 0
        self._check_reported()

    def act(self, view):
        if self.fault is not None:
            return fallback_action(view.mask)
        self._at = len(view.game.log)
        try:
            return timed(self.timeout, self.agent.act, view)
        finally:
            self._check_reported()


def play_job(job: Job, rules, agents: dict, timeout: float | None) -> dict:
    """Play `job` with `agents` (name -> agent); return its store record."""
    game = Game(rules, num_players=len(job.agents), seed=job.seed)
    with move_alarm(timeout) as clock:
        seats = [Guarded(agents[name], timeout if clock else None) for name in job.agents]
        _play(game, seats)
    faults = [None if s.fault is None else {"error": s.fault, "move": s.fault_move} for s in seats]
    return {
        "key": job.key, "table": job.table, "deal": job.deal, "rotation": job.rotation, "seed": job.seed,
        "agents": list(job.agents),
        "sheet_of": [game.sheet_of(s) for s in range(game.num_players)],   # teammates share a sheet
        "totals": [int(t) for t in game.totals()],
        "places": placements(game, [f is not None for f in faults]),
        "sheets": [game.sheets[game.sheet_of(s)].scores.tolist() for s in range(game.num_players)],
        "upper_bonus": [int(game.sheets[game.sheet_of(s)].upper_bonus.sum()) for s in range(game.num_players)],
        "extra_bonus": [int(game.sheets[game.sheet_of(s)].extra_bonus.sum()) for s in range(game.num_players)],
        "faults": faults,
        "log": game.log,
    }


def _play(game: Game, seats: list[Guarded]) -> None:
    def on_error(seat, exc, g):
        if seats[seat].fault is None:
            seats[seat].fault, seats[seat].fault_move = describe(exc), len(g.log)
        return fallback_action(g.legal_mask())

    play_game(game, seats, on_error=on_error)


def placements(game: Game, faulted: list[bool]) -> list[int]:
    """Place per seat (1 = best, ties share). A sheet with a faulted seat ranks below all others."""
    ranks = game.sheet_ranks()
    bad = {game.sheet_of(s) for s, f in enumerate(faulted) if f}
    good = [i for i in range(game.num_sheets) if i not in bad]
    place = {i: 1 + sum(1 for j in good if ranks[j] < ranks[i]) for i in good}
    place.update({i: len(good) + 1 for i in bad})
    return [place[game.sheet_of(s)] for s in range(game.num_players)]
