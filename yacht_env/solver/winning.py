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
import numba as nb
import numpy as np

from ..core.actions import NUM_HOLDS, box_of_action
from ..core.dice import HOLD_KEEP, NUM_KEEPS, NUM_ROLLS
from ..core.kernels import box_options
from .dial import pick_row
from .plans import write_plan
from .widget import keep_values, next_state, reroll_stages

TIE = 1e-12          # weight of one expected point beside the chance of winning (breaks exact ties only)
MAX_SHEETS = 8
MAX_FUTURES = 3      # own futures `chance_after` can weigh besides the points one
DECIDED = 1e-9       # moves whose chances differ by less are alike to the dial (`win_dial_moves`)


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
def chance_after(G, H, glo, n, lo, length, offset, data, mass, own, s2, x0, mean, spreads, acc):
    """Sum over i of D_s2[i] G(x0 + lo[s2] + i) / mass[s2]: the win chance after a move that ends the turn at
    s2 with a total of x0. Dividing by the pmf's own sum (1 within the float32 rounding, about 1e-7) makes a
    certain win exactly 1 whatever the state, so the `TIE` term (1e-12 a point) decides between such moves.

    spreads: the deciding sheet's own future scaled around its expected final score `mean` (x0 plus the
    state's value): with spread w the final score x is read as mean + w (x - mean), G taken between whole
    scores (`curve_at`); the chance is the best over the spreads given. [1.0]: the points player's future as
    it is; the agent's factors per table size are `agents.strong.spread_for`.

    own: more futures the deciding sheet could play, F <= `MAX_FUTURES` of them (lo, length, offset, mass of
    shape (F, states), then `MAX_FUTURES` pmf arrays, future f's pmfs in the f-th, the others unused; F = 0:
    none), the distributions of other whole policies (`risk`), and the oracle weight beta: the chance is the
    best over the points future and these (each a strategy the sheet could commit to from s2; deciding again
    each turn only does better), a lower bound of what adaptive play reaches. With beta > 0 (and F > 0, and
    other sheets) it moves towards the oracle's chance, sum over t of max over the futures of
    P(B = t) P(own > t) + (the tie share) P(own = t), B the field's best score (H, `win_curve`): a future
    chosen knowing where the field ends, an upper-style estimate; the chance is lower + beta (oracle - lower).
    With a single future both are the same. acc: scratch of at least n.
    (Separate arrays, not a tuple of them: numba's parallel loops take no nested tuples.)"""
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
    olo, olength, ooffset, omass, data0, data1, data2, beta = own
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
def win_widget(T, V, space, prep, dist, own, mask, u, flag, total, G, H, glo, n, spreads, stages, opts, extra, Wv, done,
               S, K, kb, best, choice, boxval, acc):
    """The turn widget on win chances at one sheet state: S[L, r] for L <= stages, best[L, r], choice[r];
    boxval[r, b] the chance after scoring roll r in box b (-inf where b is filled)."""
    n_upper, n_flag, threshold, yacht_points = space
    gain = prep[0]
    lo, length, offset, data, mass = dist
    nbox = T.n_boxes
    for r in range(NUM_ROLLS):
        extra[r] = box_options(T, mask, flag == 1, r, opts[r])
    done[:, :] = False
    for r in range(NUM_ROLLS):
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
                nx = next_state(T.box_face, T.yacht_box, n_upper, n_flag, threshold, yacht_points, mask, u, flag, b,
                                p)
                g = p + gain[b, u, p] + e
                v = (chance_after(G, H, glo, n, lo, length, offset, data, mass, own, nx, total + g,
                                  total + g + V[nx], spreads, acc) + TIE * (g + V[nx]))
                if e == 0:
                    Wv[b, p] = v
                    done[b, p] = True
            boxval[r, b] = v
            if v > bestv:
                bestv = v
                bb = b
        S[0, r] = bestv
        choice[r] = bb
    reroll_stages(S, K, kb, best, stages)


