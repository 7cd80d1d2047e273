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
state's figure is printed by `yacht solve --distribution`. The sums are made in float32: an entry is a sum
of m non-negative terms (m the distinct moves of the turn, at most 252), so its relative rounding is at most
m * 6e-8 per layer, and about sqrt(m) * 6e-8 as the roundings fall.
"""
import time
from dataclasses import dataclass

import numba as nb
import numpy as np
from tqdm import tqdm

from ..core.dice import NUM_KEEPS, NUM_ROLLS
from .space import StateSpace, masks_by_layer, reachable_upper
from .lanes import LANES, MIN_LANES, odds_lanes, reroll_lanes, score_lanes
from .risk import risk_values, to_utility
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


@nb.njit(cache=True)
def _mix(T, gain, u, opts, extra, odds, choice, NX, j, offset, length, lo, lost, data, row):
    """The pmf of lane j's state (upper total u) into row[a:a + len], trimmed, from the odds of the roll each turn
    is scored on, the box chosen (choice[r, j]) and the state it leads to (NX[b, p, j]); returns
    (a, the score at row[a], len, the lost-mass bound). Its walk over the rolls each turn is scored on is
    `lanes.stats_lanes`'s, a deliberate twin: that one sums moments, this one a pmf, each in one compiled loop."""
    # sum the rolls that end in the same move: (next state, points gained) pairs
    ws = np.zeros(NUM_ROLLS)
    gs = np.empty(NUM_ROLLS, dtype=np.int64)
    ss = np.empty(NUM_ROLLS, dtype=np.int64)
    m = 0
    for r in range(NUM_ROLLS):
        p = odds[r, j]
        if p == 0.0:
            continue
        b = choice[r, j]
        pts = opts[r, b]
        g = pts + gain[b, u, pts] + extra[r]
        s2 = NX[b, pts, j]
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
    span = high - low + 1
    for x in range(span):
        row[x] = 0.0
    dropped = 0.0
    for k in range(m):
        s2 = ss[k]
        dropped += ws[k] * lost[s2]
        w = np.float32(ws[k])      # float32 arithmetic throughout: twice the numbers per vector instruction
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
    return a, low + a, z - a + 1, dropped


@nb.njit(cache=True, parallel=True)
def _chunk(T, V, space, prep, n_stages, min_lanes, risk, gstart, masks, uppers, flags, offset, length, lo, lost, data,
           buf, blo, blen, bstart, blost):
    """The pmf of each state j of the chunk into buf[j, bstart[j]:bstart[j] + blen[j]] (score blo[j] at
    bstart[j]), trimmed; blost[j]: its lost-mass bound. States gstart[g]:gstart[g + 1] share their filled boxes
    and flag (at most `LANES` upper totals): the lane widget runs them together, the solver's way (`lanes`,
    bit-identical to the one-state widget), or one at a time when fewer than `min_lanes`. risk > 0: the policy is
    the exponential-utility one of `risk.risk_values` (V its certainty equivalents; the lane widget only)."""
    gain = prep[0]
    nbox = T.n_boxes
    top = gain.shape[2]
    for g in nb.prange(gstart.shape[0] - 1):
        j0 = gstart[g]
        n = gstart[g + 1] - j0
        mask, flag = masks[j0], flags[j0]
        opts = np.empty((NUM_ROLLS, nbox), dtype=np.int32)
        extra = np.empty(NUM_ROLLS, dtype=np.int32)
        us = np.zeros(LANES, dtype=np.int64)
        for j in range(n):
            us[j] = uppers[j0 + j]
        S = np.zeros((n_stages + 1, NUM_ROLLS, LANES))
        best = np.zeros((n_stages + 1, NUM_ROLLS, LANES), dtype=np.int32)
        choice = np.zeros((NUM_ROLLS, LANES), dtype=np.int32)
        NX = np.zeros((nbox, top, LANES), dtype=np.int64)
        odds = np.zeros((NUM_ROLLS, LANES))
        box_table(T, mask, flag == 1, opts, extra)
        if n < min_lanes:
            W1 = np.empty((nbox, top))
            S1 = np.empty((n_stages + 1, NUM_ROLLS))
            K1 = np.empty(NUM_KEEPS)
            kb1 = np.empty(NUM_KEEPS, dtype=np.int32)
            best1 = np.empty((n_stages + 1, NUM_ROLLS), dtype=np.int32)
            mass = np.empty(NUM_KEEPS)
            for j in range(n):
                score_stage(T, V, space, prep, mask, us[j], flag, opts, extra, W1, NX[:, :, 0], S1[0], choice[:, 0])
                reroll_stages(S1, K1, kb1, best1, n_stages)
                final_roll_odds(best1, n_stages, odds[:, 0], mass)
                bstart[j0 + j], blo[j0 + j], blen[j0 + j], blost[j0 + j] = _mix(
                    T, gain, us[j], opts, extra, odds, choice, NX, 0, offset, length, lo, lost, data, buf[j0 + j])
        else:
            W = np.zeros((nbox, top, LANES))
            K = np.zeros((NUM_KEEPS, LANES))
            kb = np.zeros((NUM_KEEPS, LANES), dtype=np.int32)
            mL = np.empty((NUM_ROLLS, LANES))
            massL = np.empty((NUM_KEEPS, LANES))
            score_lanes(T, V, space, prep, mask, us, n, flag, opts, extra, W, NX, S[0], choice)
            if risk > 0:
                to_utility(S[0], n, risk, np.empty(LANES))
            reroll_lanes(S, K, kb, best, n_stages)
            odds_lanes(best, n_stages, odds, mL, massL)
            for j in range(n):
                bstart[j0 + j], blo[j0 + j], blen[j0 + j], blost[j0 + j] = _mix(
                    T, gain, us[j], opts, extra, odds, choice, NX, j, offset, length, lo, lost, data, buf[j0 + j])


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


