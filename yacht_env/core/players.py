"""Players inside the environments: agent specs, agents and plain callables, all as batched players.

The environments take their opponents as

* agent specs (`"strong"`, `"strong?strength=0.5"`, `"learned:models/ppo-yacht.pt"`,
  `"external:python bot.py"`): turned into agents by the factory registered under the entry-point
  group `yacht_arena.agents` (the `agents` package registers `agents.registry:make_agent`; this
  package imports nothing from it);
* agents: anything with `act_batch(BatchView)` plays many tables at once; anything with only
  `act(View)` (external bots, people, a user's class) plays through `PerGame`, one instance per table;
* callables `policy(game) -> action`, called with a `Game` view of the table (the original protocol of
  `YachtVs-v0`).

A batched player answers `act_batch(view)` with one action per row of a `yacht_env.core.view.BatchView`.
`Forfeiting` is the one fault wrapper: a failing player forfeits its seat's game instead of stopping the
others', whether an environment's opponent (batched) or a tournament's seat (per game, `tournaments.play`).
"""
import warnings
from importlib.metadata import entry_points

import numpy as np

from .actions import fallback_action, fallback_actions, num_holds
from ..errors import printable
from .dice_source import decision_uniforms
from .game import Game
from .view import BatchView, View

GROUP = "yacht_arena.agents"


