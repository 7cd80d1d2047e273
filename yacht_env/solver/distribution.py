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
of m non-negative terms (m the distinct moves of the turn, at most the rolls: 252 with five dice, 462 with six),
so its relative rounding is at most m * 6e-8 per layer, and about sqrt(m) * 6e-8 as the roundings fall.
"""
import time
from dataclasses import dataclass
from typing import NamedTuple

import numba as nb
import numpy as np
from tqdm import tqdm

from .space import StateSpace, check_saved_rolls, masks_by_layer, reachable_upper
from .lanes import LANES, MIN_LANES, Lanes, odds_lanes, reroll_lanes, score_lanes
from .risk import risk_values, to_utility
from .widget import Model, Widget, box_table, final_roll_odds, prepare, reroll_stages, score_stage

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


class Pmfs(NamedTuple):
    """The pmfs of every state as compiled code reads them (a numba-friendly named tuple): `Distributions`' arrays
    (while the layers are built, `data` as far as it is written), and what the win kernels read besides
    (`yacht_env.solver.winning`; `agents.strong.distribution_arrays`).

    offset[s]  where state s's pmf starts in `data` (-1: unreachable or not built yet)
    length[s]  its length
    lo[s]      the points still to come of its entry 0
    lost[s]    the bound on the probability mass its trimming dropped
    data       float32, every pmf one after the other
    mass[s]    the sum of state s's pmf in float64 (`winning.pmf_mass`; empty while the layers are built)
    span       the longest pmf (0 while the layers are built)
    """
    offset: np.ndarray
    length: np.ndarray
    lo: np.ndarray
    lost: np.ndarray
    data: np.ndarray
    mass: np.ndarray
    span: int


class Chunk(NamedTuple):
    """The states of one parallel call of the build and their pmfs before they are appended (a numba-friendly
    named tuple).

    gstart[g]      start of group g (and the end): states gstart[g]:gstart[g + 1] share filled boxes and flag
    masks[j], uppers[j], flags[j], states[j]   state j: its filled boxes, upper total, flag and flat index
    buf[j]         its pmf, at buf[j, bstart[j]:bstart[j] + blen[j]] (score blo[j] at bstart[j]), trimmed
    bstart[j], blo[j], blen[j]
    blost[j]       its lost-mass bound
    """
    gstart: np.ndarray
    masks: np.ndarray
    uppers: np.ndarray
    flags: np.ndarray
    states: np.ndarray
    buf: np.ndarray
    bstart: np.ndarray
    blo: np.ndarray
    blen: np.ndarray
    blost: np.ndarray


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
def _mix(M, X, u, j, odds, P, row):
    """The pmf of lane j's state (upper total u) into row[a:a + len], trimmed, from the odds of the roll each turn
    is scored on, the box chosen (X.choice[r, j]) and the state it leads to (X.NX[b, p, j]); returns
    (a, the score at row[a], len, the lost-mass bound). Its walk over the rolls each turn is scored on is
    `lanes.stats_lanes`'s, a deliberate twin: that one sums moments, this one a pmf, each in one compiled loop."""
    gain = M.L.gain
    opts, extra, choice, NX = X.opts, X.extra, X.choice, X.NX
    offset, length, lo, lost, data = P.offset, P.length, P.lo, P.lost, P.data
    n_rolls = M.D.n_rolls
    # sum the rolls that end in the same move: (next state, points gained) pairs
    ws = np.zeros(n_rolls)
    gs = np.empty(n_rolls, dtype=np.int64)
    ss = np.empty(n_rolls, dtype=np.int64)
    m = 0
    for r in range(n_rolls):
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
def _chunk(T, D, space, L, V, n_stages, min_lanes, risk, P, C):
    """The pmf of each state j of the chunk C into C.buf[j, C.bstart[j]:C.bstart[j] + C.blen[j]] (score C.blo[j]
    at C.bstart[j]), trimmed; C.blost[j]: its lost-mass bound. States C.gstart[g]:C.gstart[g + 1] share their
    filled boxes and flag (at most `LANES` upper totals): the lane widget runs them together, the solver's way
    (`lanes`, bit-identical to the one-state widget), or one at a time when fewer than `min_lanes`. risk > 0: the
    policy is the exponential-utility one of `risk.risk_values` (V its certainty equivalents; the lane widget
    only). P: the pmfs of the layers built so far; T, D, space, L: the parts of the rule set's `Model`."""
    gstart, masks, uppers, flags = C.gstart, C.masks, C.uppers, C.flags
    buf, blo, blen, bstart, blost = C.buf, C.blo, C.blen, C.bstart, C.blost
    nbox = T.n_boxes
    top = L.gain.shape[2]
    n_rolls, n_keeps = D.n_rolls, D.n_keeps
    for g in nb.prange(gstart.shape[0] - 1):
        M = Model(T, D, space, L)
        j0 = gstart[g]
        n = gstart[g + 1] - j0
        mask, flag = masks[j0], flags[j0]
        opts = np.empty((n_rolls, nbox), dtype=np.int32)
        extra = np.empty(n_rolls, dtype=np.int32)
        us = np.zeros(LANES, dtype=np.int64)
        for j in range(n):
            us[j] = uppers[j0 + j]
        S = np.zeros((n_stages + 1, n_rolls, LANES))
        best = np.zeros((n_stages + 1, n_rolls, LANES), dtype=np.int32)
        choice = np.zeros((n_rolls, LANES), dtype=np.int32)
        NX = np.zeros((nbox, top, LANES), dtype=np.int64)
        odds = np.zeros((n_rolls, LANES))
        box_table(M, mask, flag == 1, opts, extra)
        if n < min_lanes:
            S1 = np.empty((n_stages + 1, n_rolls))
            X1 = Widget(opts, extra, np.empty((nbox, top)), NX[:, :, 0], S1[0], choice[:, 0], np.empty(n_keeps),
                        np.empty(n_keeps, dtype=np.int32), S1, np.empty((n_stages + 1, n_rolls), dtype=np.int32),
                        choice[:, 0])
            X = Lanes(opts, extra, S, best, np.empty((0, LANES)), np.empty((0, LANES), dtype=np.int32), choice,
                      np.empty((0, 0, LANES)), NX, np.empty(LANES), us)
            mass = np.empty(n_keeps)
            for j in range(n):
                score_stage(M, V, mask, us[j], flag, X1)
                reroll_stages(M, S1, X1.K, X1.kb, X1.best, n_stages)
                final_roll_odds(M, X1.best, n_stages, odds[:, 0], mass)
                bstart[j0 + j], blo[j0 + j], blen[j0 + j], blost[j0 + j] = _mix(M, X, us[j], 0, odds, P, buf[j0 + j])
        else:
            X = Lanes(opts, extra, S, best, np.zeros((n_keeps, LANES)), np.zeros((n_keeps, LANES), dtype=np.int32),
                      choice, np.zeros((nbox, top, LANES)), NX, np.empty(LANES), us)
            mL = np.empty((n_rolls, LANES))
            massL = np.empty((n_keeps, LANES))
            score_lanes(M, V, mask, flag, n, X)
            if risk > 0:
                to_utility(S[0], n, risk, np.empty(LANES))
            reroll_lanes(M, X, n_stages)
            odds_lanes(M, best, n_stages, odds, mL, massL)
            for j in range(n):
                bstart[j0 + j], blo[j0 + j], blen[j0 + j], blost[j0 + j] = _mix(M, X, us[j], j, odds, P, buf[j0 + j])


