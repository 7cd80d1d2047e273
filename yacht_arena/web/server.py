"""The server behind `yacht serve`'s endpoints: it puts together the data folder (`storage`), the open tables
(`registry`), their connections (`connections`), the CPU seats (`cpus`) and room-making (`idle`), and hands
every client message to its table. Everything a client sends is checked and bounded: frame size
(`MAX_FRAME`), message rate (`RATE` per second per connection), tables (`Limits.tables`), connections
(`Limits.connections`, and `PER_TABLE` per table); a bad message gets `{"type": "error"}` back and changes
nothing."""
import asyncio
from pathlib import Path

from yacht_env.config import slug

from .connections import Conn, Connections, read_message
from .cpus import FALLBACK, LAST, CpuSeats, cannot_play, fallback
from .idle import closable
from .registry import Registry
from .settings import Menu, ServeConfig
from .storage import Storage
from .tables import MAX_SEATS, Table, TableError


class Server:
    """The tables, their connections and CPU drivers, and the data folder they live in."""

    def __init__(self, data: Path, config: ServeConfig | None = None):
        self.config = config or ServeConfig()
        self.storage = Storage(Path(data))
        self.menu = Menu.of(self.config.cpus, self.config.allow_external)
        self.registry = Registry(self.menu)
        self.connections = Connections(self.config.limits.connections)
        self.cpus = CpuSeats(self.storage, self.connections, self.menu.label)
        self.waits: dict[tuple, asyncio.Task] = {}
        self.reserved = lambda: frozenset()     # slugs of names no person may take (the arena's bots set it)
        self.seat_bots = lambda table: None     # a rematch began at a table: its remote bots sit again (the arena)
        for table in self.storage.load():
            self._recheck(table)
            self.registry.add(table)
            if table.game.is_over and table.game_folder not in table.stored:   # the kill came before the store
                self.storage.store(table)

    def _recheck(self, table: Table) -> None:
        """A table restored from disk against the operator's current config: a CPU seat whose spec the menu no
        longer offers (an external bot since disabled, a model since removed) or that cannot play the rules
        is taken over by the table's fallback, and the table says so."""
        if not self._offered(table.replace_spec):
            table.replace_spec = "normal" if self._offered("normal") else FALLBACK
        changed = False
        for i, s in enumerate(table.seats):
            if not s.cpu:
                continue
            why = "the server no longer offers it" if not self._offered(s.spec) else \
                cannot_play(s.spec, table.rules, len(table.seats))
            if why is None:
                continue
            spec = fallback(table, s.spec)
            if spec is None:
                continue
            old = s.label or "CPU"
            table.replace(i, spec, self.menu.label(spec))
            table.note(f"{s.name}: the {old} CPU cannot play here any more ({why}); {table.seats[i].label} "
                       f"plays this seat now")
            changed = True
        if changed:
            try:
                self.storage.create(table)
            except TableError:
                pass                                  # logged; the table plays on and is written at its next move

    def _offered(self, spec: str) -> bool:
        return self.menu.offers(spec) or spec in (FALLBACK, LAST)

    @property
    def tables(self) -> dict[str, Table]:
        return self.registry.tables

    def best(self, rules_hash: str, name: str) -> dict | None:
        return self.storage.best(rules_hash, name)

    # ---- opening and closing tables ----------------------------------------------------------------
    def open_table(self, doc, address: str | None = None) -> dict:
        """Open a table from the lobby's form; {id, invite, tokens: seat -> token of the creator's seats}.
        `address`: the client address the request came from, which may hold at most
        `limits.tables_per_address` open tables (None: the server's own, as the arena's pool)."""
        limits = self.config.limits
        if address is not None:
            mine = self.registry.opened_by(address)
            if len(mine) >= limits.tables_per_address:
                self.close_idle(mine, limits.tables_per_address)
            if len(self.registry.opened_by(address)) >= limits.tables_per_address:
                raise TableError(f"You have {limits.tables_per_address} tables open here (counted by your network "
                                 "address), as many as this server allows. Finish or leave one of them, then try "
                                 "again.")
        if len(self.registry) >= limits.tables:
            self.close_idle()
        if len(self.registry) >= limits.tables:
            raise TableError("the server holds as many tables as it may; try again later")
        table = self.registry.create(doc)
        self.storage.create(table)
        self.registry.add(table, address)
        return {"id": table.id, "invite": table.invite,
                "tokens": {i: s.token for i, s in enumerate(table.seats) if not s.cpu and s.name}}

    def close_idle(self, among: list[Table] | None = None, under: int | None = None) -> None:
        """Make room: close the tables `idle.closable` lists (of `among`, default every open table) until
        fewer than `under` of them are open (default the server's table limit); their files go, their stored
        games stay."""
        among = list(self.registry.tables.values()) if among is None else among
        under = self.config.limits.tables if under is None else under
        open_ = len(among)
        for t in closable(among, self.registry.touched, self.connections.watched, self.cpus.busy()):
            if open_ < under:
                break
            self.registry.remove(t.id)
            self.connections.forget(t.id)
            self.cpus.forget(t.id)
            self.storage.remove(t.id)
            open_ -= 1

    # ---- live play -------------------------------------------------------------------------------
    async def message(self, table: Table, conn: Conn, raw: str) -> None:
        """One client message: a change broadcast to the table, or an error back to the sender."""
        reply_id = None
        self.registry.touch(table.id)
        try:
            msg = read_message(raw)
            reply_id = msg.get("id") if isinstance(msg.get("id"), int) else None
            kind = msg.get("type")
            if kind == "hello":
                tokens = msg.get("tokens", [])
                if not isinstance(tokens, list) or len(tokens) > MAX_SEATS or \
                        not all(isinstance(t, str) and len(t) <= 64 for t in tokens):
                    raise TableError(f"tokens must be a list of at most {MAX_SEATS} seat tokens")
                before = conn.held
                conn.held = table.seats_of(tokens)
                self._returned(table, conn.held - before)
                self.connections.broadcast(table)
                return
            snap = table.snapshot()
            if kind == "fill":                    # the host starts now: free seats to a CPU of the menu
                spec, label = self.menu.spec(msg.get("cpu"))
                table.fill(conn.held, spec, label)
                self.storage.save(table, snap)
            elif kind == "sit":
                name = msg.get("name")
                if isinstance(name, str) and slug(" ".join(name.split())) in self.reserved():
                    raise TableError(f"{name[:20]} is a remote bot's name: pick another name.")
                seat = table.sit(msg.get("invite"), name)
                self.storage.save(table, snap)
                conn.held = conn.held | {seat}
                conn.send({"type": "seated", "seat": seat, "token": table.seats[seat].token, "id": reply_id})
            else:
                number = table.number
                table.handle(conn.held, msg, here=set(self.connections.connected(table.id)))
                self.storage.save(table, snap)
                if kind == "rematch":
                    if table.number != number:    # the new game began: a remote bot's seat is its bot's again
                        self.seat_bots(table)
                    self.left(table, None)        # seats a CPU took over are people's again: wait for the absent
            await self.changed(table)
        except TableError as e:
            conn.send({"type": "error", "message": str(e), "id": reply_id})

    async def changed(self, table: Table) -> None:
        """After a change: store a finished game, tell everyone, let the CPU seats move."""
        if table.game.is_over and table.game_folder not in table.stored:
            await asyncio.to_thread(self.storage.store, table)
        self.connections.broadcast(table)
        self.cpus.drive(table)

    def _returned(self, table: Table, seats: set[int]) -> None:
        for s in seats:
            task = self.waits.pop((table.id, s), None)
            if task is not None:
                task.cancel()

    def left(self, table: Table, conn: Conn | None) -> None:
        """A connection closed (None: a new game began): a person seat nobody holds now waits `replace_after`
        for its person."""
        if table.replace_after is None:
            return
        online = self.connections.connected(table.id)
        for s in (conn.held if conn is not None else range(len(table.seats))):
            if online.get(s, 0) == 0 and not table.seats[s].cpu and table.seats[s].name \
                    and (table.id, s) not in self.waits:
                self.waits[(table.id, s)] = asyncio.create_task(self._replace_later(table, s))

    async def _replace_later(self, table: Table, seat: int) -> None:
        await asyncio.sleep(table.replace_after)
        self.waits.pop((table.id, seat), None)
        if self.connections.connected(table.id).get(seat, 0) or table.seats[seat].cpu or table.game.is_over:
            return
        snap = table.snapshot()
        table.replace(seat, table.replace_spec, "CPU")
        try:
            self.storage.save(table, snap)
        except TableError:
            return
        await self.changed(table)

    def start(self) -> None:
        """Let the CPU seats of the loaded tables play on (in the running event loop)."""
        for table in self.registry.tables.values():
            self.cpus.drive(table)

    async def close(self) -> None:
        for task in self.waits.values():
            task.cancel()
        await self.cpus.close()
