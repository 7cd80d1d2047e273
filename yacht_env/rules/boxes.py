"""Box kinds: what a box needs and what it scores, as data.

Each box on a sheet is a `Box` (id, kind and parameters). `Box.score(counts)`
gives the plain score for a roll; `Box.joker_score(counts)` the score the box
gives when the joker rule lets an extra Yacht stand in for its pattern. A roll
is given by its face counts (index 0 = ones), whose sum is the dice count (5 or 6).
"""
from dataclasses import dataclass
from itertools import permutations

KINDS = ("upper", "of_a_kind", "pairs", "full_house", "two_pairs", "straight", "yacht", "chance", "groups")
SCORES = ("sum", "matching")  # besides a fixed number of points


@dataclass(frozen=True)
class Box:
    id: str
    kind: str
    face: int = 0                 # upper: the face counted
    count: int = 0                # of_a_kind: how many alike; pairs: how many pairs of different faces
    points: int | str = "sum"     # fixed points, "sum" (all the dice) or "matching" (the alike dice, the pairs,
    #                               the groups' dice)
    runs: tuple = ()              # straight: any of these face sets
    sizes: tuple = ()             # groups: one group of alike dice per size, each of a different face
    five_alike: bool = False      # full_house: five of a kind also counts
    four_alike: bool = False      # pairs, two_pairs: four of a kind also counts as two pairs (of one face)

    @property
    def upper(self) -> bool:
        return self.kind == "upper"

    def matches(self, counts) -> bool:
        """Whether a roll (face counts, index 0 = ones) fits the box's pattern."""
        k = self.kind
        if k in ("upper", "chance"):
            return True
        if k == "of_a_kind":
            return max(counts) >= self.count
        if k == "yacht":
            return max(counts) == sum(counts)
        if k == "full_house":
            present = sorted(c for c in counts if c)
            return present == [2, 3] or (self.five_alike and present == [5])
        if k in ("pairs", "two_pairs"):
            return len(self._pairs(counts)) >= self.pairs_needed
        if k == "straight":
            return any(all(counts[f - 1] for f in run) for run in self.runs)
        if k == "groups":
            return bool(self._groups(counts))
        raise ValueError(k)

    @property
    def pairs_needed(self) -> int:
        """pairs, two_pairs: the number of pairs the box needs (two_pairs: two)."""
        return 2 if self.kind == "two_pairs" else self.count

    def _pairs(self, counts) -> list[int]:
        """The faces of the pairs a roll holds, highest first: one pair per face showing two or more dice,
        two for a face showing four or more when `four_alike`."""
        per_face = 2 if self.four_alike else 1
        return [f for f in range(6, 0, -1) for _ in range(min(counts[f - 1] // 2, per_face))]

    def _groups(self, counts) -> tuple:
        """groups: the face of each group (in `sizes` order) that scores most by the matching dice, () when
        no faces fit: group i needs sizes[i] dice of its face, and the groups' faces differ."""
        best, faces = -1, ()
        for pick in permutations(range(1, 7), len(self.sizes)):
            if all(counts[f - 1] >= n for f, n in zip(pick, self.sizes)):
                value = sum(f * n for f, n in zip(pick, self.sizes))
                if value > best:
                    best, faces = value, pick
        return faces

    def _value(self, counts) -> int:
        total = sum((f + 1) * c for f, c in enumerate(counts))
        if self.kind == "upper":
            return self.face * counts[self.face - 1]
        if self.points == "sum":
            return total
        if self.points == "matching" and self.kind in ("pairs", "two_pairs"):
            return 2 * sum(self._pairs(counts)[:self.pairs_needed])
        if self.points == "matching" and self.kind == "groups":
            return sum(f * n for f, n in zip(self._groups(counts), self.sizes))
        if self.points == "matching":
            faces = [f + 1 for f in range(6) if counts[f] >= self.count]
            return max(faces, default=0) * self.count
        return int(self.points)

    def score(self, counts) -> int:
        """Plain score of a roll in this box (0 when the pattern does not fit)."""
        return self._value(counts) if self.matches(counts) else 0

    def joker_score(self, counts) -> int:
        """Score of an all-alike roll played as a joker: the box's value as if the pattern fit."""
        return self._value(counts)

    def counting(self, dice, points: int) -> list[bool]:
        """Per die of `dice` (faces), whether it counts towards `points`, what the box would score: the dice
        of the face (upper), the alike dice ("matching"), the pairs' dice (pairs not scored as the sum), the
        groups' dice (groups not scored as the sum), one die per face of the run (a straight that fits),
        every die otherwise; none when the box would score 0.
        Tables fade the others (seed 004)."""
        if points <= 0:
            return [False] * len(dice)
        counts = [sum(1 for d in dice if d == f) for f in range(1, 7)]
        if self.kind == "upper":
            return [d == self.face for d in dice]
        left = {}                                       # face -> dice of it still to mark
        if self.kind in ("pairs", "two_pairs") and self.points != "sum":
            for f in self._pairs(counts)[:self.pairs_needed]:
                left[f] = left.get(f, 0) + 2
        elif self.kind == "groups" and self.points != "sum":
            left = dict(zip(self._groups(counts), self.sizes))
        elif self.points == "matching":
            left = {max((f + 1 for f in range(6) if counts[f] >= self.count), default=0): self.count}
        if left:
            out = []
            for d in dice:
                out.append(left.get(d, 0) > 0)
                if out[-1]:
                    left[d] -= 1
            return out
        if self.kind == "straight" and self.matches(counts):
            run = next(set(r) for r in self.runs if all(counts[f - 1] for f in r))
            out = []
            for d in dice:
                out.append(d in run)
                run.discard(d)
            return out
        return [True] * len(dice)