def kth_legal(mask: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Per row, the legal action picked by the uniform number u in [0, 1): the floor(u * n)-th of its n."""
    n = mask.sum(axis=1)
    k = np.minimum((u * n).astype(np.int64), n - 1)
    return np.argmax(np.cumsum(mask, axis=1) > k[:, None], axis=1).astype(np.int64)


def uniform_actions(view: BatchView) -> np.ndarray:
    """A uniformly random legal action at every row, from the decision's uniform number (the `random` agent's
    choice, and the environments' default opponent)."""
    return kth_legal(view.mask, decision_uniforms(view.seeds, view.seat, view.round, view.rolls_used))


class Uniform:
    """Uniformly random legal actions (`uniform_actions`)."""

    batched = True

    def act_batch(self, view: BatchView) -> np.ndarray:
        return uniform_actions(view)


def agent_factory():
    """The function registered under the `yacht_arena.agents` entry points that makes an agent from a spec."""
    found = entry_points(group=GROUP)
    if not found:
        raise ValueError(f"no agent factory is installed (entry points {GROUP!r}): install yacht-arena with pip, "
                         "or pass agent objects instead of specs")
    return sorted(found, key=lambda e: e.name)[0].load()


class PerGame:
    """A per-game agent at one seat of many tables: one instance per table, made by `make()`.

    `start(state, rows)` resets the instances of tables whose game starts; `act_batch` asks each
    instance in turn, through a `Game` view of its table (`Game.of_table`). With `slots`, table i plays
    with instance i % slots, so at most `slots` instances (an external bot's processes) exist: the caller
    plays at most `slots` consecutive tables at a time. `new_faults(rows)` hands over what the
    instances recorded in their `faults` lists (external bots do) since it was last asked.
    """

    batched = True

    def __init__(self, make, num_tables: int, seat: int, slots: int | None = None):
        self.make, self.seat = make, seat
        self.slots = num_tables if slots is None else max(1, min(int(slots), num_tables))
        self.agents = [None] * self.slots
        self._seen = [0] * self.slots

    def start(self, state, rows) -> None:
        for i in rows:
            k = int(i) % self.slots
            if self.agents[k] is None:
                self.agents[k] = self.make()
                self._seen[k] = len(getattr(self.agents[k], "faults", None) or ())
            seed = int(state.seeds[i])
            self.agents[k].reset(state.rules, self.seat, state.num_players, seed=(seed * 8 + self.seat) & 0xFFFFFFFF)

    def act_batch(self, view: BatchView) -> np.ndarray:
        return np.array([self.agents[int(i) % self.slots].act(View.of(Game.of_table(view.state, int(i))))
                         for i in view.rows], np.int64)

    def new_faults(self, rows) -> list[tuple[int, object]]:
        """(table, fault) for every fault the instances of tables `rows` recorded since last asked."""
        out = []
        for i in rows:
            k = int(i) % self.slots
            faults = getattr(self.agents[k], "faults", None) or ()
            if len(faults) > self._seen[k]:
                out += [(int(i), f) for f in faults[self._seen[k]:]]
                self._seen[k] = len(faults)
        return out

    def close(self) -> None:
        for a in self.agents:
            if a is not None and hasattr(a, "close"):
                a.close()


class CallablePlayer:
    """A callable `policy(game) -> action`, asked once per table with a `Game` view of it."""

    batched = True

    def __init__(self, policy):
        self.policy = policy

    def act_batch(self, view: BatchView) -> np.ndarray:
        return np.array([self.policy(Game.of_table(view.state, int(i))) for i in view.rows], np.int64)


def batched_player(opponent, num_tables: int, seat: int, factory=None, slots: int | None = None):
    """A batched player for `opponent` at `seat` of `num_tables` tables (see the module docstring); a
    per-game agent made from a spec plays through `PerGame` with `slots` instances at most."""
    if isinstance(opponent, str):
        make = factory or agent_factory()
        agent = make(opponent)
        if getattr(agent, "batched", False):
            return agent
        if hasattr(agent, "close"):
            agent.close()
        return PerGame(lambda: make(opponent), num_tables, seat, slots)
    if getattr(opponent, "batched", False) and hasattr(opponent, "act_batch"):
        return opponent
    if hasattr(opponent, "act") and hasattr(opponent, "reset"):
        if num_tables > 1:
            raise ValueError(f"{type(opponent).__name__} plays one game at a time and cannot sit at {num_tables} "
                             "tables at once; give its agent spec (or a batched agent) instead")
        return PerGame(lambda: opponent, 1, seat)
    if callable(opponent):
        return CallablePlayer(opponent)
    raise ValueError(f"an opponent must be an agent spec, an agent or a callable game -> action, got {opponent!r}")


class OpponentFault(UserWarning):
    """An opponent inside an environment failed (`Forfeiting`): its seat forfeits the rest of that game."""


RESET, ACT = 0, 1          # the kind of agent call: a call's tag is (RESET or ACT, seat, move index in the log)


class AgentFailed(Exception):
    """An agent call failed; `error` says how, in the words its fault is recorded with."""

    def __init__(self, error: str):
        super().__init__(error)
        self.error = error


def direct_call(tag: tuple[int, ...], fn, *args, **kwargs):
    """An agent call as `Forfeiting` makes it by default: its result, or AgentFailed('Type: message') for an
    exception it raised. A caller with a time limit passes its own (`tournaments.play.CallBudget.call`)."""
    try:
        return fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - a failing agent forfeits its seat (`Forfeiting`)
        raise AgentFailed(f"{type(e).__name__}: {e}") from None


def guarded(player, opponent, num_tables: int, env: str = "YachtVs-v0"):
    """`player` (made for `opponent` by `batched_player`) as an environment seats it: library agents
    (`trusted`) and the default random player as they are, any other through `Forfeiting`."""
    if getattr(player, "trusted", False) or isinstance(player, Uniform):
        return player
    return Forfeiting(player, opponent_label(opponent), num_tables, env)


def opponent_label(opponent) -> str:
    """How warnings and info name an opponent: its spec (inert, cut to 80 characters) or its type."""
    return printable(opponent, 80) if isinstance(opponent, str) else type(opponent).__name__


def _plain(action):
    """The action, if the game can read it without running agent code (builtin and numpy values: the
    game checks them); any other object could do anything in its conversion, so it is a fault here."""
    if type(action).__module__ in ("builtins", "numpy"):
        return action
    raise AgentFailed(f"TypeError: act returned a {type(action).__name__} object, not an integer action")


class Forfeiting:
    """A player whose failures cost its seat the game instead of stopping everyone's: the one fault wrapper,
    for a batched player at many tables (an environment's opponents: `start`, `act_batch`) and for a
    per-game agent at one game (a tournament's seat: `reset`, `act`).

    A fault is the player raising (also in `start` / `reset`), answering with anything but one legal action per
    table, or recording one in its `faults` list (an external bot's timeout, crash, garbage or illegal reply:
    `agents.external`, whose own fallback move is played for that decision; a batched player's per-game
    instances are asked through `PerGame.new_faults`). From its fault to the end of that game the player
    forfeits at that table: its seat plays `actions.fallback_action` (score the first legal box) and the
    player is not asked again there; its next game at that table asks it again. The game is scored as
    played: the fallback's points count, and the places and rewards come from the totals as in any game.

    Every agent call goes through `call(tag, fn, *args)` (`direct_call` by default; a tournament passes its
    time budget, which also applies a fault its watcher decided), which returns the result or raises
    `AgentFailed`; the tag is (RESET or ACT, seat, move index in the game log), with seat -1 and move 0 for a
    batched call (many tables at once).

    Batched, every fault is appended to `faults` as a dict {"table", "seat", "opponent", "kind" (error, illegal,
    or the bot's own: timeout, crash, garbage), "cause", "game_seed"} for the environment to hand over in its
    info, and warned about (`OpponentFault`, one message per opponent and kind, so Python's default filter
    shows each once). `seating` and `index` (set by the caller: the tables' seating and this player's
    index in it) name the seat of a fault in `start`, before any decision. Per game, the game's first fault is
    kept as `fault` (the record's words: "reset: " before a failed reset's error, "kind: cause" for one the
    agent recorded) and `fault_move` (its index in the game log); an illegal move the game refuses is
    reported by the caller through `refused`.
    """

    batched = True

    def __init__(self, player, label: str, num_tables: int = 1, env: str = "YachtVs-v0", call=direct_call):
        self.player, self.label, self.env, self.call = player, label, env, call
        self.forfeited = np.zeros(num_tables, np.bool_)
        self.faults: list[dict] = []
        self.seating, self.index = None, None
        self.fault: str | None = None
        self.fault_move: int | None = None
        self._seat_now, self._at, self._seen = 0, 0, 0

    # -- batched: many tables, faults as the environments report them

    def _seat(self, table: int):
        if self.seating is None:
            return None
        seats = np.flatnonzero(self.seating[table] == self.index)
        return int(seats[0]) if len(seats) else None

    def _fault(self, state, table: int, seat, kind: str, cause) -> None:
        self.forfeited[table] = True
        kind, cause = printable(kind, 40), printable(cause, 300)
        self.faults.append({"table": table, "seat": seat, "opponent": self.label, "kind": kind, "cause": cause,
                            "game_seed": int(state.seeds[table])})
        warnings.warn(f"{self.env}: opponent {self.label} faulted ({kind}); it forfeits the rest of that game, "
                      f"its seat playing the fallback (score the first legal box); each fault is in "
                      f"info['opponent_faults']", OpponentFault, stacklevel=2)

    def _collect(self, state, rows, seats=None) -> None:
        """Faults the player's per-game instances recorded at tables `rows` (seats[j]: the seat at rows[j])."""
        if not hasattr(self.player, "new_faults"):
            return
        where = dict(zip(np.asarray(rows).tolist(), np.asarray(seats).tolist())) if seats is not None else {}
        for table, f in self.player.new_faults(rows):
            self._fault(state, table, where.get(table, self._seat(table)), getattr(f, "kind", "error"),
                        getattr(f, "cause", f))

    def start(self, state, rows) -> None:
        rows = np.asarray(rows, np.int64)
        self.forfeited[rows] = False
        if not hasattr(self.player, "start"):
            return
        try:
            self.call((RESET, -1, 0), self.player.start, state, rows)
        except AgentFailed as e:
            for i in rows.tolist():
                self._fault(state, i, self._seat(i), "error", f"reset: {e.error}")
        self._collect(state, rows)

    def act_batch(self, view: BatchView) -> np.ndarray:
        rows, seats, state = view.rows, view.seat, view.state
        out = fallback_actions(view.mask, num_holds(view.rules))
        ask = np.flatnonzero(~self.forfeited[rows])
        if not len(ask):
            return out
        sub = view if len(ask) == len(rows) else BatchView(state, rows[ask])

        def answer():
            got = np.asarray(self.player.act_batch(sub))
            if got.shape != (len(ask),) or not np.issubdtype(got.dtype, np.integer) or got.dtype == np.bool_:
                raise TypeError(f"act_batch must return {len(ask)} integer actions, got {got.dtype} of shape "
                                f"{got.shape}")
            return got

        try:
            got = self.call((ACT, -1, 0), answer)
        except AgentFailed as e:
            for j in ask.tolist():
                self._fault(state, int(rows[j]), int(seats[j]), "error", e.error)
            self._collect(state, rows[ask], seats[ask])
            return out
        mask = view.mask[ask]
        ok = (got >= 0) & (got < mask.shape[1])
        ok[ok] = mask[np.flatnonzero(ok), got[ok]] != 0
        out[ask[ok]] = got[ok]
        for j, a in zip(ask[~ok].tolist(), got[~ok].tolist()):
            self._fault(state, int(rows[j]), int(seats[j]), "illegal", f"illegal action {a}")
        self._collect(state, rows[ask], seats[ask])
        return out

    def take_faults(self) -> list[dict]:
        """The faults recorded since last taken."""
        out, self.faults = self.faults, []
        return out

    # -- per game: one game, its first fault as the game record holds it

    def refused(self, error: str, move: int) -> None:
        """The game refused the agent's move (`error`, at index `move` of its log): the game's fault, unless it
        has one already; the seat plays the fallback from here."""
        if self.fault is None:
            self.fault, self.fault_move = error, move
        self.forfeited[0] = True

    def _failed(self, call: int, error: str) -> None:
        self.refused(("reset: " if call == RESET else "") + error, 0 if call == RESET else self._at)

    def _check_reported(self) -> None:
        faults = getattr(self.player, "faults", None) or ()
        if self.fault is None and len(faults) > self._seen:
            f = faults[self._seen]
            kind, cause = getattr(f, "kind", None), getattr(f, "cause", None)
            self.refused(f"{kind}: {cause}" if kind and cause else str(f), self._at)

    def reset(self, rules, seat, num_players, seed=None):
        self.fault = self.fault_move = None
        self.forfeited[0] = False
        self._seat_now, self._at = seat, 0
        self._seen = len(getattr(self.player, "faults", None) or ())
        try:
            self.call((RESET, seat, 0), self.player.reset, rules, seat, num_players, seed=seed)
        except AgentFailed as e:
            self._failed(RESET, e.error)
        self._check_reported()

    def act(self, view):
        if self.forfeited[0]:
            return fallback_action(view.mask, num_holds(view.rules))
        self._at = len(view.game.log)
        _ = view.mask      # the legal moves are the game's work, done before the agent's clock starts
        try:
            return _plain(self.call((ACT, self._seat_now, self._at), self.player.act, view))
        except AgentFailed as e:
            self._failed(ACT, e.error)
            return fallback_action(view.mask, num_holds(view.rules))
        finally:
            self._check_reported()

    # -- both

    def prepare(self, rules, num_players: int) -> None:
        """The player's own check of the table (refusals propagate: they come before any game)."""
        if hasattr(self.player, "prepare"):
            self.player.prepare(rules, num_players)

    def close(self) -> None:
        if hasattr(self.player, "close"):
            self.player.close()
