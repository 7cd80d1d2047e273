"""Distributions of the score still to come under optimal expected-score play, at every turn-start state.

`Distributions` holds, for every reachable solitaire state s (the flat index of `StateSpace`), the
probability of each number of points still to come when the rest of the game is played by the optimal
expected-score policy (`Policy`: the same widget, the same tie rules): ``pmf(s)[k]`` is
P(future points = lo[s] + k). They are built by backward induction over the layers (boxes filled), as
the values are: at a state the turn widget gives the probability ``odds[r]`` that the turn ends by
scoring roll r, and the box the policy writes it in (points g, next state s2), so

    D_s[x] = sum over r of odds[r] * D_{s2(r)}[x - g(r)]

(rolls that lead to the same box, points and bonus are summed first: one shifted add each).

Representation: a flat float32 array with a per-state offset, length and lowest score. Entries below
`EPS` at either end of a state's support are dropped, and the mass dropped (that state's own plus the
weighted mass its next states dropped) is kept per state in `lost`: every probability and every
win chance computed from these tables is off by at most ``lost[s]`` (total variation), and the start
state's figure is printed by `yacht solve --distribution`. The float32 storage adds a relative
rounding of about 6e-8 per layer.
"""
import time
from dataclasses import dataclass

import numba as nb
import numpy as np
from tqdm import tqdm

from ..core.dice import NUM_KEEPS, NUM_ROLLS
from .space import StateSpace, reachable_upper
from .widget import box_table, final_roll_odds, prepare, reroll_stages, score_stage

EPS = 1e-11          # tail entries below this are dropped (their mass is counted in `lost`)
CHUNK_STATES = 4096  # states computed per parallel call (their scratch rows: CHUNK_STATES x cap float64)


@dataclass(frozen=True)
class Distributions:
    """The future-score distribution of every reachable state (see the module docstring)."""
    space: StateSpace
    offset: np.ndarray   # int64 per state: where its pmf starts in `data` (-1: unreachable)
    length: np.ndarray   # int32 per state
    lo: np.ndarray       # int32 per state: the points still to come of pmf entry 0
    lost: np.ndarray     # float64 per state: bound on the probability mass the trimming dropped
    data: np.ndarray     # float32, every pmf one after the other
    seconds: float

    def pmf(self, state: int) -> tuple[int, np.ndarray]:
        """(lowest score, probabilities) of the points still to come from a turn-start state."""
        o = int(self.offset[state])
        if o < 0:
            raise ValueError(f"state {state} is not reachable")
        return int(self.lo[state]), self.data[o:o + int(self.length[state])].astype(np.float64)

    @property
    def nbytes(self) -> int:
        return int(self.data.nbytes + self.offset.nbytes + self.length.nbytes + self.lo.nbytes + self.lost.nbytes)


def summary(lo: int, p: np.ndarray, percentiles=(1, 5, 10, 25, 50, 75, 90, 95, 99)) -> dict:
    """Mean, standard deviation and percentiles (the smallest score whose CDF reaches q%) of a pmf."""
    x = lo + np.arange(len(p))
    total = float(p.sum())
    mean = float((p * x).sum() / total)
    sd = float(np.sqrt(max((p * (x - mean) ** 2).sum() / total, 0.0)))
    cdf = np.cumsum(p) / total
    pct = {str(q): int(x[min(int(np.searchsorted(cdf, q / 100.0 - 1e-12)), len(x) - 1)]) for q in percentiles}
    return {"mean": mean, "std": sd, "percentiles": pct, "min": int(x[p > 0][0]), "max": int(x[p > 0][-1]),
            "mass": total}


@nb.njit(cache=True, parallel=True)
def _chunk(T, V, space, prep, n_stages, masks, uppers, flags, offset, length, lo, lost, data, cap, buf, blo, blen,
           bstart, blost):
    """The pmf of each state j of the chunk into buf[j, bstart[j]:bstart[j] + blen[j]] (score blo[j] at
    bstart[j]), trimmed; blost[j]: its lost-mass bound."""
    gain = prep[0]
    nbox = T.n_boxes
    top = gain.shape[2]
    for j in nb.prange(masks.shape[0]):
        mask, u, flag = masks[j], uppers[j], flags[j]
        opts = np.empty((NUM_ROLLS, nbox), dtype=np.int32)
        extra = np.empty(NUM_ROLLS, dtype=np.int32)
        W1 = np.empty((nbox, top))
        NX1 = np.empty((nbox, top), dtype=np.int64)
        S1 = np.empty((n_stages + 1, NUM_ROLLS))
        choice1 = np.empty(NUM_ROLLS, dtype=np.int32)
        K1 = np.empty(NUM_KEEPS)
        kb1 = np.empty(NUM_KEEPS, dtype=np.int32)
        best1 = np.empty((n_stages + 1, NUM_ROLLS), dtype=np.int32)
        odds = np.empty(NUM_ROLLS)
        mass = np.empty(NUM_KEEPS)
        box_table(T, mask, flag == 1, opts, extra)
        score_stage(T, V, space, prep, mask, u, flag, opts, extra, W1, NX1, S1[0], choice1)
        reroll_stages(S1, K1, kb1, best1, n_stages)
        final_roll_odds(best1, n_stages, odds, mass)
        # sum the rolls that end in the same move: (next state, points gained) pairs
        ws = np.zeros(NUM_ROLLS)
        gs = np.empty(NUM_ROLLS, dtype=np.int64)
        ss = np.empty(NUM_ROLLS, dtype=np.int64)
        m = 0
        for r in range(NUM_ROLLS):
            p = odds[r]
            if p == 0.0:
                continue
            b = choice1[r]
            pts = opts[r, b]
            g = pts + gain[b, u, pts] + extra[r]
            s2 = NX1[b, pts]
            k = 0
            while k < m and not (gs[k] == g and ss[k] == s2):
                k += 1
            if k == m:
                gs[m] = g
                ss[m] = s2
                m += 1
            ws[k] += p
        low = 1 << 40
        high = -1
        for k in range(m):
            a = gs[k] + lo[ss[k]]
            low = min(low, a)
            high = max(high, a + length[ss[k]] - 1)
        row = buf[j]
        span = high - low + 1
        for x in range(span):
            row[x] = 0.0
        dropped = 0.0
        for k in range(m):
            s2 = ss[k]
            w = ws[k]
            dropped += w * lost[s2]
            at = gs[k] + lo[s2] - low
            o = offset[s2]
            n = length[s2]
            dst = row[at:at + n]       # slices: no index wrap-around checks, so the loop is vectorised
            src = data[o:o + n]
            for x in range(n):
                dst[x] += w * src[x]
        a = 0
        while a < span - 1 and row[a] < EPS:
            dropped += row[a]
            a += 1
        z = span - 1
        while z > a and row[z] < EPS:
            dropped += row[z]
            z -= 1
        bstart[j] = a
        blo[j] = low + a
        blen[j] = z - a + 1
        blost[j] = dropped


