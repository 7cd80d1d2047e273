"""The frozen `RuleSet`: everything that makes one rule set differ from another."""
from dataclasses import dataclass, field
from functools import cached_property

from ..core.dice import Dice, dice_tables
from .boxes import Box
from .tables import compile_tables

JOKERS = ("none", "forced", "free", "verhoeff", "kirakuken")
TIEBREAKS = ("share", "sudden_death")
FIRST_PLAYERS = ("fixed", "roll_off")


@dataclass(frozen=True)
class RuleSet:
    """A rule set as data. Build one with `yacht_env.rules.load`.

    joker:
      none       five of a kind scores like any other roll
      forced     once the Yacht box is filled (50 or 0): matching upper box if open,
                 else any open lower box at joker value, else any open upper box
      free       once the Yacht box is filled: any open box, lower boxes at joker value
      verhoeff   once the Yacht box is filled: any open box, lower boxes at joker value
                 only when the matching upper box is already filled
      kirakuken  only once the Yacht box holds 50: any open box, lower boxes at joker value
    The extra-Yacht bonus is paid whenever a Yacht is rolled while the Yacht box holds 50.
    dice: how many dice a roll has (5 or 6); a Yacht is every die alike.
    saved_rolls: the most unused rolls a sheet carries to its later turns (0: none, the default). A turn may
      roll `rolls_per_turn` times plus the rolls its sheet has saved; scoring leaves the sheet the rolls the
      turn did not use, at most `saved_rolls` (Maxi Yatzy's house rule).
    """

    name: str
    boxes_spec: tuple[Box, ...]
    description: str = ""
    upper_bonus_threshold: int = 63
    upper_bonus: int = 35
    extra_yacht_bonus: int = 100
    joker: str = "forced"
    forced_order: bool = False    # boxes filled top to bottom, in sheet order
    dice: int = 5                 # dice per roll: 5 or 6
    rolls_per_turn: int = 3
    saved_rolls: int = 0          # the most unused rolls a sheet carries to later turns (0: none)
    columns: int = 1
    teams: int = 0
    tiebreak: str = "share"
    first_player: str = "fixed"   # fixed: the game's first seat (seat 0 unless given); roll_off: seed 003's roll-off
    min_players: int = 1
    max_players: int = 8
    source: str = field(default="", compare=False)

    @cached_property
    def boxes(self) -> tuple[str, ...]:
        """Box ids in sheet order."""
        return tuple(b.id for b in self.boxes_spec)

    def check_players(self, num_players) -> int:
        """The number of sheets `num_players` seats write on; ValueError when the rules do not allow them.

        Seat i writes on sheet i % sheets: its own sheet, or with `teams` its team's.
        """
        n = num_players
        if isinstance(n, bool) or not isinstance(n, int) or not self.min_players <= n <= self.max_players:
            raise ValueError(f"rules {self.name!r} allow {self.min_players} to {self.max_players} players, got {n!r}")
        if self.teams and n % self.teams:
            raise ValueError(f"{n} player{'s' if n != 1 else ''} cannot split into {self.teams} teams of equal size")
        return self.teams or n

    @property
    def rounds(self) -> int:
        """Turns each sheet gets: boxes x columns."""
        return len(self.boxes_spec) * self.columns

    @property
    def most_rolls(self) -> int:
        """The most rolls one turn can have: `rolls_per_turn`, plus every saved roll under `saved_rolls`."""
        return self.rolls_per_turn + self.saved_rolls

    def box(self, box_id: str) -> Box:
        for b in self.boxes_spec:
            if b.id == box_id:
                return b
        raise KeyError(f"no box {box_id!r} in rule set {self.name!r}; boxes: {', '.join(self.boxes)}")

    @cached_property
    def dice_tables(self) -> Dice:
        """The tables of the rules' dice count (`yacht_env.core.dice.dice_tables`)."""
        return dice_tables(self.dice)

    def score(self, box: str, dice) -> int:
        """Plain score of the rules' dice (any order) in a box (no joker, no bonus)."""
        d = self.dice_tables
        return self.box(box).score([int(c) for c in d.roll_counts[d.index(dice)]])

    @cached_property
    def tables(self):
        """The compiled tables every engine reads (see `yacht_env.rules.tables`)."""
        return compile_tables(self)

    def __getstate__(self) -> dict:
        """The rule set without its cached tables, which a copy or an unpickled rule set builds again (the same
        numbers, read-only as `compile_tables` makes them): an unpickled array is writable, and compiled code,
        which tells read-only arrays from writable ones by type, would compile every kernel a second time."""
        return {k: v for k, v in self.__dict__.items() if k not in ("dice_tables", "tables")}

    def to_dict(self) -> dict:
        """A plain dict that `load` accepts back (used for hashing and for bots)."""
        boxes = []
        for b in self.boxes_spec:
            d = {"id": b.id, "kind": b.kind}
            if b.upper:
                d["face"] = b.face
            else:
                d["points"] = b.points
            if b.count:
                d["count"] = b.count
            if b.runs:
                d["runs"] = [list(r) for r in b.runs]
            if b.five_alike:
                d["five_alike"] = True
            if b.four_alike:
                d["four_alike"] = True
            if b.sizes:
                d["sizes"] = list(b.sizes)
            boxes.append(d)
        return {"name": self.name, "description": self.description, "boxes": boxes,
                "upper_bonus": {"threshold": self.upper_bonus_threshold, "points": self.upper_bonus},
                "extra_yacht_bonus": self.extra_yacht_bonus, "joker": self.joker,
                "rolls_per_turn": self.rolls_per_turn, "columns": self.columns, "teams": self.teams,
                "tiebreak": self.tiebreak, "players": {"min": self.min_players, "max": self.max_players},
                **({"first_player": self.first_player} if self.first_player != "fixed" else {}),
                **({"forced_order": True} if self.forced_order else {}),
                **({"dice": self.dice} if self.dice != 5 else {}),
                **({"saved_rolls": self.saved_rolls} if self.saved_rolls else {})}
