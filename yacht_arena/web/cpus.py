"""The CPU seats of `yacht serve`: one driver task per table plays the CPU seats whose turn it is, at the
table's pace, with agents built from the seats' specs (kept per table, game and seat).

A CPU never hangs its table silently: an agent that cannot be built, raises, answers an illegal move, or
reports a fault of its own (an external bot that crashed, timed out or answered garbage: its fallback move
stands) is a fault. The fault is logged, kept in the table's notes (shown to its people) and the seat is taken over by
the table's fallback player: the CPU the table chose to take over a left person's seat (`replace_cpu`,
Normal by default) when it can play the rules and is not the one that failed, else `FALLBACK` (greedy,
which plays any rule set), else `LAST` (random). After MAX_FAULTS faults in one game the table stops and
says so (its people can still see it; nothing is stored for the unfinished game)."""
import asyncio
import time

from agents.base import View
from agents.registry import make_agent
from yacht_env.rules import RuleSet, command_args, load
from yacht_env.solver.cache import long_solve_bytes

from .connections import Connections
from .storage import Storage, log
from .tables import Table, TableError

FALLBACK = "greedy"
LAST = "random"
MAX_FAULTS = 3                   # CPU faults in one game of a table before it stops rather than swap again


def cannot_play(spec: str, rules: RuleSet, seats: int) -> str | None:
    """Why the agent of `spec` cannot play `rules` at a table of `seats` (its cheap `check_rules`), or None."""
    try:
        agent = make_agent(spec)
    except Exception as e:  # noqa: BLE001 - any failure to build is a reason, shown to the person
        return " ".join(str(e).split())[:200] or type(e).__name__
    try:
        agent.check_rules(rules, seats)
    except ValueError as e:
        return " ".join(str(e).split())[:200]
    finally:
        agent.close()
    return long_solve(rules) if spec.split("?")[0] == "strong" else None


def long_solve(rules: RuleSet) -> str | None:
    """Why the solver's table of `rules` would keep the server busy (a solver CPU's first game, an analysis):
    its solve is a long one (`yacht_env.solver.cache.long_solve_bytes`: not solved yet, and Maxi Yatzy's holds
    3.6 GB for about ten minutes), or None."""
    need = long_solve_bytes(rules)
    if not need:
        return None
    return (f"it would first solve these rules, which holds {need / 1e9:.1f} GB for many minutes; the server's "
            f"operator can solve them beforehand (yacht solve {command_args(rules)})")


def unplayable(entries: dict, names: list[str]) -> dict[str, dict[str, str]]:
    """For each preset of `names`, the CPU menu ids (`entries`: id -> (label, spec), plus "dial") whose CPU
    cannot play it at a two-seat table, with why: the lobby offers only the others (a table still checks its
    own seats when it opens)."""
    specs = {key: spec for key, (_, spec) in entries.items()} | {"dial": "strong?strength=0.5"}
    out = {}
    for name in names:
        rules = load(name)
        out[name] = {key: why for key, spec in specs.items() if (why := cannot_play(spec, rules, 2))}
    return out


class Unplayable:
    """`unplayable` for the lobby's menu as the solver's cache stands: a preset's answer is kept while whether
    its table still needs a long solve (`long_solve_bytes`, a few file names once its rules are loaded) stays
    the same, and found again when that changes (rules solved, or their table removed, while the server runs)."""

    def __init__(self, entries: dict):
        self.entries = entries
        self.rules: dict[str, RuleSet] = {}               # preset -> its rules, loaded once
        self.found: dict[tuple[str, bool], dict[str, str]] = {}   # (preset, long solve pending) -> unplayable's

    def __call__(self, names: list[str]) -> dict[str, dict[str, str]]:
        out = {}
        for name in names:
            rules = self.rules.get(name)
            if rules is None:
                rules = self.rules[name] = load(name)
            key = (name, bool(long_solve_bytes(rules)))
            if key not in self.found:
                self.found[key] = unplayable(self.entries, [name])[name]
            out[name] = self.found[key]
        return out


def fallback(table: Table, failed: str) -> str | None:
    """The spec that takes over a failed CPU seat (see the module's text), or None when none can."""
    for spec in (table.replace_spec, FALLBACK, LAST):
        if spec != failed and cannot_play(spec, table.rules, len(table.seats)) is None:
            return spec
    return None


