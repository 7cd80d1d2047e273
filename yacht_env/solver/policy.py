"""Optimal moves from a solved table: the turn widget computed on the fly at the current state.

With one column the value of a move is exact: points + bonuses + the table's value of the next
state. With several columns (too many states to solve) the sheet is valued as the sum of each
column's solitaire value, and a move is worth its points + bonuses + the value of the column it
changes, plus the unchanged values of the others: the best move is the one that loses the least
solitaire value for what it scores. For one column both readings are the same.
"""
from dataclasses import dataclass

import numba as nb
import numpy as np

from ..dice import HOLD_KEEP, NUM_HOLDS, NUM_KEEPS, NUM_ROLLS
from .solution import Solution
from .widget import SMALL, box_table, keep_values, next_state, reroll_stages


@nb.njit(cache=True)
def sheet_score_stage(T, V, space, prep, masks, uppers, flags, opts, extra, W, S0, choice):
    """S0[r] = best value of scoring roll r in any column; choice[r] = column * n_boxes + box."""
    n_upper, n_flag, threshold, yacht_points = space
    gain = prep[0]
    nbox = T.n_boxes
    total = 0.0
    for c in range(masks.shape[0]):
        total += V[(masks[c] * n_upper + uppers[c]) * n_flag + flags[c]]
    for r in range(NUM_ROLLS):
        S0[r] = -1e300
        choice[r] = -1
    for c in range(masks.shape[0]):
        mask, u, flag = masks[c], uppers[c], flags[c]
        rest = total - V[(mask * n_upper + u) * n_flag + flag]
        box_table(T, mask, flag == 1, opts, extra)
        for b in range(nbox):
            if not (mask >> b) & 1:
                for p in range(W.shape[1]):
                    W[b, p] = gain[b, u, p] + V[next_state(T.box_face, T.yacht_box, n_upper, n_flag, threshold,
                                                            yacht_points, mask, u, flag, b, p)]
        for r in range(NUM_ROLLS):
            e = extra[r]
            for b in range(nbox):
                p = opts[r, b]
                if p < 0:
                    continue
                v = p + e + W[b, p] + rest
                if v > S0[r]:
                    S0[r] = v
                    choice[r] = c * nbox + b


@dataclass
class Policy:
    """Optimal (one column) or column-additive (several columns) play from a `Solution`."""
    rules: object
    solution: Solution

    def __post_init__(self):
        from .widget import prepare
        sp = self.solution.space
        self.tables = self.rules.tables
        self.dims = (sp.n_upper, sp.n_flag, sp.threshold, sp.yacht_points)
        self.prep = prepare(self.tables, sp.n_upper)
        self.gain = self.prep[0]
        self.n_stages = self.rules.rolls_per_turn - 1
        self._turn = (None, None)  # (state key, widget): a turn's decisions share one widget

    def state(self, scores: np.ndarray, upper: np.ndarray):
        """Per-column (mask, capped upper, flag) arrays from a sheet's scores (columns x boxes, -1 open)."""
        sp = self.solution.space
        scores = np.atleast_2d(scores)
        masks = np.array([sum(1 << b for b, s in enumerate(col) if s >= 0) for col in scores], dtype=np.int64)
        uppers = np.array([min(int(u), sp.threshold) if sp.n_upper > 1 else 0 for u in np.atleast_1d(upper)],
                          dtype=np.int64)
        y = self.tables.yacht_box
        flags = np.array([int(sp.n_flag > 1 and col[y] == sp.yacht_points) for col in scores], dtype=np.int64)
        return masks, uppers, flags

    def widget(self, masks, uppers, flags, stages: int):
        """(S, best, choice): stage values S[L, r], chosen keeps best[L, r] (L >= 1) and boxes choice[r]."""
        nbox = self.tables.n_boxes
        S = np.empty((stages + 1, NUM_ROLLS))
        best = np.empty((stages + 1, NUM_ROLLS), dtype=np.int32)
        choice = np.empty(NUM_ROLLS, dtype=np.int32)
        opts = np.empty((NUM_ROLLS, nbox), dtype=np.int32)
        extra = np.empty(NUM_ROLLS, dtype=np.int32)
        W = np.empty((nbox, self.gain.shape[2]))
        sheet_score_stage(self.tables, self.solution.values, self.dims, self.prep, masks, uppers, flags, opts,
                          extra, W, S[0], choice)
        reroll_stages(S, np.empty(NUM_KEEPS), np.empty(NUM_KEEPS, dtype=np.int32), best, stages)
        return S, best, choice

    def action(self, scores, upper, roll: int, rolls_left: int) -> int:
        """The best action (Game encoding) for roll index `roll` with `rolls_left` re-rolls left."""
        masks, uppers, flags = self.state(scores, upper)
        stages = min(rolls_left, self.n_stages)
        key = (masks.tobytes(), uppers.tobytes(), flags.tobytes())
        if self._turn[0] != key:
            self._turn = (key, self.widget(masks, uppers, flags, self.n_stages))
        _, best, choice = self._turn[1]
        if stages > 0 and best[stages, roll] != SMALL + roll:
            return hold_of(roll, best[stages, roll])
        return NUM_HOLDS + int(choice[roll])

    def alternatives(self, scores, upper, roll: int, rolls_left: int) -> list[tuple[int, float]]:
        """Every legal action with the expected points still to come after it (this turn's included), best first.

        Holds that keep the same dice are listed once (the lowest pattern).
        """
        masks, uppers, flags = self.state(scores, upper)
        stages = min(rolls_left, self.n_stages)
        S, _, _ = self.widget(masks, uppers, flags, stages)
        out = []
        if stages > 0:
            K = np.empty(NUM_KEEPS)
            keep_values(S[stages - 1], K)
            seen = set()
            for h in range(NUM_HOLDS):
                k = int(HOLD_KEEP[roll, h])
                if k not in seen:
                    seen.add(k)
                    out.append((h, float(K[k])))
        out += [(NUM_HOLDS + a, v) for a, v in self.box_values(masks, uppers, flags, roll)]
        out.sort(key=lambda av: (-av[1], av[0]))
        return out

    def box_values(self, masks, uppers, flags, roll: int):
        """(column * n_boxes + box, value) for every box the rules allow for this roll."""
        from ..kernels import box_options
        sp, T, V = self.solution.space, self.tables, self.solution.values
        idx = [sp.index(m, u, f) for m, u, f in zip(masks, uppers, flags)]
        total = float(sum(V[i] for i in idx))
        out = np.empty(T.n_boxes, dtype=np.int32)
        res = []
        for c, (mask, u, flag) in enumerate(zip(masks, uppers, flags)):
            extra = int(box_options(T, int(mask), bool(flag), roll, out))
            for b in np.flatnonzero(out >= 0):
                p = int(out[b])
                nxt = next_state(T.box_face, T.yacht_box, *self.dims, int(mask), int(u), int(flag), int(b), p)
                w = float(self.gain[b, u, p]) + float(V[nxt])
                res.append((c * T.n_boxes + int(b), (p + extra) + w + (total - float(V[idx[c]]))))
        return res


def hold_of(roll: int, keep: int) -> int:
    """The lowest hold pattern (bit i keeps sorted die i) that keeps `keep` from `roll`."""
    return int(np.flatnonzero(HOLD_KEEP[roll, :NUM_HOLDS] == keep)[0])
