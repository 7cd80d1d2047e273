"""A person at the terminal: hold dice by position, score a box by name, undo, help.

The commands, at a decision (case-insensitive; `help` prints this list from `COMMANDS`):

    hold 1 3 5   (h 135, h 1,3,5)   keep dice 1, 3 and 5 (as numbered on screen: 1 to 5, or 1 to 6 with six
                                    dice), re-roll the rest
    roll         (r)                re-roll all the dice
    score BOX    (s BOX, or BOX)    score a box; a unique prefix is enough ("full", "4k" is not);
                                    with several columns: BOX@2 or BOX 2
    undo         (u)                right after scoring: take the box back, same dice, until the next roll
    card         (c)                show every scorecard
    help         (?)                this list
    quit         (q)                leave the game

Several people can share one terminal: each seat has its own HumanAgent, named on its prompt, and only
the person who just scored is asked whether to undo it.
"""
import difflib
import sys

from yacht_env.config import ConfigError
from yacht_env.core.actions import score_action
from yacht_env.core.game import DICE_WORDS

from .base import Agent, View

# (words that name the command, how to type it, what it does); the first word is its name
MAX_INPUT_CHARS = 1000      # one typed command; a longer line is read through and ignored, never kept
MAX_LINE_CHARS = 1 << 20    # ... up to this many characters: a line still going on there ends the input (EndlessLine)
COMMANDS = (
    (("hold", "h", "keep", "k"), "hold 1 3 5 (h 135)", "keep those dice (positions as shown), re-roll the rest"),
    (("roll", "r", "reroll"), "roll (r)", "re-roll all the dice"),
    (("score", "s"), "score BOX (s BOX)", "score a box; typing the box name (or a unique start of it) also works"),
    (("undo", "u"), "undo (u)", "right after you score: take the box back, same dice, until the next roll"),
    (("card", "c", "cards", "sheet"), "card (c)", "show every scorecard"),
    (("help", "?"), "help (?)", "this list"),
    (("quit", "q", "exit"), "quit (q)", "leave the game"),
)
VERBS = {word: words[0] for words, _, _ in COMMANDS for word in words}


def help_text(columns: int = 1) -> str:
    """Every command, one line each."""
    lines = ["commands:"]
    for words, usage, what in COMMANDS:
        lines.append(f"  {usage:<20}{what}")
        if words[0] == "score" and columns > 1:
            lines.append(f"  {'':<20}several columns: BOX@2 or BOX 2")
    return "\n".join(lines)


class HumanQuit(Exception):
    """The person asked to leave (quit, or end of input)."""


class EndlessLine(ConfigError):
    """A line of input longer than MAX_LINE_CHARS: not typed by a person; the input is not read further."""


class HumanAgent(Agent):
    """Reads moves from `inp` and writes prompts, dice and scorecards to `out` (default: the terminal).

    names: seat -> display name for scorecards. named: put the seat's name on the prompt and announce
    its turn (for several people at one terminal)."""

    name = "human"

    def __init__(self, inp=None, out=None, names=None, named: bool = False):
        self.inp, self.out = inp, out
        self.lines = 0                     # lines of input read, for messages
        self.names = names or {}
        self.named = named

    @property
    def who(self) -> str:
        return self.names.get(getattr(self, "seat", 0), "you")

    # ---- I/O ----------------------------------------------------------------------------------
    def say(self, text: str = "") -> None:
        print(text, file=self.out or sys.stdout, flush=True)

    def ask(self, prompt: str) -> str:
        """One line typed after `prompt`, stripped; at most MAX_INPUT_CHARS characters are kept: a longer
        line is read to its end in bounded pieces, refused with a note, and the prompt shown again; one that
        goes on past MAX_LINE_CHARS raises EndlessLine (so an endless stream without a newline ends the
        command instead of being read forever). HumanQuit at the end of input."""
        out = self.out or sys.stdout
        src = self.inp or sys.stdin
        while True:
            out.write(prompt)
            out.flush()
            line = src.readline(MAX_INPUT_CHARS + 1)
            self.lines += 1
            if len(line) <= MAX_INPUT_CHARS or line.endswith("\n"):
                break
            read = len(line)
            while line and not line.endswith("\n"):      # skip the rest, a bounded piece at a time
                if read > MAX_LINE_CHARS:
                    raise EndlessLine("input", f"line {self.lines}: longer than {MAX_LINE_CHARS:,} characters "
                                               f"without an end; a command is one line of at most "
                                               f"{MAX_INPUT_CHARS:,} characters")
                line = src.readline(1 << 16)
                read += len(line)
            self.say(f"  that line is longer than {MAX_INPUT_CHARS} characters; it was ignored")
            if not line:
                break
        if not line:
            self.say()
            raise HumanQuit("end of input")
        if self.inp is not None and self.out is not None:
            out.write(line if line.endswith("\n") else line + "\n")   # echo scripted input into transcripts
        return line.strip()

    # ---- Agent --------------------------------------------------------------------------------
    def act(self, view: View) -> int:
        self.say()
        if self.named and view.game.rolls_used == 1:
            self.say(f"--- {self.who}'s turn ---")
        self.say(scorecard(view.game, self.names, preview_sheet=view.sheet))
        self.say(dice_line(view))
        while True:
            line = self.ask(f"{self.who}> " if self.named else "> ")
            try:
                action = parse_command(line, view, self.names)
            except CommandHelp as h:
                self.say(str(h))
                continue
            except ValueError as e:
                self.say(f"  {e}")
                continue
            return action

    def after_score(self, game, points: int) -> bool:
        """Tell what was scored; True when the person types undo."""
        last = game.log[-1]
        where = last["box"] + (f"@{last['column'] + 1}" if game.rules.columns > 1 else "")
        bonus = f" (+{last['bonus']} bonus)" if last["bonus"] else ""
        self.say(f"  {self.who + ' ' if self.named else ''}scored {last['points']} in {where}{bonus}"
                 + saved_note(game, last["seat"]))
        while True:
            line = self.ask("  [Enter] go on, or 'undo' to take it back: ").lower()
            verb = VERBS.get(line)
            if line == "":
                return False
            if verb == "undo":
                return True
            if verb == "quit":
                raise HumanQuit("quit")
            if verb == "help":
                self.say(help_text(game.rules.columns))
            elif verb == "card":
                self.say(scorecard(game, self.names))
            else:
                self.say(f"  {line!r}: press Enter to go on, or type undo")


