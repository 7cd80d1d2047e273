"""Where a game's dice come from.

A dice source answers `draw(sheet, turn, roll, n)`: the faces of the n dice
re-rolled on that sheet's turn and roll. `SeededDice` keys every die by
(game seed, sheet, turn, roll, k-th re-rolled die), so two games with the same
seed give every sheet the same dice whatever is held, and two players who hold
the same dice see the same rolls (duplicate dice).
"""
import numpy as np

from .kernels import SEED_START, decision_uniforms_of, die_value, seed_pairs, seed_step, seed_steps


def game_seed(*parts) -> int:
    """A 64-bit game seed from integers (e.g. tournament seed, table, game number)."""
    h = SEED_START
    for p in parts:
        h = np.uint64(seed_step(h, np.uint64(int(p) & 0xFFFFFFFFFFFFFFFF)))
    return int(h)


def stream_seeds(streams, episodes) -> np.ndarray:
    """game_seed(streams[j], episodes[j]) for every j (uint64 array), computed at once: the seed of
    episode k of stream s, as the environments deal it."""
    streams = np.ascontiguousarray(streams, np.uint64)
    firsts = np.empty(streams.shape[0], np.uint64)
    seed_steps(SEED_START, streams, firsts)
    out = np.empty_like(firsts)
    seed_pairs(firsts, np.ascontiguousarray(episodes, np.int64).astype(np.uint64), out)
    return out


def game_seeds(*parts, last) -> np.ndarray:
    """game_seed(*parts, k) for every k in `last` (uint64 array), computed at once."""
    h = np.uint64(game_seed(*parts)) if parts else SEED_START
    ks = np.asarray(last, np.int64).astype(np.uint64)
    out = np.empty(ks.shape[0], np.uint64)
    seed_steps(h, ks, out)
    return out


def decision_uniforms(seeds, seats, rounds, rolls_used, stream: int = 0) -> np.ndarray:
    """Uniform numbers in [0, 1), one per decision, for players' random choices.

    Counter-based like the dice: the number of a decision is a hash of (game seed, seat, the sheet's
    turn, rolls used this turn, stream), so an agent makes the same random choice in a game whether
    it plays that game alone or among thousands in a batch. `stream` separates independent choices
    at one decision (e.g. a coin, then a move).
    """
    seeds = np.ascontiguousarray(seeds, np.uint64)
    out = np.empty(seeds.shape[0])
    decision_uniforms_of(seeds, np.ascontiguousarray(seats, np.int64), np.ascontiguousarray(rounds, np.int64),
                         np.ascontiguousarray(rolls_used, np.int64), int(stream), out)
    return out


class SeededDice:
    """Counter-based dice: the same seed gives the same dice, in any process."""

    def __init__(self, seed: int):
        self.seed = int(seed) & 0xFFFFFFFFFFFFFFFF

    def draw(self, sheet: int, turn: int, roll: int, n: int) -> list[int]:
        return [int(die_value(np.uint64(self.seed), sheet, turn, roll, k)) for k in range(n)]


class ScriptedDice:
    """Dice from a list, for tests and replays: each draw takes the next n faces."""

    def __init__(self, faces):
        self.faces = [int(f) for f in faces]
        self.pos = 0

    def draw(self, sheet: int, turn: int, roll: int, n: int) -> list[int]:
        if self.pos + n > len(self.faces):
            raise RuntimeError(f"scripted dice ran out after {self.pos} faces")
        out = self.faces[self.pos:self.pos + n]
        self.pos += n
        return out
