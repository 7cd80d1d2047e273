"""Risk-seeking solitaire play: the policy that maximises E[exp(risk * final score)] (exponential utility).

For risk > 0 the policy prefers a wider spread of final scores to a higher mean, as far as `risk` says; it
is a whole strategy a player could commit to, and `distribution.build(..., risk=risk)` gives the
distribution of the score it leaves to come at every turn-start state (the "own futures" of
`winning.chance_after`, which reads the best of several such policies).

Values are kept as certainty equivalents: U[s] = log(E[exp(risk * future points)]) / risk, the points that
would be worth as much for sure. A box is then chosen by its points + bonuses + U of the state it leads to
(the exponential is monotone), and the re-roll stages take expectations of the utility
exp(risk * (that - ref)), ref the best box value of the turn's rolls (so no exponent is positive and
nothing overflows): `to_utility` between the widget's scoring stage and its re-roll stages, the solver's
lane widget otherwise (`lanes`).
"""
import numba as nb
import numpy as np

from .lanes import LANES, fill_lanes, lane_scratch, reroll_lanes, score_lanes, start_lanes
from .space import check_saved_rolls, masks_by_layer, reachable_upper
from .widget import Model, box_table, prepare

CHUNK = 8
# the risks taken. Below MIN_RISK the certainty equivalents lose their precision: log(E[exp(r x)]) / r carries
# a rounding of about 1e-16 / r points (1e-7 at 1e-9), and at 1e-300 every exp(r x) rounds to 1 outright. At
# MAX_RISK a score one point lower is already worth e^-1 of it, and the policy barely moves beyond (a small rule
# set's mean: 95.3 at risk 1, 94.9 at 10, against 130.8 played for points); the figures stay finite at any risk
# (`to_utility` keeps every exponent <= 0).
MIN_RISK, MAX_RISK = 1e-9, 1.0


def check_risk(risk) -> float:
    """`risk` as a float, when it is a number from MIN_RISK to MAX_RISK (0 would be the points policy itself,
    which the values and `distribution.build` give without a risk); ValueError saying what is allowed
    otherwise."""
    try:
        value = float(risk)
    except (TypeError, ValueError):
        value = float("nan")
    if not MIN_RISK <= value <= MAX_RISK:           # also refuses nan
        raise ValueError(f"risk must be a number from {MIN_RISK:g} to {MAX_RISK:g}, got {risk!r}")
    return value


@nb.njit(cache=True)
def to_utility(S0, n, risk, ref):
    """S0[r, j] (the scoring stage of lanes j < n: points + bonuses + certainty equivalent) becomes the utility
    exp(risk * (S0[r, j] - ref[j])), ref[j] the lane's best S0 (so every entry is in (0, 1])."""
    for j in range(n):
        m = -1e300
        for r in range(S0.shape[0]):
            m = max(m, S0[r, j])
        ref[j] = m
        for r in range(S0.shape[0]):
            S0[r, j] = np.exp(risk * (S0[r, j] - m))


@nb.njit(cache=True, parallel=True)
def _risk_layer(T, D, space, L, masks, reach, n_stages, risk, U):
    """Fill U (certainty equivalents) for every reachable state whose mask is in `masks` (T, D, space, L: the parts
    of the rule set's `Model`).

    The loop over (mask, flag) and lanes is `backward.solve_layer`'s, with the utility taken between the
    scoring stage and the re-roll stages; the two are kept apart so the value solve stays as measured."""
    n_upper, n_flag = space.n_upper, space.n_flag
    yacht_box = T.yacht_box
    for i in nb.prange(masks.shape[0] * n_flag):
        M = Model(T, D, space, L)
        mask = masks[i // n_flag]
        flag = i % n_flag
        if flag == 1 and not (mask >> yacht_box) & 1:
            continue  # the flag is set only by filling the Yacht box
        X = lane_scratch(M, n_stages)
        ref = np.empty(LANES)
        box_table(M, mask, flag == 1, X.opts, X.extra)
        u = 0
        while u < n_upper:
            n, u = fill_lanes(reach, mask, u, n_upper, X.us)
            if n == 0:
                break
            score_lanes(M, U, mask, flag, n, X)
            to_utility(X.S[0], n, risk, ref)
            reroll_lanes(M, X, n_stages)
            start_lanes(M, X, n_stages)
            for j in range(n):
                U[(mask * n_upper + X.us[j]) * n_flag + flag] = ref[j] + np.log(X.start[j]) / risk


def risk_values(rules, space, risk: float) -> np.ndarray:
    """The certainty equivalents U of the exponential-utility policy with `risk` (MIN_RISK to MAX_RISK,
    `check_risk`), every reachable state of a one-column rule set (`space`: its solver's state space;
    unreachable states hold 0)."""
    risk = check_risk(risk)
    check_saved_rolls(rules, "risk-taking play (the exponential-utility policy)")
    T = rules.tables
    reach = reachable_upper(T, space)
    U = np.zeros(space.size)
    M = prepare(T, space)
    layers = masks_by_layer(T.n_boxes, spread=True)
    for layer in range(T.n_boxes - 1, -1, -1):
        with nb.parallel_chunksize(CHUNK):
            _risk_layer(M.T, M.D, M.space, M.L, layers[layer], reach, rules.rolls_per_turn - 1, float(risk), U)
    U.setflags(write=False)   # read-only as a solved table's values (`solve`): one compiled version of each kernel
    return U
