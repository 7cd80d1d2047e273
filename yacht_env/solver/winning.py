"""Playing the table: the move with the highest chance of finishing first (or of reaching a target score).

The heuristic (after Pawlewicz 2011): every turn after the current one, everyone's, is played by the
optimal expected-score policy, whose distribution of the points still to come is known at every
turn-start state (`yacht_env.solver.distribution`). Each other sheet then ends at its total plus an
independent draw from its state's distribution (a finished sheet is a point mass), so

    G(x) = E[win share | my final score = x] = integral over z in [0, 1] of prod_k (P(X_k < x) + P(X_k = x) z)

(the coefficient of z^t is the chance that exactly t others tie with x and nobody beats it; the share is
then 1 / (t + 1), as the rules share a tie, and a sudden-death roll-off among t + 1 tied sheets gives
each the same 1 / (t + 1) on average). With a target T instead of opponents, G(x) = [x >= T].

Inside the current turn the play is exact: the turn widget (`widget.reroll_stages`, the solver's) runs on
terminal values W(box, points) = sum_i D_s2[i] G(total + gained + lo_s2 + i), the chance of winning after
writing that box (s2 the state it leads to). Moves whose chances are equal are told apart by their
expected points (a `TIE` weight per point, far below any chance that matters), so a hopeless or certain
position is played as `strong` plays it.

G is kept as an array over the scores where it is neither 0 nor 1: [glo, glo + len(G)); below it 0, above
it 1.
"""
from typing import NamedTuple

import numba as nb
import numpy as np

from ..core.actions import box_of_action, hold_actions_of
from ..core.kernels import box_options
from .dial import pick_row
from .plans import write_plan
from .widget import Model, keep_values, next_state, reroll_stages

TIE = 1e-12          # weight of one expected point beside the chance of winning (breaks exact ties only)
MAX_SHEETS = 8
MAX_FUTURES = 3      # own futures `chance_after` can weigh besides the points one
DECIDED = 1e-9       # moves whose chances differ by less are alike to the dial (`win_dial_moves`)


class OwnFutures(NamedTuple):
    """More futures the deciding sheet could play (a flat numba-friendly named tuple: numba's parallel loops take no
    nested tuples; `agents.strong.own_futures`): F <= `MAX_FUTURES` of them, the distributions of other whole
    policies (`risk`), and the oracle weight (see `chance_after`).

    lo[f, s], length[f, s], offset[f, s], mass[f, s]   future f's pmf of state s (as `distribution.Pmfs`; F = 0:
                                                       none)
    data0, data1, data2                                future f's pmfs in the f-th, the others unused
    beta                                               the oracle weight
    """
    lo: np.ndarray
    length: np.ndarray
    offset: np.ndarray
    mass: np.ndarray
    data0: np.ndarray
    data1: np.ndarray
    data2: np.ndarray
    beta: float


class ChanceCurve(NamedTuple):
    """How a final score of the deciding sheet turns into a chance at one table (a numba-friendly named tuple;
    `table_widget`).

    G[i], glo, n   the win share of a final score glo + i, i < n (`win_curve`; 0 below, 1 above)
    H[2, i]        the field's best score: P(B = glo + i) and the share of the ties there (`win_curve`)
    spreads        the factors the deciding sheet's own future is scaled by (`chance_after`)
    acc            scratch of at least n (`chance_after`'s oracle)
    """
    G: np.ndarray
    H: np.ndarray
    glo: int
    n: int
    spreads: np.ndarray
    acc: np.ndarray


class Seats(NamedTuple):
    """The tables the win kernels decide at (a numba-friendly named tuple): table j's deciding sheet mine[j], every
    sheet k at turn-start state keys[j, k] with total totals[j, k] (the deciding sheet's key is its state at the
    start of this turn); targets[j] >= 0 plays for a final score of at least targets[j] instead of the other
    sheets; spreads: the deciding sheet's future scaled (`chance_after`)."""
    keys: np.ndarray
    totals: np.ndarray
    mine: np.ndarray
    targets: np.ndarray
    spreads: np.ndarray


