"""`yacht play`: people play in the terminal, against CPU agents or each other.

One person (`--name`, `--seat`) or several at one terminal (`--humans alice bob`, seated first in that
order), against the CPU agents of `--vs`. At the end, "play again" starts a rematch: the same seats,
the next game seed, and the first turn passes to the next seat. Playing alone, the best score is kept
per rule set (by rules hash) in `$YACHT_DATA_DIR`, else `$XDG_DATA_HOME/yacht-arena`, else
`~/.local/share/yacht-arena` (`best.json`); `--no-best` neither reads nor writes it, and a damaged or
unwritable file costs one warning line, never the game.

`--json` makes stdout a JSON-lines event log, one object per line, for a program following the game:
`start` (rules, seed, players), `roll`, `score`, `undo`, `end` (totals, winners, the best score when
playing alone) or `abandoned`; seats count from 0, as in a tournament's games.jsonl. Prompts, dice
and scorecards then go to stderr. (Every other command's --json prints one JSON document; a game in
progress is a stream of events, so play writes one document per event.)
"""
import itertools
import json
import os
import secrets
import sys
from pathlib import Path

from yacht_env.core.actions import held_positions, num_holds
from yacht_env.config import MAX_SEED, ConfigError
from yacht_env.core.game import Game
from yacht_env.rules import parse_sets, rules_block, rules_label

from agents.base import View
from agents.human import HumanAgent, HumanQuit, saved_note, scorecard
from agents.base import check_playable
from agents.registry import make_agent, parse_spec
from tournaments.gamelog import BestScores

from .options import CommandError, add_common, rules_from_args

DATA_ENV = "YACHT_DATA_DIR"
MAX_NAME = 20


# Each command module builds its own parser (`yacht COMMAND` imports only that module); the
# add_parser functions share their shape, not their options.
def add_parser(sub):
    p = sub.add_parser("play", help="play in the terminal against CPU agents or each other",
                       description="Play Yacht in the terminal: hold dice by position (hold 1 3 5), score a box "
                                   "by name (score full_house, or just full), undo right after scoring, help for "
                                   "every command. Several people can share the terminal (--humans), and a "
                                   "finished game can be played again with the first turn passed on.")
    p.add_argument("--vs", nargs="*", default=None, metavar="SPEC",
                   help="CPU opponents, e.g. --vs easy normal strong (default: normal for one person, none for "
                        "--humans; --vs alone: no CPU)")
    p.add_argument("--name", default=None, help="your name on the scorecard (default: you)")
    p.add_argument("--seat", type=int, default=None, help="your seat, 1 = first to play (default: 1)")
    p.add_argument("--humans", nargs="+", default=None, metavar="NAME",
                   help="several people at this terminal, seated first in this order, each with their own undo")
    p.add_argument("--no-best", action="store_true",
                   help="do not read or save the best solo score for these rules")
    add_common(p)
    for action in p._actions:
        if action.dest == "json":
            action.help = "write the game as JSON lines on stdout, one event per line (prompts go to stderr)"
        if action.dest == "seed":
            action.default = None
            action.help = ("game seed (default: a fresh one, shown at the start, so --seed S replays the game; "
                           "a rematch plays seed S + 1)")


# ---- who plays -------------------------------------------------------------------------------------

def _check_name(name: str, option: str) -> str:
    name = name.strip()
    if not name:
        raise CommandError(f"{option}: a name cannot be empty")
    if len(name) > MAX_NAME:
        raise CommandError(f"{option}: {name[:MAX_NAME]!r}... is longer than {MAX_NAME} characters")
    if not name.isprintable():
        raise CommandError(f"{option}: {name!r} holds characters that cannot be printed")
    return name


