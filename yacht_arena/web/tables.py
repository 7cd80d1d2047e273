"""Web tables: a `Game` with seats and tokens, every message checked against it, kept on disk.

A `Table` holds one game at a time (a rematch starts the next one) and knows nothing of sockets: the
server (`yacht_arena.web.app`) hands it messages and sends back what it returns. Every message is a
JSON object; `Table.handle(seats_held, message)` either changes the table and returns None, or leaves
it unchanged and returns an error text (unknown type, a seat the sender does not hold, out of turn,
an illegal move). The protocol is documented in docs/web.md.

Nothing lost: after every change the table is written to `DATA/tables/ID.json` (the setup, the seat
tokens and the game's move log; written to a temporary file and renamed, so a kill leaves the old or
the new file). Dice are counter-based by (game seed, sheet, turn, roll, die), so replaying the log on a
restart gives the same position, and the next rolls are the same dice. A finished game is appended to
the game records under `DATA/games/ID-N/` (`store_game`, `tournaments.gamelog`), before the table file
says so.
"""
import hashlib
import json
import os
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tournaments.gamelog import TableMeta, placements, store_table_game, table_meta, table_record
from tournaments.verify import commitment
from yacht_env.config import ConfigError, slug
from yacht_env.core.dice_source import game_seeds
from yacht_env.core.game import Game, IllegalMove
from yacht_env.rules import RuleSet, load, parse_sets, presets, rules_hash
from yacht_env.safe_file import NoSuchFile, bounded_lines, open_append, open_read, read_text, write_atomic

MAX_SEATS = 8
MAX_NAME = 20
MAX_PACE = 5.0                 # seconds between CPU moves
MAX_REPLACE = 3600.0           # seconds a left person's seat waits before a CPU takes it
MAX_UNDO_WAIT = 30.0           # seconds a CPU waits after a person scored, so the person may still undo
MAX_SETS = 16                  # rule knobs per table
TOKEN_BYTES = 12
MAX_TABLE_BYTES = 1 << 20      # a table's file (ID.json): its setup and the moves up to the last full write
MAX_JOURNAL_BYTES = 16 << 20   # a table's journal (ID.log): moves since then, one short JSON line each
MAX_MOVE_BYTES = 4096
MESSAGE_TYPES = ("hello", "sit", "fill", "roll", "score", "undo", "done", "reclaim", "react", "rematch")
FORMAT = 1                     # of the table file ("format") and of the journal (its first line {"journal": 1})
MAX_NOTES = 20                 # notes a table keeps (a CPU that failed, a seat the operator's config changed)
REACTIONS = ("Good game!", "Nice roll!", "Well played", "Oops!", "Your turn!", "Thanks!")   # canned: no free text
BOT_LABEL = "Remote bot"       # the label of a person seat a remote bot holds (`yacht_arena.web.bots`)
REMOTE_SPEC = "remote:"        # a remote bot's seat in a stored game's meta file: remote:NAME
REACTION_GAP = 1.5             # seconds between two reactions of one seat
MAX_REACTIONS = 5              # the last reactions a state shows


class TableError(ValueError):
    """A request the table refuses (bad setup or bad message); the table is unchanged."""


class JournalError(ValueError):
    """A table file or journal this server cannot replay: the message names the file and the line."""