class WinWidget(NamedTuple):
    """The scratch arrays of the turn widget on win chances (`win_widget`; a numba-friendly named tuple).

    opts[r, b], extra[r]   the box table of the deciding sheet's state
    Wv[b, p], done[b, p]   the chance after p points in box b, once computed (rolls without an extra bonus)
    S[L, r], best[L, r]    the best chance with L re-rolls left and roll r, and the keep chosen (L >= 1)
    K[k], kb[k]            keep values and best sub-keeps
    choice[r]              the box roll r is scored in
    boxval[r, b]           the chance after scoring roll r in box b (-inf where b is filled)
    """
    opts: np.ndarray
    extra: np.ndarray
    Wv: np.ndarray
    done: np.ndarray
    S: np.ndarray
    best: np.ndarray
    K: np.ndarray
    kb: np.ndarray
    choice: np.ndarray
    boxval: np.ndarray


class WinDecisions(NamedTuple):
    """Decisions of stored games and their chances (`win_decisions`; a numba-friendly named tuple): decisions
    starts[g]:starts[g + 1] are one turn of table g; decision d saw roll[d] with left[d] re-rolls left and played
    action[d] (Game encoding); before[d] / after[d]: the chance after the best move / after the move played."""
    starts: np.ndarray
    roll: np.ndarray
    left: np.ndarray
    action: np.ndarray
    before: np.ndarray
    after: np.ndarray


@nb.njit(cache=True, parallel=True)
def pmf_mass(offset, length, data, out):
    """out[s] = the sum of state s's pmf in float64 (0 where unreachable: offset < 0)."""
    for s in nb.prange(offset.shape[0]):
        t = 0.0
        if offset[s] >= 0:
            for i in range(length[s]):
                t += data[offset[s] + i]
        out[s] = t


@nb.njit(cache=True)
def win_curve(lo, length, offset, data, keys, totals, me, G, H):
    """Fill G[:n] with the win share of sheet `me` as a function of its final score, from the other sheets'
    totals and turn-start states keys[k]; returns (glo, n): G[i] is for final score glo + i. Also the field's
    best score B (the highest of the other sheets): H[0, i] = P(B = glo + i), H[1, i] = G[i] - P(B < glo + i),
    the share of the ties at glo + i (what a final score of glo + i wins when B is that score)."""
    m = 0
    start = np.empty(MAX_SHEETS, dtype=np.int64)
    stop = np.empty(MAX_SHEETS, dtype=np.int64)
    base = np.empty(MAX_SHEETS, dtype=np.int64)
    glo = -(1 << 40)
    ghi = -(1 << 40)
    for k in range(keys.shape[0]):
        if k == me:
            continue
        s = keys[k]
        base[m] = offset[s]
        start[m] = totals[k] + lo[s]
        stop[m] = start[m] + length[s]            # one past the highest final score
        glo = max(glo, start[m])
        ghi = max(ghi, stop[m])
        m += 1
    if m == 0:
        return 0, 0
    n = ghi - glo
    cdf = np.zeros(MAX_SHEETS)                     # P(X_k < x) as x goes up
    for j in range(m):
        for x in range(start[j], min(glo, stop[j])):   # a sheet whose best is below glo: cdf 1 all along
            cdf[j] += data[base[j] + x - start[j]]
    c = np.empty(MAX_SHEETS + 1)
    for i in range(n):
        x = glo + i
        c[0] = 1.0
        for t in range(1, m + 1):
            c[t] = 0.0
        for j in range(m):
            b = 0.0
            if start[j] <= x < stop[j]:
                b = data[base[j] + x - start[j]]
            a = cdf[j]
            for t in range(j + 1, 0, -1):          # multiply by (a + b z)
                c[t] = c[t] * a + c[t - 1] * b
            c[0] *= a
            cdf[j] = a + b
        g = 0.0
        for t in range(m + 1):
            g += c[t] / (t + 1)
        G[i] = g
        H[1, i] = g - c[0]
        H[0, i] = -c[0]                            # P(B < x); P(B = x) = P(B < x + 1) - P(B < x) below
    for i in range(n - 1):
        H[0, i] -= H[0, i + 1]
    H[0, n - 1] += 1.0                             # P(B < ghi) = 1
    return glo, n