class CommandHelp(Exception):
    """Not a move: text to show (help, scorecards)."""


def dice_line(view: View) -> str:
    pos = "   ".join(str(i + 1) for i in range(len(view.dice)))
    faces = "  ".join(f"[{d}]" for d in view.dice)
    rolls = f"{view.rolls_left} re-roll{'s' if view.rolls_left != 1 else ''} left"
    if view.rules.saved_rolls:
        rolls += f", {view.game.saved_rolls_shown(view.sheet)} saved"
    return f"position  {pos}\ndice     {faces}   ({rolls})"


def parse_command(line: str, view: View, names=None) -> int:
    """The action a typed command means; CommandHelp with text to show (help, cards; `names`: seat -> name
    for the cards); ValueError with a message for anything else."""
    game, rules = view.game, view.rules
    words = line.replace(",", " ").split()
    if not words:
        raise ValueError("type a command: hold 1 3 5, roll, score BOX, card, help (or quit)")
    verb, rest = VERBS.get(words[0].lower()), words[1:]
    if verb == "quit":
        raise HumanQuit("quit")
    if verb == "help":
        raise CommandHelp(help_text(rules.columns))
    if verb == "card":
        raise CommandHelp(scorecard(game, names))
    if verb == "undo":
        raise ValueError("nothing to undo: undo works right after you score, until the next roll")
    if verb == "roll":
        if rest:
            raise ValueError(f"'roll' re-rolls all {DICE_WORDS[rules.dice]} dice and takes nothing after it; to keep "
                             f"dice: hold {' '.join(rest)}")
        return _hold(view, [])
    if verb == "hold":
        return _hold(view, _positions(rest, rules.dice))
    if verb == "score":
        if not rest:
            raise ValueError(f"score which box? open: {', '.join(game.legal_boxes())}")
        return _score(view, rest)
    if words[0].isdigit() and all(w.isdigit() for w in rest):
        raise ValueError(f"to keep dice, type: hold {line.strip()}")
    return _score(view, words)


def _positions(words, n: int) -> list[int]:
    """The die positions (0 .. n-1) typed as 1 .. n, each at most once, for a roll of `n` dice."""
    if not words:
        raise ValueError(f"hold which dice? give positions 1-{n}, e.g. hold 1 3 5 (or roll to re-roll all)")
    digits = [c for w in words for c in (w if w.isdigit() else [w])]
    out = []
    for d in digits:
        if not (d.isdigit() and len(d) == 1 and 1 <= int(d) <= n):
            raise ValueError(f"{d!r} is not a die position: positions are 1 to {n}")
        if int(d) - 1 in out:
            raise ValueError(f"die {d} is given twice")
        out.append(int(d) - 1)
    return out


def _hold(view: View, positions: list[int]) -> int:
    if view.rolls_left <= 0:
        raise ValueError(f"no re-rolls left this turn: score a box ({', '.join(view.game.legal_boxes())})")
    if len(positions) == view.rules.dice:
        raise ValueError(f"holding all {DICE_WORDS[view.rules.dice]} dice re-rolls nothing: score a box instead")
    return sum(1 << p for p in positions)


