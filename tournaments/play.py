"""Play one scheduled game and turn it into a store record; faults become forfeits.

A seat forfeits the game when its agent's `reset` or `act` raises anything (SystemExit and
KeyboardInterrupt included; a Ctrl-C from the user is told apart and still stops the run), runs
past the move time limit, returns an illegal move, or ends the process playing the game. The
fault is recorded, the seat's remaining moves are replaced by the fallback (score the first legal
box), and it is placed below every seat that did not fault. Each seat plays through
`yacht_env.core.players.Forfeiting`, the fault wrapper the environments seat their opponents in, with its
calls made by `CallBudget`.

Time limits are kept by `CallBudget`, one agent call at a time, in three layers:

  1. an alarm (SIGALRM; Unix, main thread) interrupts a call at the limit;
  2. a call that returns after the limit is a timeout all the same (its result is dropped), so an
     agent that swallows the alarm gains nothing;
  3. `CallClock` shows the running call, in shared memory, to the process that watches this one
     (tournaments.executors.GameWorker), which kills this process when a call overruns its limit
     by the kill margin (`kill_after`) -- a call stuck in C code, a loop that swallows every
     exception. The watcher then plays the game again with a `Forfeit` for that seat at that call;
     games are deterministic, so the record is the one the first two layers would have written.

The limit applies to the agents that are not `trusted`: a built-in agent is library code that returns in
bounded time (tables of trusted batched agents are played without any clock, `tournaments.batched`), so at
a table with an untrusted one its calls are not timed either -- the first call of a process compiles or
loads its kernels, which can outlast any limit on a busy machine and is not the agent's thinking.
"""
import ctypes
import signal
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass

from agents.base import play_game
from yacht_env.core.actions import fallback_action, num_holds
from yacht_env.core.game import Game
from yacht_env.core.players import RESET, AgentFailed, Forfeiting

from .gamelog.records import game_record, record_of_game
from .schedule import Job

MAX_ERROR = 500            # characters of an error message kept in a record


class MoveTimeout(Exception):
    """An agent thought longer than the move time limit."""


def error_text(exc: BaseException) -> str:
    """'Type: message' of an exception, cut to MAX_ERROR characters."""
    try:
        message = str(exc)
    except BaseException:  # noqa: BLE001 - an agent's exception whose message itself fails
        message = "(its message cannot be read)"
    text = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    return text if len(text) <= MAX_ERROR else text[:MAX_ERROR - 3] + "..."


def timeout_error(seconds: float) -> str:
    """How a timeout reads in a record, whichever layer caught it."""
    return error_text(MoveTimeout(f"no move within the {seconds:g} s limit"))


def kill_after(seconds: float) -> float:
    """How long the watcher lets a call with a budget of `seconds` run before it kills the process."""
    return 1.1 * seconds + 0.5


class CallClock:
    """The agent call running in a process -- when it started, its budget and a tag naming it -- in
    memory that another process can read (pass a multiprocessing RawArray("d", CallClock.SIZE) as
    `shared`; without one, the clock is private to this process).

    A tag is up to TAG whole numbers; a game uses (RESET or ACT, seat, move index in the game log).
    """

    TAG = 4
    SIZE = 2 + TAG

    def __init__(self, shared=None):
        self.shared = shared if shared is not None else (ctypes.c_double * self.SIZE)()

    @contextmanager
    def running(self, seconds: float, tag: tuple[int, ...]):
        s = self.shared
        for i in range(self.TAG):
            s[2 + i] = tag[i] if i < len(tag) else 0
        s[1] = seconds
        s[0] = time.monotonic()          # written last: a reader that sees the start sees the tag
        try:
            yield
        finally:
            s[0] = 0.0

    def _look(self) -> tuple[float, tuple[int, ...], float] | None:
        """(start, tag, budget) of the running call, all read from one call, or None.

        The start is read before and after the tag: a call that ended or began in between changes it,
        so a look never pairs one call's start with another call's tag."""
        s = self.shared
        start = s[0]
        tag, seconds = tuple(int(x) for x in s[2:self.SIZE]), s[1]
        return (start, tag, seconds) if start and s[0] == start else None

    def current(self) -> tuple[tuple[int, ...], float] | None:
        """(tag, budget) of the running call, or None."""
        look = self._look()
        return None if look is None else look[1:]

    def overrun(self) -> tuple[tuple[int, ...], float] | None:
        """(tag, budget) of the running call if it has run past `kill_after(budget)`, else None.

        The time is measured from the start of the call whose tag is returned, read in the same look
        (a start read apart from the tag can be 0.0 -- no call running -- just before a call begins,
        which would make a call that has just started look as old as the machine's clock)."""
        look = self._look()
        if look is None or time.monotonic() - look[0] <= kill_after(look[2]):
            return None
        return look[1:]


_ctrl_c = False


def _on_ctrl_c(signum, frame):
    global _ctrl_c
    _ctrl_c = True
    raise KeyboardInterrupt