@nb.njit(cache=True, inline="always")
def curve_at(G, glo, n, y):
    """G at a score y that need not be whole: linear between the whole scores around it (0 below the curve,
    1 above it)."""
    f = np.floor(y)
    t = y - f
    k = int(f) - glo
    g0 = 0.0 if k < 0 else (1.0 if k >= n else G[k])
    g1 = 0.0 if k + 1 < 0 else (1.0 if k + 1 >= n else G[k + 1])
    return g0 + t * (g1 - g0)


@nb.njit(cache=True, inline="always")
def _window(G, glo, n, data, o, m, first):
    """Sum over i < m of data[o + i] G(first + i) (G 0 below the curve, 1 above it)."""
    i0 = min(max(glo - first, 0), m)         # entries below i0 score under glo: G = 0
    i1 = min(max(glo + n - first, i0), m)    # entries from i1 on score above the curve: G = 1
    d = first - glo
    total = 0.0
    for i in range(i0, i1):
        total += data[o + i] * G[d + i]
    for i in range(i1, m):
        total += data[o + i]
    return total


@nb.njit(cache=True, inline="always")
def _field_terms(H, glo, n, data, o, m, first, mass, acc, fold):
    """The oracle's terms of one own future (pmf data[o:o + m] for final scores first, first + 1, ...; its sum
    `mass`): a(t) = (P(B = t) P(own > t) + H[1, t] P(own = t)) / mass for t = glo + i, i < n, B the field's
    best score (`win_curve`'s H). fold: acc[i] = max(acc[i], a(t)); else acc[i] = a(t)."""
    tail = 0.0
    for i in range(max(glo + n - first, 0), m):          # own scores above the field's highest
        tail += data[o + i]
    for i in range(n - 1, -1, -1):
        j = glo + i - first
        p = data[o + j] if 0 <= j < m else 0.0
        a = (H[0, i] * tail + H[1, i] * p) / mass
        acc[i] = max(acc[i], a) if fold else a
        tail += p


@nb.njit(cache=True, inline="always")
def chance_after(C, P, own, s2, x0, mean):
    """Sum over i of D_s2[i] G(x0 + lo[s2] + i) / mass[s2]: the win chance after a move that ends the turn at
    s2 with a total of x0. Dividing by the pmf's own sum (1 within the float32 rounding, about 1e-7) makes a
    certain win exactly 1 whatever the state, so the `TIE` term (1e-12 a point) decides between such moves.

    C.spreads: the deciding sheet's own future scaled around its expected final score `mean` (x0 plus the
    state's value): with spread w the final score x is read as mean + w (x - mean), G taken between whole
    scores (`curve_at`); the chance is the best over the spreads given. [1.0]: the points player's future as
    it is; the agent's factors per table size are `agents.strong.spread_for`.

    own: more futures the deciding sheet could play (`OwnFutures`), the distributions of other whole policies
    (`risk`), and the oracle weight beta: the chance is the
    best over the points future and these (each a strategy the sheet could commit to from s2; deciding again
    each turn only does better), a lower bound of what adaptive play reaches. With beta > 0 (and F > 0, and
    other sheets) it moves towards the oracle's chance, sum over t of max over the futures of
    P(B = t) P(own > t) + (the tie share) P(own = t), B the field's best score (H, `win_curve`): a future
    chosen knowing where the field ends, an upper-style estimate; the chance is lower + beta (oracle - lower).
    With a single future both are the same.
    C: the table's `ChanceCurve` (G, H, glo, n, spreads, acc); P: the points policy's `distribution.Pmfs`; own: the
    `OwnFutures`."""
    G, H, glo, n, spreads, acc = C.G, C.H, C.glo, C.n, C.spreads, C.acc
    lo, length, offset, data, mass = P.lo, P.length, P.offset, P.data, P.mass
    first = x0 + lo[s2]
    o = offset[s2]
    m = length[s2]
    best = -1.0
    for q in range(spreads.shape[0]):
        w = spreads[q]
        if w != 1.0 and n > 0:             # (no other sheet, or a target: nothing to widen for)
            total = 0.0
            for i in range(m):
                total += data[o + i] * curve_at(G, glo, n, mean + w * (first + i - mean))
        else:
            total = _window(G, glo, n, data, o, m, first)
        best = max(best, total / mass[s2])
    olo, olength, ooffset, omass, beta = own.lo, own.length, own.offset, own.mass, own.beta
    data0, data1, data2 = own.data0, own.data1, own.data2
    for f in range(olo.shape[0]):
        odata = data0 if f == 0 else (data1 if f == 1 else data2)
        total = _window(G, glo, n, odata, ooffset[f, s2], olength[f, s2], x0 + olo[f, s2])
        best = max(best, total / omass[f, s2])
    if beta > 0.0 and n > 0 and olo.shape[0] > 0:
        _field_terms(H, glo, n, data, o, m, first, mass[s2], acc, False)
        for f in range(olo.shape[0]):
            odata = data0 if f == 0 else (data1 if f == 1 else data2)
            _field_terms(H, glo, n, odata, ooffset[f, s2], olength[f, s2], x0 + olo[f, s2], omass[f, s2], acc, True)
        oracle = 0.0
        for i in range(n):
            oracle += acc[i]
        best += beta * (oracle - best)
    return best