def seating(args, rules) -> tuple[list[str | None], dict[int, str]]:
    """Per seat the CPU spec (None for a person), and every seat's name."""
    if args.humans is not None and (args.name is not None or args.seat is not None):
        raise CommandError("--humans names everyone at the terminal and seats them first; it does not go "
                           "with --name or --seat")
    people = [_check_name(h, "--humans") for h in args.humans] if args.humans else \
        [_check_name(args.name if args.name is not None else "you", "--name")]
    twice = next((h for i, h in enumerate(people) if h in people[:i]), None)
    if twice is not None:
        raise CommandError(f"--humans: {twice!r} is given twice; each person needs their own name")
    cpus = args.vs if args.vs is not None else ([] if args.humans else ["normal"])
    n = len(people) + len(cpus)
    seat = 1 if args.seat is None else args.seat
    if not 1 <= seat <= n:
        raise CommandError(f"--seat must be 1..{n} with {len(cpus)} opponent(s), got {seat}")
    if not rules.min_players <= n <= rules.max_players:
        who = f"{len(people)} people" if len(people) > 1 else "you"
        raise CommandError(f"rules {rules.name!r} allow {rules.min_players} to {rules.max_players} players; "
                           f"{who} and {len(cpus)} CPU(s) make {n}")
    if rules.teams and n % rules.teams:
        raise CommandError(f"{n} players cannot split into {rules.teams} teams of equal size")
    for spec in cpus:
        if parse_spec(spec)[0] == "human":
            raise CommandError(f"--vs {spec}: people at this terminal are named with --humans NAME ...")
    specs: list[str | None] = list(cpus)
    for i in range(len(people)):
        specs.insert(seat - 1 + i, None)
    names, person = {}, iter(people)
    for s, spec in enumerate(specs):
        if spec is None:
            names[s] = next(person)
        else:
            names[s] = spec if cpus.count(spec) == 1 and spec not in people else f"{spec}#{s + 1}"
    return specs, names


# ---- the best solo score ---------------------------------------------------------------------------

def data_dir() -> Path:
    """Where `yacht play` keeps what it remembers between sessions."""
    if os.environ.get(DATA_ENV):
        return Path(os.environ[DATA_ENV])
    if os.environ.get("XDG_DATA_HOME"):
        return Path(os.environ["XDG_DATA_HOME"]) / "yacht-arena"
    return Path.home() / ".local" / "share" / "yacht-arena"


def _warn(text: str) -> None:
    print(f"yacht play: warning: {text}", file=sys.stderr, flush=True)


# ---- events ----------------------------------------------------------------------------------------

class Events:
    """The JSON-lines event log of `--json` (or nothing): one object per line, flushed as it happens."""

    def __init__(self, stream=None):
        self.stream = stream

    def emit(self, event: str, **fields) -> None:
        if self.stream is not None:
            self.stream.write(json.dumps({"event": event, **fields}) + "\n")
            self.stream.flush()


def log_event(events: Events, game: Game, entry: dict, names, number: int) -> None:
    """One event for a new entry of the game's log (a roll or a score)."""
    seat = entry["seat"]
    common = {"game": number, "seat": seat, "player": names[seat]}
    if "dice" in entry:
        events.emit("roll", **common, hold=held_positions(entry["hold"]), dice=entry["dice"],
                    rolls_left=game.rolls_left)
    else:
        events.emit("score", **common, box=entry["box"], column=entry["column"], points=entry["points"],
                    bonus=entry["bonus"], total=game.totals()[seat])


# ---- the command -----------------------------------------------------------------------------------

def _still_in(rounds, k: int, n: int) -> list[int]:
    """The seats rolling in round k of a roll-off (every seat first, then the ones tied for highest)."""
    seats = list(range(n))
    for faces in rounds[:k]:
        seats = [s for s, f in zip(seats, faces) if f == max(faces)]
    return seats


def run(args, inp=None, out=None, events=None) -> int:
    rules = rules_from_args(args)
    specs, names = seating(args, rules)
    n = len(specs)
    screen = out or (sys.stderr if args.json else sys.stdout)
    log = Events((events or sys.stdout) if args.json else None)
    named = sum(s is None for s in specs) > 1
    block = rules_block(rules, parse_sets(args.overrides))
    key = block["hash"]
    best = best_scores() if n == 1 and not args.no_best else None
    agents = []
    try:
        for spec in specs:
            agents.append(Person(inp, screen, names, named=named) if spec is None else make_agent(spec))
        try:
            check_playable({spec: a for spec, a in zip(specs, agents) if spec is not None}, rules, n)
        except ConfigError as e:
            default = " (normal is the default opponent)" if args.vs is None else ""
            raise CommandError(f"{e}{default}; random and greedy play any rules: --vs greedy") from None
        terminal = next(a for a in agents if isinstance(a, HumanAgent))
        game = Game(rules, n, seed=secrets.randbelow(MAX_SEED + 1) if args.seed is None else args.seed)
        for number in itertools.count(1):
            for seat, a in enumerate(agents):
                a.reset(rules, seat, n, seed=(game.seed * 8 + seat) & 0xFFFFFFFF)
            if game.roll_off_dice:
                terminal.say("roll-off for the first turn: " + "; then ".join(
                    ", ".join(f"{names[s]} {f}" for s, f in zip(_still_in(game.roll_off_dice, k, n), faces))
                    for k, faces in enumerate(game.roll_off_dice)))
            terminal.say(f"Yacht ({rules_label(block)}: {rules.description}) -- "
                         f"{', '.join(names[s] for s in range(n))}; first to play: {names[game.first_seat]}. "
                         f"Seed {game.seed} (replay: --seed {game.seed}). Type help for commands.")
            if best is not None:
                b = best.get(key)
                terminal.say(f"best score under these rules: {b['score']} ({b['name']})" if b
                             else "no best score under these rules yet")
            log.emit("start", game=number, rules=block,
                     seed=game.seed, first_seat=game.first_seat,
                     players=[{"seat": s, "name": names[s], "agent": specs[s] or "human"} for s in range(n)])
            try:
                play(game, agents, names, terminal, log, number)
            except HumanQuit as q:
                if not any(a.answered for a in agents if isinstance(a, Person)):
                    raise CommandError("no input: stdin ended before the first move; `yacht play` reads moves "
                                       "from a terminal (or one command per line from a pipe)") from None
                terminal.say("game abandoned")
                log.emit("abandoned", game=number, reason=str(q))
                return 0
            finish(game, names, terminal, log, number, best, key)
            if not again(terminal):
                return 0
            game = game.rematch()
    finally:
        for a in agents:
            a.close()