@contextmanager
def user_interrupts():
    """Inside (main thread, where SIGINT has Python's default handler): a Ctrl-C still raises
    KeyboardInterrupt, and is marked as the user's, so `is_user_interrupt` can tell it apart from a
    KeyboardInterrupt an agent raises itself."""
    global _ctrl_c
    if threading.current_thread() is not threading.main_thread() \
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    _ctrl_c = False
    old = signal.signal(signal.SIGINT, _on_ctrl_c)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def is_user_interrupt(exc: BaseException) -> bool:
    """True if `exc` is (or may be) a Ctrl-C from the user, which must stop the run, not fault a seat."""
    if not isinstance(exc, KeyboardInterrupt):
        return False
    handler = signal.getsignal(signal.SIGINT)
    if handler is signal.SIG_IGN:        # no Ctrl-C reaches this process (a game worker): the agent raised it
        return False
    return _ctrl_c if handler is _on_ctrl_c else True


class CallBudget:
    """Runs agent calls with a time budget of `seconds` each (None: no limit); see the module docstring.

    Use as a context manager around the calls (it installs the alarm, where it can). `call` returns
    the function's result or raises AgentFailed: with the timeout error if the call ran out of time,
    else with the exception it raised, described while the clock still runs (so an exception whose
    message never ends is a timeout too). A Ctrl-C from the user passes through.
    """

    def __init__(self, seconds: float | None, clock: CallClock | None = None):
        self.seconds, self.clock = seconds, clock if clock is not None else CallClock()
        self._alarm = False
        self._old = None

    def __enter__(self) -> "CallBudget":
        self._alarm = bool(self.seconds and hasattr(signal, "setitimer")
                           and threading.current_thread() is threading.main_thread())
        if self._alarm:
            self._old = signal.signal(signal.SIGALRM, self._expired)
        return self

    def __exit__(self, *exc) -> None:
        if self._alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._old)
            self._alarm = False

    def _expired(self, signum, frame):
        raise MoveTimeout(f"no move within the {self.seconds:g} s limit")

    def call(self, tag: tuple[int, ...], fn, *args, **kwargs):
        if self.seconds is None:
            try:
                return fn(*args, **kwargs)
            except BaseException as e:  # every failure of an agent is its fault
                if is_user_interrupt(e):
                    raise
                raise AgentFailed(error_text(e)) from None
        with self.clock.running(self.seconds, tag):
            start = time.monotonic()
            try:
                if self._alarm:
                    signal.setitimer(signal.ITIMER_REAL, self.seconds)
                try:
                    result = fn(*args, **kwargs)
                finally:
                    if self._alarm:
                        signal.setitimer(signal.ITIMER_REAL, 0)
            except BaseException as e:  # every failure of an agent is its fault
                if is_user_interrupt(e):
                    raise
                raise AgentFailed(error_text(e)) from None
            if time.monotonic() - start > self.seconds:
                raise AgentFailed(timeout_error(self.seconds))
        return result


@dataclass(frozen=True)
class Forfeit:
    """A seat's fault decided by the process that watches the game (the process playing it was killed
    or died during this seat's call): when the game is played again, the call is not made and the
    fault is recorded there."""
    call: int        # RESET or ACT
    move: int        # index in the game log of the call
    error: str


def planted(call, forfeit: Forfeit | None):
    """`call` (a `CallBudget`'s), except that the call `forfeit` names -- a reset, or the moves from its move on
    -- is not made and fails with the forfeit's error."""
    if forfeit is None:
        return call

    def planted_call(tag, fn, *args, **kwargs):
        if tag[0] == forfeit.call and (tag[0] == RESET or forfeit.move <= tag[2]):
            raise AgentFailed(forfeit.error)
        return call(tag, fn, *args, **kwargs)

    return planted_call


def play_job(job: Job, rules, agents: dict, timeout: float | None, forfeits: dict | None = None,
             clock: CallClock | None = None) -> dict:
    """Play `job` with `agents` (name -> agent); return its store record.

    forfeits: seat -> Forfeit decided by a watcher; clock: where the running call is shown to it.
    """
    game = Game(rules, num_players=len(job.agents), seed=job.seed)
    forfeits = forfeits or {}
    untimed = CallBudget(None)
    with user_interrupts(), CallBudget(timeout, clock) as budget:
        seats = [Forfeiting(agents[name], name, call=planted((untimed if getattr(agents[name], "trusted", False)
                                                              else budget).call, forfeits.get(seat)))
                 for seat, name in enumerate(job.agents)]
        _play(game, seats)
    faults = [None if s.fault is None else {"error": s.fault, "move": s.fault_move} for s in seats]
    return record_of(job, game, faults)


def record_of(job: Job, game: Game, faults) -> dict:
    """The store record of `job` played to the end as `game` (faults: per seat None or {error, move})."""
    return record_of_game(game, faults, job.key, job.table, job.deal, job.rotation, job.seed, job.agents)


def make_record(job: Job, sheet_of, totals, places, sheets, upper_bonus, extra_bonus, faults, log) -> dict:
    """The store record of a finished job (`tournaments.gamelog.game_record`)."""
    return game_record(job.key, job.table, job.deal, job.rotation, job.seed, job.agents, sheet_of, totals, places,
                       sheets, upper_bonus, extra_bonus, faults, log)


def _play(game: Game, seats: list[Forfeiting]) -> None:
    def on_error(seat, exc, g):                 # the game refused the move (an illegal action)
        seats[seat].refused(error_text(exc), len(g.log))
        return fallback_action(g.legal_mask(), num_holds(g.rules))

    play_game(game, seats, on_error=on_error)
