"""The CPU seats of `yacht serve`: one driver task per table plays the CPU seats whose turn it is, at the
table's pace, with agents built from the seats' specs (kept per table, game and seat)."""
import asyncio

from agents.base import View
from agents.registry import make_agent

from .connections import Connections
from .storage import Storage
from .tables import Table


class CpuSeats:
    """The agents of the CPU seats and the tasks that play them."""

    def __init__(self, storage: Storage, connections: Connections):
        self.storage, self.connections = storage, connections
        self.agents: dict[tuple, object] = {}
        self.drivers: dict[str, asyncio.Task] = {}
        self.warm: set[int] = set()               # ids of the agents that have made their first move

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

    def _close(self, key: tuple) -> None:
        agent = self.agents.pop(key)
        self.warm.discard(id(agent))
        agent.close()

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
            game, version = table.game, table.seen
            if game.is_over or not table.seats[game.current_seat].cpu:
                continue
            seat = game.current_seat
            agent = await self._agent(table, seat)
            if table.seen != version or table.game is not game:
                continue
            if game.phase == "roll":
                table.cpu_move(None)
            else:
                view = View.of(game)
                # the built-in agents answer in bounded time (a fraction of a millisecond once their tables are
                # loaded and their kernels compiled, which their first move may do: that one goes to a worker
                # thread): asked inline; any other agent (a learned model, an external bot) in a worker thread
                if getattr(agent, "trusted", False) and id(agent) in self.warm:
                    action = agent.act(view)
                else:
                    action = await asyncio.to_thread(agent.act, view)
                    self.warm.add(id(agent))
                if table.seen != version or table.game is not game:
                    continue
                table.cpu_move(action)
            self.storage.flush(table)
            if game.is_over:
                await asyncio.to_thread(self.storage.store, table)
            self.connections.broadcast(table)

    async def close(self) -> None:
        for task in self.drivers.values():
            task.cancel()
        for agent in self.agents.values():
            agent.close()
        self.agents.clear()