@nb.njit(cache=True)
def table_widget(T, V, space, prep, dist, own, span, keys, totals, me, target, spreads, stages, opts, extra, S, best,
                 choice, boxval):
    """The win-chance turn widget of one table: sheet `me` decides, every sheet k at turn-start state keys[k]
    with total totals[k] (target >= 0: play for a final score of at least `target` instead; spreads: see
    `chance_after`). Fills S[L, r] (the best chance with L re-rolls left and roll r), best, choice, boxval, and
    opts / extra (the box table of every roll), as `win_widget`. Returns (glo, n, G, H, acc): the curve and the
    field's best score (`win_curve`) and the oracle's scratch (`chance_after`), for more chances of this turn."""
    n_upper, n_flag = space[0], space[1]
    nbox, top = T.n_boxes, prep[0].shape[2]
    lo, length, offset, data, mass = dist
    G = np.empty(span + 1)
    H = np.empty((2, span + 1))
    acc = np.empty(span + 1)
    if target >= 0:
        glo, n = target, 0
    else:
        glo, n = win_curve(lo, length, offset, data, keys, totals, me, G, H)
    s = keys[me]
    flag = s % n_flag
    u = (s // n_flag) % n_upper
    mask = s // (n_flag * n_upper)
    Wv = np.empty((nbox, top))
    done = np.empty((nbox, top), dtype=np.bool_)
    K = np.empty(NUM_KEEPS)
    kb = np.empty(NUM_KEEPS, dtype=np.int32)
    win_widget(T, V, space, prep, dist, own, mask, u, flag, totals[me], G, H, glo, n, spreads, stages, opts, extra, Wv,
               done, S, K, kb, best, choice, boxval, acc)
    return glo, n, G, H, acc


@nb.njit(cache=True, parallel=True)
def win_plans(T, V, space, prep, dist, own, span, keys, totals, mine, targets, spreads, hold_of, plans, chances):
    """The turn plan with the best chance to win of each table j: its deciding sheet mine[j], every sheet
    at turn-start state keys[j, k] with total totals[j, k] (the deciding sheet's key is its state at the
    start of this turn). targets[j] >= 0 plays for a final score of at least targets[j] instead of the
    other sheets. spreads: the deciding sheet's future scaled (`chance_after`). plans[j, L, r]: the move (Game
    encoding; a hold as its lowest pattern) with L re-rolls left and roll r; chances[j, L, r]: its chance by this
    estimate. span: the longest pmf. `win_tables` is its deliberate twin for the analysis: the same widget per
    table, keeping every box's chance where play keeps only the plan."""
    nbox = T.n_boxes
    stages = plans.shape[1] - 1
    for j in nb.prange(keys.shape[0]):
        opts = np.empty((NUM_ROLLS, nbox), dtype=np.int32)
        extra = np.empty(NUM_ROLLS, dtype=np.int32)
        best = np.zeros((stages + 1, NUM_ROLLS), dtype=np.int32)
        choice = np.empty(NUM_ROLLS, dtype=np.int32)
        boxval = np.empty((NUM_ROLLS, nbox))
        table_widget(T, V, space, prep, dist, own, span, keys[j], totals[j], mine[j], targets[j], spreads, stages,
                     opts, extra, chances[j], best, choice, boxval)
        write_plan(T, stages, hold_of, best, choice, plans[j])


@nb.njit(cache=True, parallel=True)
def win_decisions(T, V, space, prep, dist, own, span, keys, totals, mine, spreads, stages, starts, roll, left, action,
                  before, after):
    """The chance to win before and after each decision of stored games, by the estimate `win_plans` plays by.

    Decisions starts[g]:starts[g + 1] are one turn of table g (inputs as `win_plans`: keys[g], totals[g],
    mine[g], spreads); decision d saw roll[d] with left[d] re-rolls left and played action[d] (Game encoding).
    before[d]: the chance after the best move (the position's chance); after[d]: after the move played.
    Both carry the `TIE` term of the expected points (below 1e-9)."""
    n_upper, n_flag, threshold, yacht_points = space
    gain = prep[0]
    lo, length, offset, data, mass = dist
    nbox = T.n_boxes
    for g in nb.prange(keys.shape[0]):
        opts = np.empty((NUM_ROLLS, nbox), dtype=np.int32)
        extra = np.empty(NUM_ROLLS, dtype=np.int32)
        best = np.zeros((stages + 1, NUM_ROLLS), dtype=np.int32)
        choice = np.empty(NUM_ROLLS, dtype=np.int32)
        S = np.empty((stages + 1, NUM_ROLLS))
        K = np.empty(NUM_KEEPS)
        boxval = np.empty((NUM_ROLLS, nbox))
        me = mine[g]
        glo, n, G, H, acc = table_widget(T, V, space, prep, dist, own, span, keys[g], totals[g], me, -1, spreads,
                                         stages, opts, extra, S, best, choice, boxval)
        s = keys[g, me]
        flag = s % n_flag
        u = (s // n_flag) % n_upper
        mask = s // (n_flag * n_upper)
        for d in range(starts[g], starts[g + 1]):
            r, L, a = roll[d], left[d], action[d]
            before[d] = S[L, r]
            if a < NUM_HOLDS:
                keep_values(S[L - 1], K)
                after[d] = K[HOLD_KEEP[r, a]]
            else:
                b = box_of_action(nbox, a)[1]
                p = opts[r, b]
                nx = next_state(T.box_face, T.yacht_box, n_upper, n_flag, threshold, yacht_points, mask, u, flag, b,
                                p)
                x = p + gain[b, u, p] + extra[r]
                x0 = totals[g, me] + x
                after[d] = (chance_after(G, H, glo, n, lo, length, offset, data, mass, own, nx, x0, x0 + V[nx],
                                         spreads, acc) + TIE * (x + V[nx]))


@nb.njit(cache=True, parallel=True)
def win_tables(T, V, space, prep, dist, own, span, keys, totals, mine, targets, spreads, chances, boxvals):
    """The chances of every move of a turn at each table j (inputs as `win_plans`): chances[j, L, r] the best
    chance with L re-rolls left and roll r, boxvals[j, r, b] the chance after scoring roll r in box b (-inf:
    filled). A hold's chance is read from chances[j, L - 1] (`keep_values`). The twin of `win_plans` for the
    analysis: the same widget per table, keeping every box's chance where play keeps only the plan."""
    nbox = T.n_boxes
    stages = chances.shape[1] - 1
    for j in nb.prange(keys.shape[0]):
        opts = np.empty((NUM_ROLLS, nbox), dtype=np.int32)
        extra = np.empty(NUM_ROLLS, dtype=np.int32)
        best = np.zeros((stages + 1, NUM_ROLLS), dtype=np.int32)
        choice = np.empty(NUM_ROLLS, dtype=np.int32)
        table_widget(T, V, space, prep, dist, own, span, keys[j], totals[j], mine[j], targets[j], spreads, stages,
                     opts, extra, chances[j], best, choice, boxvals[j])


@nb.njit(cache=True)
def win_dial_moves(chances, boxvals, rows, rolls, lefts, temperature, uniforms, first_hold, actions, losses, decided):
    """The strength dial on chances to win: decision j (table rows[j] of `win_tables`' arrays, roll rolls[j],
    lefts[j] re-rolls left) draws its move from the softmax over its legal moves' chances at `temperature`
    (in chance; `policy.pick_row`: best first, inverse CDF with uniforms[j]); losses[j]: the chance the move
    gives up against the best. decided[j]: every legal move has the same chance (within `DECIDED`: a won or
    lost position, or no opponent), where the chances cannot tell the moves apart."""
    nbox = boxvals.shape[2]
    n_act = NUM_HOLDS + nbox
    row = np.empty(n_act)
    K = np.empty(NUM_KEEPS)
    val, w, act = np.empty(n_act), np.empty(n_act), np.empty(n_act, dtype=np.int64)
    for j in range(rows.shape[0]):
        t, r, L = rows[j], rolls[j], lefts[j]
        if L > 0:
            keep_values(chances[t, L - 1], K)
            for h in range(NUM_HOLDS):
                row[h] = K[HOLD_KEEP[r, h]]
        else:
            for h in range(NUM_HOLDS):
                row[h] = -np.inf
        top, low = -np.inf, np.inf
        for b in range(nbox):
            row[NUM_HOLDS + b] = boxvals[t, r, b]
        for a in range(n_act):
            if row[a] != -np.inf and (a >= NUM_HOLDS or first_hold[r, a]):
                top = max(top, row[a])
                low = min(low, row[a])
        decided[j] = top - low < DECIDED
        actions[j], losses[j] = pick_row(row, r, temperature, uniforms[j], first_hold, val, w, act)