def _score(view: View, words) -> int:
    game, rules = view.game, view.rules
    text = "_".join(words).lower()
    column = 0
    if "@" in text or (rules.columns > 1 and len(words) > 1 and words[-1].isdigit()):
        text, col = (text.rsplit("@", 1) if "@" in text else ("_".join(words[:-1]).lower(), words[-1]))
        if not col.isdigit() or not 1 <= int(col) <= rules.columns:
            raise ValueError(f"column {col!r} does not exist: columns are 1 to {rules.columns}")
        column = int(col) - 1
    elif rules.columns > 1:
        raise ValueError(f"which column? type {text}@1 .. {text}@{rules.columns}")
    box = _box_name(text, rules.boxes)
    legal = game.preview()
    if (column, box) not in legal:
        b = rules.boxes.index(box)
        filled = view.scores[view.sheet][column, b] >= 0
        why = "is already filled" if filled else "cannot be scored now (joker rule)"
        raise ValueError(f"{box}{'@' + str(column + 1) if rules.columns > 1 else ''} {why}; "
                         f"open: {', '.join(game.legal_boxes())}")
    return score_action(rules, column, rules.boxes.index(box))


def _box_name(text: str, boxes) -> str:
    if text in boxes:
        return text
    starts = [b for b in boxes if b.startswith(text)]
    if len(starts) == 1:
        return starts[0]
    if len(starts) > 1:
        raise ValueError(f"{text!r} could be {', '.join(starts)}: type more of the name")
    close = difflib.get_close_matches(text, boxes, n=3, cutoff=0.5)
    hint = f"; did you mean {' or '.join(close)}?" if close else f"; boxes: {', '.join(boxes)}"
    raise ValueError(f"unknown command or box {text!r}{hint} (type help for commands)")


def saved_note(game, seat: int) -> str:
    """After a score under rules with saved rolls: how many rolls the seat's sheet now has saved ("" without)."""
    if not game.rules.saved_rolls:
        return ""
    k = game.saved_rolls_of(game.sheet_of(seat))
    return f", {k} roll{'s' if k != 1 else ''} saved for later turns"


def scorecard(game, names=None, preview_sheet: int | None = None) -> str:
    """Every sheet side by side; open boxes of `preview_sheet` show what the dice would score now; under rules
    with saved rolls a row of each sheet's saved rolls (`Game.saved_rolls_shown`)."""
    rules = game.rules
    names = names or {}
    heads = []
    for s in range(game.num_sheets):
        seats = [n for n in range(game.num_players) if game.sheet_of(n) == s]
        heads.append("+".join(names.get(n, f"seat {n + 1}") for n in seats))
    preview = game.preview() if preview_sheet is not None else {}
    labels = [b if rules.columns == 1 else f"{b}@{c + 1}" for c in range(rules.columns) for b in rules.boxes]
    w = max(len(x) for x in labels + ["upper bonus", "total"])
    cw = [max(8, len(h)) for h in heads]
    lines = [" " * w + "  " + "  ".join(h.rjust(c) for h, c in zip(heads, cw))]
    i = 0
    for c in range(rules.columns):
        for b, box in enumerate(rules.boxes):
            cells = []
            for s, sheet in enumerate(game.sheets):
                v = int(sheet.scores[c, b])
                if v >= 0:
                    cell = str(v)
                elif s == preview_sheet and (c, box) in preview:
                    cell = f"({preview[(c, box)]})"
                else:
                    cell = "-"
                cells.append(cell.rjust(cw[s]))
            lines.append(labels[i].ljust(w) + "  " + "  ".join(cells))
            i += 1
    if rules.upper_bonus:
        for col in range(rules.columns):
            label = "upper" if rules.columns == 1 else f"upper@{col + 1}"
            lines.append(label.ljust(w) + "  " + "  ".join(
                f"{int(sh.upper[col])}/{rules.upper_bonus_threshold}".rjust(c) for sh, c in zip(game.sheets, cw)))
    bonus = [int(sh.upper_bonus.sum() + sh.extra_bonus.sum()) for sh in game.sheets]
    lines.append("bonuses".ljust(w) + "  " + "  ".join(str(x).rjust(c) for x, c in zip(bonus, cw)))
    lines.append("total".ljust(w) + "  " + "  ".join(str(t).rjust(c) for t, c in zip(game.sheet_totals(), cw)))
    if rules.saved_rolls:
        lines.append("saved rolls".ljust(w) + "  " + "  ".join(
            str(game.saved_rolls_shown(s)).rjust(c) for s, c in zip(range(game.num_sheets), cw)))
    if preview_sheet is not None:
        lines.append("(n) = what the dice in hand would score in that open box")
    return "\n".join(lines)