@nb.njit(cache=True)
def _append(C, P, at):
    """Copy the chunk's pmfs into P.data from `at` on; returns the new end."""
    offset, length, lo, lost, data = P.offset, P.length, P.lo, P.lost, P.data
    for j in range(C.states.shape[0]):
        s = C.states[j]
        offset[s] = at
        length[s] = C.blen[j]
        lo[s] = C.blo[j]
        lost[s] = C.blost[j]
        for x in range(C.blen[j]):
            data[at + x] = C.buf[j, C.bstart[j] + x]
        at += C.blen[j]
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
    check_saved_rolls(rules, "playing to win or to a target (the score distributions)")
    T = rules.tables
    space = solution.space
    t0 = time.perf_counter()
    M = prepare(T, space)
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
    step = int(M.L.gain.max()) + int(max(T.score.max(), T.joker_score.max())) + int(T.extra_bonus)
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
            chunk = Chunk(gstart, ms[sl], us[sl], fs[sl], states[sl], buf, bstart, blo, blen, blost)
            pmfs = Pmfs(offset=offset, length=length, lo=lo, lost=lost, data=data, mass=np.empty(0), span=0)
            _chunk(M.T, M.D, M.space, M.L, V, rules.rolls_per_turn - 1, min_lanes, float(risk), pmfs, chunk)
            at = _append(chunk, pmfs, at)
    data = data[:at]
    data.setflags(write=False)   # read-only as the cache's memory map of it: one compiled version of each kernel
    return Distributions(space=space, offset=offset, length=length, lo=lo, lost=lost, data=data,
                         seconds=time.perf_counter() - t0)