class Person(HumanAgent):
    """A person at the terminal who remembers whether they ever answered: input that ends before the first
    line is no person at all (an error), not a person who left (a game abandoned)."""

    answered = False

    def ask(self, prompt: str) -> str:
        line = super().ask(prompt)
        self.answered = True
        return line


def best_scores() -> "BestScores | None":
    try:
        return BestScores(data_dir(), _warn)
    except RuntimeError as e:               # no home folder to put it in
        _warn(f"best scores are not kept this session ({e})")
        return None


def finish(game: Game, names, terminal: HumanAgent, log: Events, number: int, best, key: str) -> None:
    """The final scorecard, the winner, and the best solo score."""
    n = game.num_players
    terminal.say()
    terminal.say(scorecard(game, names))
    winners = game.winners()
    terminal.say("winner: " + " and ".join(names[s] for s in winners) if len(winners) < n or n == 1
                 else "a tie between everyone")
    record = {}
    if best is not None:
        total = game.totals()[0]
        old = best.offer(key, total, game.rules.name, names[0])
        if old is not None:
            was = f" (was {old['score']})" if old["score"] is not None else ""
            terminal.say(f"new best score under these rules: {total}{was}")
        kept = best.get(key)
        record = {"best": {"score": kept["score"] if kept else None, "new": old is not None}}
    log.emit("end", game=number, totals=game.totals(), winners=winners, **record)


def again(terminal: HumanAgent) -> bool:
    """Ask whether to play a rematch; end of input means no."""
    while True:
        try:
            line = terminal.ask("play again? [y/N] ").lower()
        except HumanQuit:
            return False
        if line in ("y", "yes"):
            return True
        if line in ("", "n", "no", "q", "quit"):
            return False
        terminal.say("  type y to play again, or n (or Enter) to stop")


def play(game: Game, agents, names, terminal: HumanAgent, log: Events | None = None, number: int = 1) -> None:
    """The game loop: CPUs move silently and their turns are summarised; a person may undo their own score."""
    log = log or Events()
    seen = 0
    holds = num_holds(game.rules)

    def report_log():
        nonlocal seen
        for entry in game.log[seen:]:
            log_event(log, game, entry, names, number)
        seen = len(game.log)

    while not game.is_over:
        if game.phase == "roll":
            game.roll()
            report_log()
            continue
        seat = game.current_seat
        action = agents[seat].act(View.of(game))
        game.apply(action)
        report_log()
        if action < holds:
            continue
        last = game.log[-1]
        if isinstance(agents[seat], HumanAgent):
            if agents[seat].after_score(game, last["points"] + last["bonus"]):
                game.undo()
                seen = len(game.log)
                log.emit("undo", game=number, seat=seat, player=names[seat], box=last["box"], column=last["column"],
                         points=last["points"], bonus=last["bonus"])
                agents[seat].say("  undone: same dice, choose again")
        else:
            where = last["box"] + (f"@{last['column'] + 1}" if game.rules.columns > 1 else "")
            terminal.say(f"  {names[seat]} scores {last['points']} in {where} with {game.log[-2]['dice']}"
                         + (f" (+{last['bonus']} bonus)" if last["bonus"] else "") + saved_note(game, seat))
