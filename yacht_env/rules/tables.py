"""Compile a `RuleSet` into the arrays the game, the batched env and the solver all read."""
from typing import NamedTuple

import numba as nb
import numpy as np

from ..core.dice import Dice

JOKER_TRIGGER = {"none": 0, "forced": 1, "free": 1, "verhoeff": 1, "kirakuken": 2}


class Tables(NamedTuple):
    """One sheet column's rules as arrays (a numba-friendly named tuple).

    score[b, r]        plain points of roll r in box b
    joker_score[b, r]  points of roll r in box b when played as a joker
    roll_yacht[r]      the face of a roll whose dice are all alike (a Yacht), else 0
    box_face[b]        1..6 for an upper box, 0 for a lower box
    face_box[f]        the upper box counting face f (index 1..6), -1 if none
    joker_trigger      0 never, 1 once the Yacht box is filled, 2 once it holds 50
    joker_forced       1: matching upper box, else lower boxes, else upper boxes
    joker_needs_upper  1: lower boxes get joker points only when the matching upper box is filled
    forced_order       1: only the first open box (sheet order) may be scored
    saved_cap          the most unused rolls a sheet carries to later turns (0: none; `RuleSet.saved_rolls`)
    dice               the tables of the rules' dice (`yacht_env.core.dice.Dice`): rolls r index dice.rolls;
                       compiled code reads the dice count, holds and rolls from here, never from the
                       five-dice module constants
    """
    n_boxes: int
    score: np.ndarray
    joker_score: np.ndarray
    roll_yacht: np.ndarray
    box_face: np.ndarray
    face_box: np.ndarray
    yacht_box: int
    upper_threshold: int
    upper_bonus: int
    extra_bonus: int
    joker_trigger: int
    joker_forced: int
    joker_needs_upper: int
    rolls_per_turn: int
    forced_order: int
    saved_cap: int
    dice: Dice

    def fields(self) -> tuple:
        """The tables as the plain tuple compiled entry points take (`State.table_fields`): the fields in order,
        the dice as a plain tuple of theirs too. Numba types a plain tuple at a call in its compiled dispatcher,
        a named one in Python (tens of microseconds for these); `tables_of` names them again inside."""
        return (*self[:-1], tuple(self.dice))


@nb.njit(cache=True, inline="always")
def tables_of(fields):
    """Compiled: the `Tables` of `Tables.fields()`, its `dice` a `Dice` again (where compiled code used to write
    `Tables(*fields)`)."""
    return Tables(*fields[:-1], Dice(*fields[-1]))


def compile_tables(rules) -> Tables:
    """The rule set's `Tables`, over the rolls of its dice count."""
    nb = len(rules.boxes_spec)
    dice = rules.dice_tables
    score = np.zeros((nb, dice.n_rolls), dtype=np.int32)
    joker = np.zeros((nb, dice.n_rolls), dtype=np.int32)
    for b, box in enumerate(rules.boxes_spec):
        for r in range(dice.n_rolls):
            counts = [int(c) for c in dice.roll_counts[r]]
            score[b, r] = box.score(counts)
            joker[b, r] = box.joker_score(counts) if not box.upper else score[b, r]
    roll_yacht = np.array([next((f + 1 for f in range(6) if c[f] == dice.n), 0) for c in dice.roll_counts],
                          dtype=np.int8)
    box_face = np.array([b.face for b in rules.boxes_spec], dtype=np.int8)
    face_box = np.full(7, -1, dtype=np.int32)
    for b, box in enumerate(rules.boxes_spec):
        if box.upper:
            face_box[box.face] = b
    yacht_box = next((b for b, box in enumerate(rules.boxes_spec) if box.kind == "yacht"), -1)
    for a in (score, joker, roll_yacht, box_face, face_box):
        a.setflags(write=False)
    return Tables(
        n_boxes=nb, score=score, joker_score=joker, roll_yacht=roll_yacht, box_face=box_face, face_box=face_box,
        yacht_box=yacht_box, upper_threshold=rules.upper_bonus_threshold, upper_bonus=rules.upper_bonus,
        extra_bonus=rules.extra_yacht_bonus, joker_trigger=JOKER_TRIGGER[rules.joker],
        joker_forced=int(rules.joker == "forced"), joker_needs_upper=int(rules.joker == "verhoeff"),
        rolls_per_turn=rules.rolls_per_turn, forced_order=int(rules.forced_order),
        saved_cap=rules.saved_rolls, dice=dice)