@nb.njit(cache=True)
def win_widget(M, V, P, own, C, s, total, stages, X):
    """The turn widget on win chances at turn-start state s of the deciding sheet (its total `total`), in the
    `WinWidget` X: X.S[L, r] for L <= stages, X.best[L, r], X.choice[r]; X.boxval[r, b] the chance after scoring
    roll r in box b (-inf where b is filled). C: the table's `ChanceCurve`."""
    T, space, gain = M.T, M.space, M.L.gain
    n_flag, n_upper = space.n_flag, space.n_upper
    flag = s % n_flag
    u = (s // n_flag) % n_upper
    mask = s // (n_flag * n_upper)
    opts, extra, Wv, done, boxval = X.opts, X.extra, X.Wv, X.done, X.boxval
    S, choice = X.S, X.choice
    box_face, yacht_box = T.box_face, T.yacht_box
    nbox = T.n_boxes
    for r in range(M.D.n_rolls):
        extra[r] = box_options(T, mask, flag == 1, r, opts[r])
    done[:, :] = False
    for r in range(M.D.n_rolls):
        e = extra[r]
        bestv = -1e300
        bb = -1
        for b in range(nbox):
            p = opts[r, b]
            if p < 0:
                boxval[r, b] = -np.inf
                continue
            if e == 0 and done[b, p]:
                v = Wv[b, p]
            else:
                nx = next_state(space, box_face, yacht_box, mask, u, flag, b, p)
                g = p + gain[b, u, p] + e
                v = chance_after(C, P, own, nx, total + g, total + g + V[nx]) + TIE * (g + V[nx])
                if e == 0:
                    Wv[b, p] = v
                    done[b, p] = True
            boxval[r, b] = v
            if v > bestv:
                bestv = v
                bb = b
        S[0, r] = bestv
        choice[r] = bb
    reroll_stages(M, S, X.K, X.kb, X.best, stages)


@nb.njit(cache=True)
def table_widget(M, V, P, own, I, j, target, stages, X):
    """The win-chance turn widget of table j of `I` (`Seats`): sheet I.mine[j] decides, every sheet k at
    turn-start state I.keys[j, k] with total I.totals[j, k] (target >= 0: play for a final score of at least
    `target` instead; I.spreads: see `chance_after`). Fills the `WinWidget` X as `win_widget` does, and X.opts /
    X.extra (the box table of every roll). Returns the table's `ChanceCurve` (`win_curve`, and the oracle's
    scratch), for more chances of this turn."""
    lo, length, offset, data = P.lo, P.length, P.offset, P.data
    keys, totals, me = I.keys[j], I.totals[j], I.mine[j]
    G = np.empty(P.span + 1)
    H = np.empty((2, P.span + 1))
    acc = np.empty(P.span + 1)
    if target >= 0:
        glo, n = target, 0
    else:
        glo, n = win_curve(lo, length, offset, data, keys, totals, me, G, H)
    C = ChanceCurve(G, H, glo, n, I.spreads, acc)
    win_widget(M, V, P, own, C, keys[me], totals[me], stages, X)
    return C


@nb.njit(cache=True, inline="always")
def _win_scratch(M, stages, S, boxval):
    """A `WinWidget` for `stages` re-roll stages with its stage values in S and box chances in boxval."""
    R, nbox, top, nk = M.D.n_rolls, M.T.n_boxes, M.L.gain.shape[2], M.D.n_keeps
    return WinWidget(np.empty((R, nbox), dtype=np.int32), np.empty(R, dtype=np.int32), np.empty((nbox, top)),
                     np.empty((nbox, top), dtype=np.bool_), S, np.zeros((stages + 1, R), dtype=np.int32),
                     np.empty(nk), np.empty(nk, dtype=np.int32), np.empty(R, dtype=np.int32), boxval)


@nb.njit(cache=True, parallel=True)
def win_plans(T, D, space, L, V, P, own, I, plans, chances):
    """The turn plan with the best chance to win of each table j of `I` (`Seats`). plans[j, L, r]: the move (Game
    encoding; a hold as its lowest pattern) with L re-rolls left and roll r; chances[j, L, r]: its chance by this
    estimate. P: the points policy's `distribution.Pmfs`; own: the `OwnFutures`; T, D, space, L: the parts of the
    rule set's `Model`. `win_tables` is its deliberate twin for the analysis: the same widget per table, keeping
    every box's chance where play keeps only the plan."""
    stages = plans.shape[1] - 1
    for j in nb.prange(I.keys.shape[0]):
        M = Model(T, D, space, L)
        X = _win_scratch(M, stages, chances[j], np.empty((D.n_rolls, T.n_boxes)))
        table_widget(M, V, P, own, I, j, I.targets[j], stages, X)
        write_plan(M, stages, X.best, X.choice, plans[j])


@nb.njit(cache=True, parallel=True)
def win_decisions(T, D, space, L, V, P, own, I, stages, Q):
    """The chance to win before and after each decision of stored games, by the estimate `win_plans` plays by.

    Q (`WinDecisions`): decisions Q.starts[g]:Q.starts[g + 1] are one turn of table g of `I` (`Seats`; its targets
    are not read); Q.before[d]: the chance after the best move (the position's chance); Q.after[d]: after the move
    played. Both carry the `TIE` term of the expected points (below 1e-9)."""
    n_upper, n_flag = space.n_upper, space.n_flag
    starts, roll, left, action, before, after = Q.starts, Q.roll, Q.left, Q.action, Q.before, Q.after
    box_face, yacht_box = T.box_face, T.yacht_box
    nbox = T.n_boxes
    holds = hold_actions_of(D)
    for g in nb.prange(I.keys.shape[0]):
        M = Model(T, D, space, L)
        gain, hold_keep = L.gain, D.hold_keep
        X = _win_scratch(M, stages, np.empty((stages + 1, D.n_rolls)), np.empty((D.n_rolls, nbox)))
        K = np.empty(D.n_keeps)
        C = table_widget(M, V, P, own, I, g, -1, stages, X)
        me = I.mine[g]
        s = I.keys[g, me]
        flag = s % n_flag
        u = (s // n_flag) % n_upper
        mask = s // (n_flag * n_upper)
        for d in range(starts[g], starts[g + 1]):
            r, lf, a = roll[d], left[d], action[d]
            before[d] = X.S[lf, r]
            if a < holds:
                keep_values(M, X.S[lf - 1], K)
                after[d] = K[hold_keep[r, a]]
            else:
                b = box_of_action(nbox, a, holds)[1]
                p = X.opts[r, b]
                nx = next_state(space, box_face, yacht_box, mask, u, flag, b, p)
                x = p + gain[b, u, p] + X.extra[r]
                x0 = I.totals[g, me] + x
                after[d] = chance_after(C, P, own, nx, x0, x0 + V[nx]) + TIE * (x + V[nx])


@nb.njit(cache=True, parallel=True)
def win_tables(T, D, space, L, V, P, own, I, chances, boxvals):
    """The chances of every move of a turn at each table j of `I` (inputs as `win_plans`): chances[j, L, r] the
    best chance with L re-rolls left and roll r, boxvals[j, r, b] the chance after scoring roll r in box b (-inf:
    filled). A hold's chance is read from chances[j, L - 1] (`keep_values`). The twin of `win_plans` for the
    analysis: the same widget per table, keeping every box's chance where play keeps only the plan."""
    stages = chances.shape[1] - 1
    for j in nb.prange(I.keys.shape[0]):
        M = Model(T, D, space, L)
        X = _win_scratch(M, stages, chances[j], boxvals[j])
        table_widget(M, V, P, own, I, j, I.targets[j], stages, X)


@nb.njit(cache=True, inline="always")
def chance_row(M, chances, boxvals, t, r, lf, holds, K, row):
    """row[a] = the chance of action a at one decision (table t of `win_tables`' arrays, roll r, lf re-rolls
    left): a hold's from chances[t, lf - 1] (`keep_values`; -inf with no re-roll left), a box's from boxvals
    (-inf: filled). Every hold pattern gets its keep's chance, repeated patterns included."""
    if lf > 0:
        keep_values(M, chances[t, lf - 1], K)
        for h in range(holds):
            row[h] = K[M.D.hold_keep[r, h]]
    else:
        for h in range(holds):
            row[h] = -np.inf
    for b in range(boxvals.shape[2]):
        row[holds + b] = boxvals[t, r, b]


@nb.njit(cache=True)
def win_move_chances(M, chances, boxvals, Q, out):
    """out[j, a] = the chance of action a at decision j of Q (as `win_dial_moves` reads Q), -inf where a is not
    legal; a repeated hold pattern gets its keep's chance."""
    holds = hold_actions_of(M.D)
    K = np.empty(M.D.n_keeps)
    for j in range(Q.rows.shape[0]):
        chance_row(M, chances, boxvals, Q.rows[j], Q.rolls[j], Q.lefts[j], holds, K, out[j])


@nb.njit(cache=True)
def win_dial_moves(M, chances, boxvals, Q, temperature, actions, losses, decided):
    """The strength dial on chances to win: decision j of Q (`dial.Decisions`: table Q.rows[j] of `win_tables`'
    arrays, roll Q.rolls[j], Q.lefts[j] re-rolls left; its keys are not read) draws its move from the softmax over
    its legal moves' chances at `temperature` (in chance; `policy.pick_row`: best first, inverse CDF with
    Q.uniforms[j]); losses[j]: the chance the move gives up against the best. decided[j]: every legal move has the
    same chance (within `DECIDED`: a won or lost position, or no opponent), where the chances cannot tell the moves
    apart."""
    rows, rolls, lefts, uniforms = Q.rows, Q.rolls, Q.lefts, Q.uniforms
    first_hold = M.L.first_hold
    holds = hold_actions_of(M.D)
    n_act = holds + boxvals.shape[2]
    row = np.empty(n_act)
    K = np.empty(M.D.n_keeps)
    val, w, act = np.empty(n_act), np.empty(n_act), np.empty(n_act, dtype=np.int64)
    for j in range(rows.shape[0]):
        r = rolls[j]
        chance_row(M, chances, boxvals, rows[j], r, lefts[j], holds, K, row)
        top, low = -np.inf, np.inf
        for a in range(n_act):
            if row[a] != -np.inf and (a >= holds or first_hold[r, a]):
                top = max(top, row[a])
                low = min(low, row[a])
        decided[j] = top - low < DECIDED
        actions[j], losses[j] = pick_row(row, r, temperature, uniforms[j], first_hold, val, w, act)
