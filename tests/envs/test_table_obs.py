"""The seat layout of `yacht_env.envs.table_obs`: every entry after the solitaire part is the documented
function of the sheets, the flat and the Dict forms agree, at every decision of random games."""
import numpy as np
import pytest

from yacht_env.envs.obs import max_total, obs_size
from yacht_env.rules import load
from yacht_env.envs.table_obs import PER_OTHER, num_extra
from yacht_env.envs.vs_env import YachtVsEnv


@pytest.mark.parametrize("rules, players, seat", [
    (load("yacht"), 4, 2),
    (load("classic"), 3, 0),                 # no upper bonus: its progress entries stay 0
    (load("yacht", columns=2), 3, 1),        # means over the columns
    (load("yacht", teams=2), 4, 3),          # sheets are the teams
])
def test_other_sheets_entries(rules, players, seat):
    flat = YachtVsEnv(rules, num_players=players, opponents="greedy", seat=seat)
    full = YachtVsEnv(rules, num_players=players, opponents="greedy", seat=seat, obs_mode="dict")
    sheets = flat.num_sheets
    assert flat.observation_space.shape == (obs_size(rules) + num_extra(sheets),)
    assert num_extra(sheets) == 1 + PER_OTHER * (sheets - 1)
    rng = np.random.default_rng(players)
    t, scale = rules.tables, max_total(rules)
    for episode in range(2):
        x, _ = flat.reset(seed=11 + episode)
        d, _ = full.reset(seed=11 + episode)
        checked = 0
        while True:
            n = obs_size(rules)
            assert x[n] == pytest.approx(min(d["totals"][0] / scale, 1.0))
            for k in range(1, sheets):
                at = n + 1 + PER_OTHER * (k - 1)     # after this sheet's total at n
                upper = np.minimum(d["upper"][k] / t.upper_threshold, 1.0).mean() if t.upper_bonus else 0.0
                want = [min(d["totals"][k] / scale, 1.0), d["filled"][k] / rules.rounds, upper,
                        d["yacht_open"][k] / rules.columns]
                assert x[at:at + PER_OTHER] == pytest.approx(want, abs=1e-6), (k, checked)
                assert 0 <= d["yacht_open"][k] <= rules.columns
            checked += 1
            mask = flat.action_masks()
            a = int(rng.choice(np.flatnonzero(mask)))
            x, _, over, _, _ = flat.step(a)
            d, _, over2, _, _ = full.step(a)
            assert over == over2
            if over:
                break
        assert checked >= rules.rounds * sheets // players   # at least one decision per own turn
    assert full.observation_space.contains(d)
    if t.upper_bonus:
        assert d["upper"].max() > 0
    flat.close()
    full.close()