def lane_groups(masks, flags) -> np.ndarray:
    """Start of every group of states (in the order given, and the end): runs of states with the same filled
    boxes and flag, cut every `LANES` states."""
    key = masks * 2 + flags
    new = np.ones(len(key), bool)
    new[1:] = key[1:] != key[:-1]
    run = np.flatnonzero(new)
    pos = np.arange(len(key)) - np.repeat(run, np.diff(np.r_[run, len(key)]))
    return np.r_[np.flatnonzero(new | (pos % LANES == 0)), len(key)].astype(np.int64)


def build(rules, solution, progress: bool = False, min_lanes: int = MIN_LANES, risk: float = 0.0) -> Distributions:
    """The distributions of a one-column rule set from its solved values (`Solution`). min_lanes: groups of
    fewer states go through the one-state widget (the same figures either way; LANES + 1: all of them).
    risk > 0: the distributions of the exponential-utility policy with that risk instead (`risk.risk_values`,
    computed here from `solution`'s state space)."""
    T = rules.tables
    space = solution.space
    t0 = time.perf_counter()
    dims = (space.n_upper, space.n_flag, space.threshold, space.yacht_points)
    prep = prepare(T, space.n_upper)
    reach = reachable_upper(T, space)
    V = solution.values
    if risk > 0:
        V = risk_values(rules, space, risk)
        min_lanes = 1
    layers = masks_by_layer(T.n_boxes)
    offset = np.full(space.size, -1, np.int64)
    length = np.zeros(space.size, np.int32)
    lo = np.zeros(space.size, np.int32)
    lost = np.zeros(space.size)
    data = np.empty(1 << 22, np.float32)
    full = layers[T.n_boxes]
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
    buf = np.empty((0, 0), np.float32)       # each chunk's pmfs before they are trimmed and appended
    yacht_bit = 1 << T.yacht_box if T.yacht_box >= 0 else 0
    bar = tqdm(range(T.n_boxes - 1, -1, -1), desc=f"distributions {rules.name}", unit="layer",
               disable=not progress, leave=False)
    for layer in bar:
        lm = layers[layer]
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
        cap = int(length[offset >= 0].max()) + step + 1       # no pmf of this layer is longer
        if buf.shape[1] < cap:
            buf = np.empty((CHUNK_STATES + LANES, cap), np.float32)
        need = at + len(states) * cap        # room for the whole layer: pages are only touched where written
        if need > len(data):
            grown = np.empty(max(need, 2 * len(data)), np.float32)
            grown[:at] = data[:at]
            data = grown
        groups = lane_groups(ms, fs)
        cuts = np.unique(np.r_[groups[np.searchsorted(groups, np.arange(0, len(states), CHUNK_STATES))], len(states)])
        for c0, c1 in zip(cuts[:-1].tolist(), cuts[1:].tolist()):
            sl = slice(c0, c1)
            k = c1 - c0                      # at most CHUNK_STATES + LANES - 1: the cuts are group starts
            gstart = groups[(groups >= c0) & (groups <= c1)] - c0
            blo, blen, bstart = np.empty(k, np.int64), np.empty(k, np.int64), np.empty(k, np.int64)
            blost = np.empty(k)
            _chunk(T, V, dims, prep, rules.rolls_per_turn - 1, min_lanes, float(risk), gstart, ms[sl], us[sl], fs[sl],
                   offset, length, lo, lost, data, buf, blo, blen, bstart, blost)
            at = _append(states[sl], buf, bstart, blen, blo, blost, offset, length, lo, lost, data, at)
    return Distributions(space=space, offset=offset, length=length, lo=lo, lost=lost, data=data[:at],
                         seconds=time.perf_counter() - t0)
