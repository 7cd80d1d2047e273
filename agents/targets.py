"""Targets on the strength dial, and the named levels' targets.

A `Target` names a figure the dial can be set to hit under any rule set: `mean=POINTS` (expected
solitaire score), `pct=PERCENT` (of the optimal expected score) or `win=RATE` (win rate in two-player
games against strong, or against a named level). The named levels are targets (`LEVELS`): `normal` is
the strength that wins `NORMAL_WIN` of its games against strong, `easy` the strength that wins
`EASY_WIN` against normal (`agents.levels`).
"""
from dataclasses import dataclass

from yacht_env.config import finite

NORMAL_WIN = 0.30        # normal wins 30% of its games against strong
EASY_WIN = 0.20          # easy wins 20% of its games against normal
LEVELS = {"normal": ("win", NORMAL_WIN, "strong"), "easy": ("win", EASY_WIN, "normal")}

KINDS = {"mean": "expected solitaire score (points)", "pct": "expected solitaire score as a % of the optimum",
         "win": "win rate in two-player games against strong (or the level named after @)"}


@dataclass(frozen=True)
class Target:
    """A figure the dial is set to hit: kind 'mean' (points), 'pct' (% of the optimum) or 'win' (rate
    in [0, 1] against `against`: 'strong' or a named level)."""
    kind: str
    value: float
    against: str = "strong"

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"unknown target {self.kind!r}; targets: "
                             + ", ".join(f"{k}= ({v})" for k, v in KINDS.items()))
        v = self.value
        if not finite(v):
            raise ValueError(f"target {self.kind}= must be a finite number, got {v!r}")
        if self.kind == "win":
            if self.against != "strong" and self.against not in LEVELS:
                raise ValueError(f"win rates are measured against strong or a named level ({', '.join(LEVELS)}), "
                                 f"not {self.against!r}")
            top = 0.5 if self.against == "strong" else 1.0
            if not 0.0 < v <= top:
                raise ValueError(f"target win={v:g}: a win rate against {self.against} is in (0, {top:g}]"
                                 + (" (strong against itself wins half its games)" if top == 0.5 else ""))
        elif self.kind == "pct" and not 0.0 < v <= 100.0:
            raise ValueError(f"target pct={v:g}: a percentage of the optimal expected score is in (0, 100]")
        elif self.kind == "mean" and not v > 0.0:
            raise ValueError(f"target mean={v:g}: an expected score is above 0 (and at most the optimum)")
        if self.kind != "win" and self.against != "strong":
            raise ValueError(f"target {self.kind}= is measured in solitaire games, against nobody")

    @classmethod
    def parse(cls, text: str) -> "Target":
        """'mean=200', 'pct=90', 'win=0.3' or 'win=0.2@normal'; ValueError saying what is allowed."""
        kind, eq, rest = str(text).partition("=")
        if not eq:
            raise ValueError(f"a target is KIND=VALUE with KIND one of {', '.join(KINDS)} (e.g. pct=90), "
                             f"or a level name ({', '.join(LEVELS)}); got {text!r}")
        value, _, against = rest.partition("@")
        try:
            number = float(value)
        except ValueError:
            raise ValueError(f"target {text!r}: {value!r} is not a number") from None
        return cls(kind.strip(), number, against.strip() or "strong")

    @property
    def key(self) -> str:
        """How the target reads ('win=0.3', 'win=0.2@normal', 'pct=90')."""
        return f"{self.kind}={self.value:g}" + (f"@{self.against}" if self.against != "strong" else "")


def level_target(name: str) -> Target:
    """The target that defines a named level; ValueError for an unknown name."""
    if name not in LEVELS:
        raise ValueError(f"unknown level {name!r}; levels: {', '.join(LEVELS)} (and strong, the optimum)")
    kind, value, against = LEVELS[name]
    return Target(kind, value, against)