class CpuSeats:
    """The agents of the CPU seats and the tasks that play them."""

    def __init__(self, storage: Storage, connections: Connections, label=lambda spec: spec):
        """`label(spec)`: what people read for a CPU of that spec (the server's menu says)."""
        self.storage, self.connections, self.label = storage, connections, label
        self.agents: dict[tuple, object] = {}
        self.drivers: dict[str, asyncio.Task] = {}
        self.warm: set[int] = set()               # ids of the agents that have made their first move
        self.faults: dict[tuple, int] = {}        # (table id, game number) -> CPU faults so far

    def busy(self) -> set[str]:
        """The tables whose driver is playing."""
        return {k for k, task in self.drivers.items() if not task.done()}

    def drive(self, table: Table) -> None:
        task = self.drivers.get(table.id)
        if task is None or task.done():
            self.drivers[table.id] = asyncio.create_task(self._drive(table))

    def forget(self, table_id: str) -> None:
        """Close the agents of a closed table."""
        for key in [k for k in self.agents if k[0] == table_id]:
            self._close(key)
        for key in [k for k in self.faults if k[0] == table_id]:
            del self.faults[key]

    def _close(self, key: tuple) -> None:
        agent = self.agents.pop(key)
        self.warm.discard(id(agent))
        try:
            agent.close()
        except Exception as e:  # noqa: BLE001 - a bot that fails to close is logged, never the server's end
            log(f"an agent ({key[3]}) failed to close: {' '.join(str(e).split())[:200]}")

    async def _agent(self, table: Table, seat: int):
        key = (table.id, table.number, seat, table.seats[seat].spec)
        agent = self.agents.get(key)
        if agent is None:
            game = table.game

            def build():
                a = make_agent(table.seats[seat].spec)
                a.reset(game.rules, seat, game.num_players, seed=(game.seed * 8 + seat) & 0xFFFFFFFF)
                return a
            table.preparing = seat                # the table says so while the agent loads or solves the rules
            self.connections.broadcast(table)
            for old in [k for k in self.agents if k[0] == table.id and k[1] != table.number]:
                self._close(old)
            try:
                agent = self.agents[key] = await asyncio.to_thread(build)
            finally:
                table.preparing = None
        return agent

    async def _drive(self, table: Table) -> None:
        """Play the CPU seats whose turn it is, one move per `pace` seconds."""
        while True:
            game = table.game
            if game.is_over or table.free_seat() is not None or not table.seats[game.current_seat].cpu:
                return
            if table.pace:
                await asyncio.sleep(table.pace)
            else:
                await asyncio.sleep(0)            # the connections' writers send between moves
            game, version = table.game, table.seen
            if game.is_over or not table.seats[game.current_seat].cpu:
                continue
            hold = table.cpu_hold(time.monotonic())     # a person who just scored may still undo
            if hold > 0:
                await asyncio.sleep(min(hold, 0.1))
                continue
            seat = game.current_seat
            snap = table.snapshot()
            try:
                await self._move(table, seat, game, version)
            except Exception as e:  # noqa: BLE001 - whatever the agent did, the table goes on without it
                table.restore(snap)
                if not self._fault(table, seat, " ".join(str(e).split())[:160] or type(e).__name__):
                    return
            try:
                self.storage.save(table, snap)
            except TableError:
                return                            # logged; the table waits for its next message
            if table.game.is_over:
                await asyncio.to_thread(self.storage.store, table)
            self.connections.broadcast(table)

    async def _move(self, table: Table, seat: int, game, version: int) -> None:
        agent = await self._agent(table, seat)
        if table.seen != version or table.game is not game:
            return
        if game.phase == "roll":
            table.cpu_move(None)
            return
        view = View.of(game)
        # the built-in agents answer in bounded time (a fraction of a millisecond once their tables are
        # loaded and their kernels compiled, which their first move may do: that one goes to a worker
        # thread): asked inline; any other agent (a learned model, an external bot) in a worker thread
        faults = len(getattr(agent, "faults", ()))
        if getattr(agent, "trusted", False) and id(agent) in self.warm:
            action = agent.act(view)
        else:
            action = await asyncio.to_thread(agent.act, view)
            self.warm.add(id(agent))
        if table.seen != version or table.game is not game:
            return
        table.cpu_move(action)
        new = list(getattr(agent, "faults", ()))[faults:]
        if new:                       # an external bot's own fault: its fallback move stands, then the seat goes
            self._fault(table, seat, f"{new[0].kind}: {new[0].cause}")

    def _fault(self, table: Table, seat: int, why: str) -> bool:
        """A CPU failed at `seat` (`why`): log it, note it, seat the fallback. False when no fallback can play."""
        s = table.seats[seat]
        why = " ".join(why.split())[:160]
        log(f"table {table.id}: seat {seat + 1} ({s.label or s.spec}) failed: {why}")
        for key in [k for k in self.agents if k[0] == table.id and k[2] == seat]:
            self._close(key)
        key = (table.id, table.number)
        self.faults[key] = self.faults.get(key, 0) + 1
        spec = fallback(table, s.spec) if self.faults[key] < MAX_FAULTS else None
        if spec is None:
            table.note(f"{s.name} ({s.label}) could not play on ({why}), and no other CPU can take the seat "
                       f"over; the table stops here")
            self.connections.notice(table, table.notes[-1])
            return False
        old = s.label or "CPU"
        table.replace(seat, spec, self.label(spec))
        table.note(f"{s.name}: the {old} CPU could not play on ({why}); {table.seats[seat].label} plays "
                   f"this seat now")
        self.connections.notice(table, table.notes[-1])
        return True

    async def close(self) -> None:
        for task in self.drivers.values():
            task.cancel()
        for key in list(self.agents):
            self._close(key)