def new_token() -> str:
    """An unguessable token for a URL (table id, invite, seat)."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def check_name(name) -> str:
    """A person's name: printable text of 1..MAX_NAME characters with a letter or digit (names are
    entrant names in the store, which must differ in their letters or digits)."""
    if not isinstance(name, str):
        raise TableError("a name must be text")
    name = " ".join(name.split())
    if not name or len(name) > MAX_NAME or not name.isprintable():
        raise TableError(f"a name must be 1 to {MAX_NAME} printable characters")
    if not slug(name).strip("-_"):
        raise TableError("a name needs at least one letter or digit")
    return name


@dataclass
class Seat:
    """A seat: a person (spec None) or a CPU (an agent spec from the server's menu). A remote bot sits in a
    person seat named after it, labelled `BOT_LABEL` (`yacht_arena.web.bots`); that seat is the bot's for the
    table's life (`bot`), also once the fallback CPU plays it after a fault."""
    name: str                      # "" for a person seat nobody has taken yet
    spec: str | None = None
    token: str = field(default_factory=new_token)
    label: str = ""                # the CPU's menu label ("Strong"), for people to read
    taken: bool = False            # a person's seat a CPU plays while its person is away (they may reclaim it)
    bot: bool = False              # a remote bot's seat (a CPU that took it over keeps it to the table's end)

    def __post_init__(self):
        self.bot = self.bot or self.remote

    @property
    def cpu(self) -> bool:
        return self.spec is not None

    @property
    def remote(self) -> bool:
        """A remote bot holds the seat (not a CPU standing in for it)."""
        return self.spec is None and self.label == BOT_LABEL

    @property
    def record_spec(self) -> str:
        """The seat's agent spec in a stored game's meta file: the CPU's spec, `remote:NAME` for a remote
        bot, "human" for a person."""
        return self.spec or (f"{REMOTE_SPEC}{self.name}" if self.remote else "human")

    def to_json(self) -> dict:
        return {"name": self.name, "spec": self.spec, "token": self.token, "label": self.label, "taken": self.taken,
                **({"bot": True} if self.bot else {})}


@dataclass(eq=False)
class Table:
    """One web table: rules, seats, the game in play and the games stored before it."""
    id: str
    invite: str
    rules_name: str
    sets: dict
    seats: list[Seat]
    pace: float = 0.6
    replace_after: float | None = None
    replace_spec: str = "normal"
    config_seed: int = 0
    number: int = 0                # games started at this table; the one in play is game `number`
    first_seat: int | None = None
    stored: list = field(default_factory=list)   # folder names of this table's finished games
    game: Game | None = None
    rules: RuleSet | None = None
    seen: int = 0                  # changes so far (the state's version)
    full: bool = True              # the table file must be written whole (else only `pending` moves appended)
    pending: list = field(default_factory=list)  # moves played since the last `flush`, for the journal
    rules_key: str = ""            # rules_hash of the rules, once
    rules_doc: dict = field(default_factory=dict)   # the rules as the state shows them, once
    dice_hash: str = ""            # the hash of the game's dice seed the table shows (tournaments.verify)
    preparing: int | None = None   # a CPU seat whose agent is loading (a first solve can take minutes)
    notes: list = field(default_factory=list)    # what happened to the table that its people should know
    undo_wait: float = 3.0         # seconds a CPU waits after a person scored (the person may still undo)
    seq: int = 0                   # moves and new games so far: a move message naming another seq is stale
    helped: set = field(default_factory=set)     # person seats a CPU played for in this game (it took them over)
    scored_at: float | None = None  # when a person's scoring opened the undo window the CPUs wait for (monotonic)
    public: bool = False           # listed in the lobby's open tables while a seat is free
    reactions: list = field(default_factory=list)   # the last reactions: {"seat", "phrase", "n"} (not kept on disk)
    reacted: dict = field(default_factory=dict)     # seat -> when it last reacted (monotonic)
    rematch_asked: set = field(default_factory=set)  # people's seats that asked for a rematch of the game over
    daily: str = ""                # the day (UTC, YYYY-MM-DD) of the daily deal this solo game plays, or ""

    # ---- setting up ------------------------------------------------------------------------------
    @classmethod
    def create(cls, rules_name: str, sets: dict, seats: list[Seat], pace: float = 0.6,
               replace_after: float | None = None, replace_spec: str = "normal", undo_wait: float = 3.0,
               daily: str = "") -> "Table":
        """A new table; TableError when the rules, seats or settings do not fit together."""
        if rules_name not in presets():
            raise TableError(f"unknown rule set {str(rules_name)[:40]!r}; choose one of {', '.join(presets())}")
        if not isinstance(sets, dict) or len(sets) > MAX_SETS:
            raise TableError(f"rule knobs must be at most {MAX_SETS} KEY=VALUE pairs")
        try:
            rules = load(rules_name, **sets)
        except (ConfigError, ValueError, TypeError) as e:
            raise TableError(f"rules: {' '.join(str(e).split())[:300]}") from None
        if not 1 <= len(seats) <= MAX_SEATS:
            raise TableError(f"a table has 1 to {MAX_SEATS} seats")
        try:
            rules.check_players(len(seats))
        except ValueError as e:
            raise TableError(str(e)) from None
        if rules.teams and len(seats) % rules.teams:
            raise TableError(f"{len(seats)} seats cannot split into {rules.teams} teams of equal size")
        if not any(not s.cpu for s in seats):
            raise TableError("a table needs at least one person seat")
        if not (isinstance(pace, (int, float)) and 0 <= pace <= MAX_PACE):
            raise TableError(f"the CPU pace must be 0 to {MAX_PACE:g} seconds")
        if replace_after is not None and not (isinstance(replace_after, (int, float))
                                              and 0 < replace_after <= MAX_REPLACE):
            raise TableError(f"the wait before a CPU replaces a person must be up to {MAX_REPLACE:g} seconds")
        if isinstance(undo_wait, bool) or not (isinstance(undo_wait, (int, float)) and 0 <= undo_wait <= MAX_UNDO_WAIT):
            raise TableError(f"the time left to undo before a CPU moves must be 0 to {MAX_UNDO_WAIT:g} seconds")
        table = cls(new_token(), new_token(), rules_name, dict(sets), seats, float(pace),
                    None if replace_after is None else float(replace_after), replace_spec)
        table.undo_wait = float(undo_wait)
        if daily and len(seats) != 1:
            raise TableError("The daily deal is played alone: one seat.")
        table.daily = daily
        table._check_names()
        table.start(first_seat=None)
        return table

    def _check_names(self) -> None:
        names = [s.name for s in self.seats if s.name]
        slugs = [slug(n) for n in names]
        if len(set(slugs)) != len(slugs):
            raise TableError("two seats would have the same name; names must differ in their letters or digits")

    def start(self, first_seat: int | None) -> None:
        """Start game number `self.number` (a fresh config seed gives its dice); None: the rules decide
        who plays first (roll-off or seat 1). Seats a CPU took over go back to their people: a new game
        never starts with a CPU in a person's seat (the server hands it over again if they stay away). A
        remote bot's seat a CPU took over stays with it: the bot lost its seat at this table (its games there
        are stored as "NAME + CPU")."""
        for s in self.seats:
            if s.taken and not s.bot:
                s.spec, s.label, s.taken = None, "", False
        self.helped = set()
        self.scored_at = None
        self.rematch_asked = set()
        self.seq += 1
        self.rules = load(self.rules_name, **self.sets)
        self.config_seed = daily_seed(self.daily, rules_hash(self.rules)) if self.daily else secrets.randbelow(1 << 62)
        self.first_seat = None
        self._new_game(first_seat)
        self.first_seat = self.game.first_seat
        self.number += 1
        self.changed(full=True)

    def _new_game(self, first_seat: int | None) -> None:
        self.game = Game(self.rules, len(self.seats), seed=self.game_seed, first_seat=first_seat)
        self.dice_hash = commitment(self.game_seed)
        rules = self.rules
        self.rules_key = rules_hash(rules)
        self.rules_doc = {"name": rules.name, "description": rules.description, "set": self.sets,
                          "boxes": list(rules.boxes), "upper": [b.upper for b in rules.boxes_spec],
                          "columns": rules.columns, "upper_bonus": rules.upper_bonus,
                          "upper_threshold": rules.upper_bonus_threshold, "rolls": rules.rolls_per_turn,
                          "teams": rules.teams, "hash": self.rules_key,
                          **({"saved_rolls": rules.saved_rolls} if rules.saved_rolls else {})}

    def changed(self, move: dict | None = None, full: bool = False) -> None:
        """Count a change; `move` goes to the journal (and counts in `seq`), `full` has the whole table file
        written."""
        self.seen += 1
        if move is not None:
            self.seq += 1
        self.full = self.full or full
        if move is not None:
            self.pending.append(move)

    @property
    def game_seed(self) -> int:
        """The game's dice seed: the seed of game t0-d0 of the one-game tournament it is stored as."""
        return int(game_seeds(self.config_seed, 0, last=np.arange(1))[0])

    @property
    def solo(self) -> bool:
        return len(self.seats) == 1

    # ---- messages --------------------------------------------------------------------------------
    def seats_of(self, tokens) -> set[int]:
        """The seats whose tokens are among `tokens`."""
        tokens = set(tokens)
        return {i for i, s in enumerate(self.seats) if s.token in tokens}

    def free_seat(self) -> int | None:
        return next((i for i, s in enumerate(self.seats) if not s.cpu and not s.name), None)

    def fill(self, held: set[int], spec: str, label: str) -> None:
        """The host starts now: every free person seat gets a CPU (`spec` from the server's menu)."""
        if not held:
            raise TableError("Only a player at the table can fill the free seats.")
        free = [i for i, s in enumerate(self.seats) if not s.cpu and not s.name]
        if not free:
            raise TableError("No seat is free.")
        taken = {slug(s.name) for s in self.seats if s.name}
        for i in free:
            name = next(n for n in (label, f"{label} {i + 1}", f"CPU {i + 1}") if slug(n) not in taken)
            taken.add(slug(name))
            self.seats[i].name, self.seats[i].spec, self.seats[i].label = name, spec, label
        self.changed(full=True)

    def sit(self, invite, name) -> int:
        """Take the first free person seat with the invite token; the seat's index."""
        if not isinstance(invite, str) or not secrets.compare_digest(invite, self.invite):
            raise TableError("This invite link is not for this table.")
        name = check_name(name)
        seat = self.free_seat()
        if seat is None:
            raise TableError("Every seat at this table is taken: you can watch.")
        if slug(name) in {slug(s.name) for s in self.seats if s.name}:
            raise TableError(f"Someone at this table is already called {name}: pick another name.")
        self.seats[seat].name = name
        self.changed(full=True)
        return seat

    def handle(self, held: set[int], msg: dict, here: set[int] | None = None) -> None:
        """Play one move message for a sender holding seats `held`; TableError leaves the table unchanged.
        `here`: the seats whose people are connected; a rematch then starts once each of them asked for it
        (None: at the first ask).

        Its text is for the player to read. A move message may carry `seq` (the state's `seq` the player saw):
        one naming another seq is refused as stale, so a repeated click or a resent message is never played
        twice."""
        kind = msg.get("type")
        if kind not in MESSAGE_TYPES[3:]:
            raise TableError(f"unknown message type {str(kind)[:30]!r}; known: {', '.join(MESSAGE_TYPES)}")
        seq = msg.get("seq")
        if seq is not None and seq != self.seq:
            raise TableError("That move was already made: the table has moved on since.")
        game = self.game
        if kind == "rematch":
            if not held:
                raise TableError("Only a player at the table can start a rematch.")
            if not game.is_over:
                raise TableError("The game is not over yet.")
            if self.game_folder not in self.stored:
                raise TableError("The game is being stored: try again in a moment.")
            people = {i for i, s in enumerate(self.seats) if not s.cpu or s.taken}
            self.rematch_asked |= held & people
            if here is not None and (here & people) - self.rematch_asked:
                self.seen += 1                    # the others are asked; the game starts when they agree
                return
            self.daily = ""                       # the deal is played once: a rematch deals afresh
            self.start(first_seat=(game.first_seat + 1) % len(self.seats))
            return
        seat = msg.get("seat")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(self.seats):
            raise TableError(f"There is no such seat at this table (seats are numbered 0..{len(self.seats) - 1}).")
        if seat not in held:
            raise TableError(f"Seat {seat + 1} is not yours (this device holds no token for it).")
        if kind == "react":
            phrase = msg.get("phrase")
            if isinstance(phrase, bool) or not isinstance(phrase, int) or not 0 <= phrase < len(REACTIONS):
                raise TableError(f"A reaction is one of the {len(REACTIONS)} phrases offered.")
            now = time.monotonic()
            if now - self.reacted.get(seat, -REACTION_GAP) < REACTION_GAP:
                raise TableError("One reaction at a time: wait a moment.")
            self.reacted[seat] = now
            n = self.reactions[-1]["n"] + 1 if self.reactions else 1
            said = {"seat": seat, "phrase": REACTIONS[phrase], "n": n}
            self.reactions = [*self.reactions[-(MAX_REACTIONS - 1):], said]
            self.seen += 1
            return
        if kind == "reclaim":
            if not self.seats[seat].taken:
                raise TableError("That seat is already yours.")
            s = self.seats[seat]
            s.spec, s.label, s.taken = None, "", False
            self.changed(full=True)
            return
        if self.seats[seat].cpu:
            raise TableError(f"A CPU plays seat {seat + 1} now.")
        if self.free_seat() is not None:
            raise TableError("Wait until every seat is taken.")
        if kind == "done":
            self.scored_at = None                 # the person plays on: the CPUs need not wait for an undo
            return
        if kind == "undo":
            last = game.log[-1] if game.log else None
            if game.is_over or not game.can_undo or last is None or last["seat"] != seat:
                raise TableError("Nothing of yours to undo (undo works after you score, until the next roll).")
            game.undo()
            self.scored_at = None
            self.changed({"undo": 1})
            return
        if game.is_over:
            raise TableError("The game is over.")
        if seat != game.current_seat:
            raise TableError(f"It is {self.seat_name(game.current_seat)}'s turn.")
        if kind == "roll":
            hold, n = msg.get("hold", []), self.rules.dice
            if not isinstance(hold, list) or len(hold) > n or len(set(map(repr, hold))) != len(hold) or \
                    not all(isinstance(h, int) and not isinstance(h, bool) and 0 <= h < n for h in hold):
                raise TableError(f"Hold dice by their positions (0..{n - 1} in the list), each at most once.")
            if game.phase == "roll" and hold:
                raise TableError("The first roll of a turn rolls all the dice.")
            if game.phase == "decide" and len(hold) == n:
                raise TableError("You are holding every die: you are ready to score. Pick a box.")
            if game.phase == "decide" and game.rolls_left <= 0:
                raise TableError("No rolls left: pick a box to score.")
            self._play(lambda: game.roll(sorted(hold)))
            self.changed({"roll": game.log[-1]["hold"]})
            return
        box, column = msg.get("box"), msg.get("column", 0)
        if not isinstance(box, str) or len(box) > 40:
            raise TableError("There is no such box under these rules.")
        if game.phase == "roll":
            raise TableError("Roll the dice first.")
        if box not in self.rules.boxes:
            raise TableError(f"There is no box {box[:40]!r} under these rules.")
        if isinstance(column, bool) or not isinstance(column, int) or not 0 <= column < self.rules.columns:
            raise TableError(f"There is no such column on this sheet (columns are numbered "
                             f"0..{self.rules.columns - 1}).")
        if (column, box) not in game.preview():
            filled = game.sheets[game.current_sheet].scores[column, self.rules.boxes.index(box)] >= 0
            raise TableError(f"{box_label(box)} is already filled: pick an open box." if filled else
                             f"The joker rule does not allow {box_label(box)} now: pick one of the boxes shown.")
        self._play(lambda: game.score(box, column))
        self.changed({"score": box, "column": column})
        # a person may still undo, so the CPUs wait (`cpu_hold`); a CPU or a remote bot (a program: it undoes
        # before it plays on, or not at all) lets them move on at once
        self.scored_at = None if self.seats[seat].cpu or self.seats[seat].remote else time.monotonic()

    def _play(self, move) -> None:
        """Play a move the checks above let through (IllegalMove, which they should have caught, as a refusal)."""
        try:
            move()
        except IllegalMove as e:
            raise TableError(str(e)) from None

    def cpu_hold(self, now: float) -> float:
        """Seconds a CPU's next move still waits: after a person (not a remote bot) scores, until they play
        on, undo, or `undo_wait` seconds pass (seed 000: undo until the next person rolls, a CPU included)."""
        if self.scored_at is None or not self.game.can_undo or self.game.is_over:
            return 0.0
        return max(0.0, self.scored_at + self.undo_wait - now)

    def cpu_move(self, action: int) -> None:
        """Play a CPU seat's action (or its first roll when `action` is None)."""
        seat = self.game.current_seat
        if self.seats[seat].taken:
            self.helped.add(seat)
        if action is None:
            self.game.roll()
        else:
            self.game.apply(action)
        self.scored_at = None
        last = self.game.log[-1]
        self.changed({"roll": last["hold"]} if "dice" in last else {"score": last["box"], "column": last["column"]})

    def seat_name(self, seat: int) -> str:
        s = self.seats[seat]
        return s.name or f"seat {seat + 1}"

    def replace(self, seat: int, spec: str, label: str) -> None:
        """A CPU takes a person's seat (the person left); the seat keeps its name with a mark."""
        s = self.seats[seat]
        s.spec, s.label, s.taken = spec, label, True
        s.name = s.name or f"CPU {seat + 1}"
        self.changed(full=True)

    # ---- what clients see ------------------------------------------------------------------------
    def state(self, held: set[int], connected: dict[int, int] | None = None) -> dict:
        """The table as a client draws it: no token but the client's own seats' (see docs/web.md)."""
        game, rules = self.game, self.rules
        connected = connected or {}
        seat = game.current_seat if not game.is_over else None
        preview = {f"{b}@{c}": p for (c, b), p in game.preview().items()}
        dice = list(game.dice)
        counting = {}
        for key, points in preview.items():
            b, _, _ = key.partition("@")
            counting[key] = rules.box(b).counting(dice, points)
        last = game.log[-1] if game.log else None
        undo_seat = last["seat"] if game.can_undo and not game.is_over else None
        sheets = []
        for k, sheet in enumerate(game.sheets):
            sheets.append({"scores": sheet.scores.tolist(), "upper": sheet.upper.tolist(),
                           "upper_bonus": sheet.upper_bonus.tolist(), "extra_bonus": sheet.extra_bonus.tolist(),
                           "total": sheet.total, **({"saved": game.saved_rolls_shown(k)} if rules.saved_rolls else {})})
        out = {
            "type": "state", "table": self.id, "version": self.seen, "game": self.number,
            "rules": self.rules_doc,
            "seats": [{"name": s.name, "cpu": s.cpu, "label": s.label, "sheet": game.sheet_of(i),
                       "you": i in held, "online": connected.get(i, 0) > 0, "taken": s.taken,
                       "helped": i in self.helped,
                       **({"token": s.token} if i in held else {})} for i, s in enumerate(self.seats)],
            "sheets": sheets, "turn": seat, "phase": game.phase, "round": game.round,
            "dice": dice, "dice_count": rules.dice, "rolls_left": game.rolls_left if not game.is_over else 0,
            "preview": preview, "counting": counting, "undo": undo_seat,
            "pace": self.pace, "first_seat": game.first_seat, "roll_off": game.roll_off_dice,
            "free": self.free_seat() is not None, "preparing": self.preparing,
            "log": game.log[-12:], "moves": len(game.log), "solo": self.solo, "notes": self.notes[-5:],
            "seq": self.seq,
            "undo_wait": self.undo_wait, "reactions": self.reactions, "public": self.public,
            "commitment": self.dice_hash,                 # the dice are fixed before the first roll
            "rematch": sorted(self.rematch_asked), "daily": self.daily,
        }
        if held:
            out["invite"] = self.invite
        if game.is_over:
            out["result"] = {"totals": game.totals(), "places": placements(game, [False] * len(self.seats)),
                             "winners": game.winners(), "tiebreak": {str(k): v for k, v in game.tiebreak().items()},
                             "stored": self.stored[-1] if self.stored else None,
                             "seed": str(self.game_seed)}    # revealed (as text: 63 bits outgrow JS numbers)
        return out

    def listing(self) -> dict | None:
        """The lobby's line for a public table with a free seat (its invite, so anyone may join); else None."""
        if not self.public or self.free_seat() is None or self.game.is_over:
            return None
        return {"id": self.id, "invite": self.invite, "rules": self.rules_name,
                "seats": [{"name": s.name, "cpu": s.cpu, "free": not s.cpu and not s.name} for s in self.seats]}

    # ---- disk ------------------------------------------------------------------------------------
    def to_json(self) -> dict:
        return {"id": self.id, "invite": self.invite, "rules": self.rules_name, "set": self.sets,
                "seats": [s.to_json() for s in self.seats], "pace": self.pace, "replace_after": self.replace_after,
                "replace_spec": self.replace_spec, "config_seed": self.config_seed, "number": self.number,
                "first_seat": self.first_seat, "log": self.game.log, "stored": self.stored, "version": self.seen,
                "notes": self.notes, "format": FORMAT,
                "seq": self.seq, "undo_wait": self.undo_wait, "helped": sorted(self.helped), "public": self.public,
                "daily": self.daily}

    def note(self, text: str) -> None:
        """Keep a note for the table's people (the last MAX_NOTES); the table file is written whole next."""
        self.notes = [*self.notes, text][-MAX_NOTES:]
        self.changed(full=True)

    def snapshot(self) -> tuple:
        """What `restore` needs to put the table back as it is now."""
        return json.dumps(self.to_json()), list(self.pending), self.full, self.seen

    def restore(self, snap: tuple) -> None:
        """Put the table back as `snapshot` found it (its game replayed from the snapshot's moves)."""
        doc, pending, full, seen = snap
        self.__dict__.update(Table.from_json(json.loads(doc)).__dict__)
        self.pending, self.full, self.seen = pending, full, seen

    @classmethod
    def from_json(cls, doc: dict, journal=()) -> "Table":
        """A table as `to_json` wrote it, its game replayed move by move (the same dice), then the moves of
        its journal (`flush`): (line number, move) pairs as `read_journal` gives them, played after it."""
        if doc.get("format", FORMAT) != FORMAT:
            raise JournalError(f"table file format {str(doc.get('format'))[:20]}; this server reads format {FORMAT}")
        seats = [Seat(s["name"], s["spec"], s["token"], s.get("label", ""), bool(s.get("taken", False)),
                      bool(s.get("bot", False))) for s in doc["seats"]]
        table = cls(doc["id"], doc["invite"], doc["rules"], dict(doc["set"]), seats, float(doc["pace"]),
                    doc["replace_after"], doc["replace_spec"], int(doc["config_seed"]), int(doc["number"]),
                    doc["first_seat"], list(doc["stored"]))
        table.rules = load(table.rules_name, **table.sets)
        table._new_game(table.first_seat)
        game = table.game
        for entry in doc["log"]:
            if "dice" in entry:
                game.roll(entry["hold"])
                if list(game.dice) != entry["dice"]:
                    raise ValueError(f"table {table.id}: replayed dice {game.dice} are not the logged {entry['dice']}")
            else:
                game.score(entry["box"], entry["column"])
        table.notes = [str(n)[:300] for n in doc.get("notes", [])][-MAX_NOTES:]
        for number, move in journal:
            try:
                if "roll" in move:
                    game.roll(move["roll"])
                elif "score" in move:
                    game.score(move["score"], move["column"])
                else:
                    game.undo()
            except IllegalMove as e:
                raise JournalError(f"line {number}: a move the game refuses ({e})") from None
        table.seen = int(doc.get("version", 0)) + len(journal)
        table.seq = int(doc.get("seq", table.number)) + len(journal)
        table.undo_wait = float(doc.get("undo_wait", table.undo_wait))
        table.helped = set(doc.get("helped", ()))
        table.public = bool(doc.get("public", False))
        table.daily = str(doc.get("daily", ""))
        table.full = bool(journal)
        return table

    @classmethod
    def load(cls, path: Path) -> "Table":
        """The table of `path` (ID.json) with the moves of its journal (ID.log; a torn last line is no move)."""
        log = path.with_suffix(".log")
        try:
            with open_read(log, "table journal", MAX_JOURNAL_BYTES) as f:
                journal = read_journal(bounded_lines(f, MAX_MOVE_BYTES, str(log), "move"))
        except NoSuchFile:
            journal = []
        except JournalError as e:
            raise JournalError(f"{log}: {e}") from None
        try:
            doc = json.loads(read_text(path, MAX_TABLE_BYTES, "table file"))
        except (ValueError, RecursionError):
            raise JournalError(f"{path}: not a table file (damaged JSON)") from None
        try:
            return cls.from_json(doc, journal)
        except JournalError as e:
            raise JournalError(f"{log if str(e).startswith('line') else path}: {e}") from None

    def flush(self, folder: Path) -> None:
        """Put the changes on disk: the whole table in `folder/ID.json` (written to a temporary file and
        renamed) after a change of setup, else the moves since the last flush appended to `folder/ID.log`,
        one JSON line each (no rewrite per move; a kill leaves whole lines and at most one torn last line)."""
        if self.full:
            write_atomic(folder / f"{self.id}.json", json.dumps(self.to_json(), separators=(",", ":")), "table file")
            (folder / f"{self.id}.log").unlink(missing_ok=True)
        elif self.pending:
            fd = open_append(folder / f"{self.id}.log", "table journal")   # never through a planted link
            try:
                head = [{"journal": FORMAT}] if os.fstat(fd).st_size == 0 else []
                os.write(fd, "".join(json.dumps(m, separators=(",", ":")) + "\n"
                                     for m in head + self.pending).encode())
            finally:
                os.close(fd)
        self.full = False
        self.pending.clear()

    # ---- the store -------------------------------------------------------------------------------
    @property
    def game_folder(self) -> str:
        return f"{self.id}-{self.number}"

    def entrants(self) -> list[str]:
        """The seats' names as store entrants (a CPU seat's name, or its spec when unnamed). A person's seat a
        CPU played for in this game is "NAME + CPU": the person's accuracy and best scores never count the
        CPU's moves."""
        names = [s.name or f"seat {i + 1}" for i, s in enumerate(self.seats)]
        for i in sorted(self.helped):
            taken = {slug(n) for n in names}
            names[i] = next(n for n in (f"{names[i]} + CPU", f"{names[i]} + CPU {i + 1}", f"seat {i + 1} + CPU")
                            if slug(n) not in taken)
        return names

    @property
    def best_offer(self) -> tuple[str, int, str] | None:
        """(key, score, name) a finished solo game offers the best scores; None when a CPU played any of it
        or a remote bot played it."""
        if not self.solo or not self.game.is_over or self.helped or self.seats[0].remote:
            return None
        name = self.seats[0].name
        return f"{self.rules_key}:{name}", self.game.totals()[0], name

    def record(self) -> tuple[TableMeta, dict]:
        """(the folder's meta file, the game's record) of the finished game (`tournaments.gamelog.table_meta`,
        `table_record`): the table's names in seat order, its places, its dice seed."""
        names = self.entrants()
        meta = table_meta(self.id, self.number, self.rules_name, self.sets, self.rules, names,
                          [s.record_spec for s in self.seats], self.config_seed, self.game_seed, self.daily)
        return meta, table_record(self.game, names, self.game_seed)


def read_journal(lines) -> list[tuple[int, dict]]:
    """The moves of a journal's (number, bytes) lines: [(line number, move)]. The first line may name the
    format ({"journal": 1}; journals written before it have none); every later line is one move of a known
    kind. A torn last line (no newline: a kill mid-write) is no move; any other line that is not a known move
    is a JournalError naming its line."""
    moves = []
    for number, line in lines:
        if not line.endswith(b"\n"):
            break
        try:
            move = json.loads(line)
        except (ValueError, RecursionError):
            raise JournalError(f"line {number}: damaged (not a JSON line)") from None
        if number == 1 and isinstance(move, dict) and set(move) == {"journal"}:
            if move["journal"] != FORMAT:
                raise JournalError(f"line 1: journal format {str(move['journal'])[:20]}; this server reads "
                                   f"format {FORMAT}")
            continue
        if not is_move(move):
            raise JournalError(f"line {number}: not a move this server knows ({line[:60].decode(errors='replace')})")
        moves.append((number, move))
    return moves


def is_move(move) -> bool:
    """A journal line's move: {"roll": mask of the dice held}, {"score": box, "column": c} or {"undo": 1}."""
    if not isinstance(move, dict):
        return False
    whole = lambda v: isinstance(v, int) and not isinstance(v, bool)  # noqa: E731
    if set(move) == {"roll"}:                      # the dice held: a bit mask of the sorted dice
        return whole(move["roll"]) and 0 <= move["roll"] < 256
    if set(move) == {"score", "column"}:
        return isinstance(move["score"], str) and whole(move["column"])
    return move == {"undo": 1}


def store_game(table: Table, games: Path) -> str:
    """Append the table's finished game to the records under `games/ID-N/` (fsynced); its folder name.
    Storing twice (a restart after a kill between the store and the table file) keeps one record."""
    store_table_game(games / table.game_folder, *table.record())
    return table.game_folder


def daily_seed(day: str, rules_key: str) -> int:
    """The config seed of the daily deal of `day` under the rules of hash `rules_key`: the same dice for
    everyone who plays it that day."""
    return int.from_bytes(hashlib.sha256(f"yacht daily deal {day} {rules_key}".encode()).digest()[:8], "big") >> 2


def box_label(box: str) -> str:
    """A box id as people read it: "three_of_a_kind" -> "Three of a kind"."""
    return box.replace("_", " ").capitalize()


def parse_knobs(pairs) -> dict:
    """Rule knobs as `--set` takes them (a list of KEY=VALUE texts) -> overrides; TableError when malformed."""
    if not isinstance(pairs, list) or len(pairs) > MAX_SETS or not all(isinstance(p, str) and len(p) <= 200
                                                                         for p in pairs):
        raise TableError(f"rule knobs must be a list of at most {MAX_SETS} KEY=VALUE texts")
    try:
        return parse_sets(pairs)
    except (ConfigError, ValueError) as e:
        raise TableError(f"rule knobs: {' '.join(str(e).split())[:300]}") from None


__all__ = ["JournalError", "Seat", "Table", "TableError", "check_name", "parse_knobs", "read_journal", "store_game"]