@nb.njit(cache=True)
def _append(states, buf, bstart, blen, blo, blost, offset, length, lo, lost, data, at):
    """Copy the chunk's pmfs into `data` from `at` on; returns the new end."""
    for j in range(states.shape[0]):
        s = states[j]
        offset[s] = at
        length[s] = blen[j]
        lo[s] = blo[j]
        lost[s] = blost[j]
        for x in range(blen[j]):
            data[at + x] = buf[j, bstart[j] + x]
        at += blen[j]
    return at


def build(rules, solution, progress: bool = False) -> Distributions:
    """The distributions of a one-column rule set from its solved values (`Solution`)."""
    T = rules.tables
    space = solution.space
    t0 = time.perf_counter()
    dims = (space.n_upper, space.n_flag, space.threshold, space.yacht_points)
    prep = prepare(T, space.n_upper)
    reach = reachable_upper(T, space)
    V = solution.values
    n = 1 << T.n_boxes
    masks_all = np.arange(n, dtype=np.int64)
    popcount = np.zeros(n, dtype=np.int64)
    for b in range(T.n_boxes):
        popcount += (masks_all >> b) & 1
    offset = np.full(space.size, -1, np.int64)
    length = np.zeros(space.size, np.int32)
    lo = np.zeros(space.size, np.int32)
    lost = np.zeros(space.size)
    data = np.empty(1 << 22, np.float32)
    full = masks_all[popcount == T.n_boxes]
    u_all = np.arange(space.n_upper)
    # the last layer: nothing still to come
    at = 0
    for mask in full:
        for u in u_all[reach[mask]]:
            for f in range(space.n_flag):
                s = space.index(int(mask), int(u), bool(f))
                offset[s], length[s], lo[s] = at, 1, 0
                data[at] = 1.0
                at += 1
    step = int(prep[0].max()) + int(max(T.score.max(), T.joker_score.max())) + int(T.extra_bonus)
    yacht_bit = 1 << T.yacht_box if T.yacht_box >= 0 else 0
    bar = tqdm(range(T.n_boxes - 1, -1, -1), desc=f"distributions {rules.name}", unit="layer",
               disable=not progress, leave=False)
    for layer in bar:
        lm = masks_all[popcount == layer]
        mm, uu = np.nonzero(reach[lm])
        mm = lm[mm]
        items = [(mm, uu, np.zeros_like(mm))]
        if space.n_flag > 1:
            y = (mm & yacht_bit) != 0
            items.append((mm[y], uu[y], np.ones(int(y.sum()), np.int64)))
        ms = np.concatenate([i[0] for i in items])
        us = np.concatenate([i[1] for i in items])
        fs = np.concatenate([i[2] for i in items])
        states = (ms * space.n_upper + us) * space.n_flag + fs
        cap = int(length[offset >= 0].max()) + step + 1
        for c in range(0, len(states), CHUNK_STATES):
            sl = slice(c, c + CHUNK_STATES)
            k = len(states[sl])
            buf = np.empty((k, cap))
            blo, blen, bstart = np.empty(k, np.int64), np.empty(k, np.int64), np.empty(k, np.int64)
            blost = np.empty(k)
            _chunk(T, V, dims, prep, rules.rolls_per_turn - 1, ms[sl], us[sl], fs[sl], offset, length, lo, lost,
                   data, cap, buf, blo, blen, bstart, blost)
            need = at + int(blen.sum())
            if need > len(data):
                grown = np.empty(max(need, 2 * len(data)), np.float32)
                grown[:at] = data[:at]
                data = grown
            at = _append(states[sl], buf, bstart, blen, blo, blost, offset, length, lo, lost, data, at)
    return Distributions(space=space, offset=offset, length=length, lo=lo, lost=lost, data=data[:at].copy(),
                         seconds=time.perf_counter() - t0)
