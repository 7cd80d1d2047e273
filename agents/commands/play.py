"""`yacht play`: a person plays in the terminal against CPU agents."""
import sys

from yacht_env.cli_common import CommandError, add_common, rules_from_args
from yacht_env.game import Game

from ..base import View
from ..human import HumanAgent, HumanQuit, scorecard
from ..registry import make_agent


def add_parser(sub):
    p = sub.add_parser("play", help="play in the terminal against CPU agents",
                       description="Play Yacht against CPU agents: hold dice by position (hold 1 3 5), score a box "
                                   "by name (score full_house, or just full), undo right after scoring, help for "
                                   "every command.")
    p.add_argument("--vs", nargs="*", default=["normal"], metavar="SPEC",
                   help="CPU opponents, e.g. --vs easy normal strong (default: normal; none: solitaire)")
    p.add_argument("--name", default="you", help="your name on the scorecard (default: you)")
    p.add_argument("--seat", type=int, default=1, help="your seat, 1 = first to play (default: 1)")
    add_common(p)


def run(args, inp=None, out=None) -> int:
    rules = rules_from_args(args)
    n = 1 + len(args.vs)
    if not 1 <= args.seat <= n:
        raise CommandError(f"--seat must be 1..{n} with {len(args.vs)} opponent(s), got {args.seat}")
    if not rules.min_players <= n <= rules.max_players:
        raise CommandError(f"rules {rules.name!r} allow {rules.min_players} to {rules.max_players} players; "
                           f"you and {len(args.vs)} CPU(s) make {n}")
    if rules.teams and n % rules.teams:
        raise CommandError(f"{n} players cannot split into {rules.teams} teams of equal size")
    human_seat = args.seat - 1
    cpus = [make_agent(s) for s in args.vs]
    agents, names = [], {}
    for seat in range(n):
        if seat == human_seat:
            agents.append(None)
            names[seat] = args.name
        else:
            spec = args.vs[len(agents) - (len(agents) > human_seat)]
            agents.append(cpus[len(agents) - (len(agents) > human_seat)])
            names[seat] = spec if args.vs.count(spec) == 1 else f"{spec}#{seat + 1}"
    reader = CountedLines(inp if inp is not None else sys.stdin)
    human = HumanAgent(reader, out, names)
    agents[human_seat] = human
    game = Game(rules, n, seed=args.seed)
    for seat, a in enumerate(agents):
        a.reset(rules, seat, n, seed=(args.seed * 8 + seat) & 0xFFFFFFFF)
    human.say(f"Yacht ({rules.name}: {rules.description}) -- {', '.join(names[s] for s in range(n))}. "
              f"Type help for commands.")
    try:
        play(game, agents, human_seat, human, names)
    except HumanQuit:
        if reader.lines == 0:
            raise CommandError("no input: stdin ended before your first move; `yacht play` reads your moves from "
                               "a terminal (or one command per line from a pipe)") from None
        human.say("game abandoned")
        return 0
    finally:
        for a in cpus:
            a.close()
    human.say()
    human.say(scorecard(game, names))
    winners = game.winners()
    human.say("winner: " + " and ".join(names[s] for s in winners) if len(winners) < n or n == 1
              else "a tie between everyone")
    return 0


class CountedLines:
    """A text stream's readline, counting the lines it gave: an input that ends before the first line is
    no person at all, not a person who left."""

    def __init__(self, stream):
        self.stream, self.lines = stream, 0

    def readline(self) -> str:
        line = self.stream.readline()
        self.lines += bool(line)
        return line


def play(game: Game, agents, human_seat: int, human: HumanAgent, names) -> None:
    """The game loop: CPUs move silently and their turns are summarised; the person may undo a score."""
    while not game.is_over:
        if game.phase == "roll":
            game.roll()
            continue
        seat = game.current_seat
        view = View.of(game)
        action = agents[seat].act(view)
        game.apply(action)
        points = game.log[-1]["points"] + game.log[-1]["bonus"] if action >= 31 else None
        if seat == human_seat and points is not None:
            if human.after_score(game, points):
                game.undo()
                human.say("  undone: same dice, choose again")
        elif points is not None:
            last = game.log[-1]
            where = last["box"] + (f"@{last['column'] + 1}" if game.rules.columns > 1 else "")
            human.say(f"  {names[seat]} scores {last['points']} in {where} with {game.log[-2]['dice']}"
                      + (f" (+{last['bonus']} bonus)" if last["bonus"] else ""))

