"""The ladder random < easy < normal < strong under every preset and with 1, 2 and 4 rolls per turn: each
step wins at least 60% of its games head-to-head with the 95% interval above 50% (a smaller version of
`yacht levels`: 300 deals per step, on other dice than the levels were calibrated on)."""
import pytest
from tests.five_dice import five_dice_presets
from tests.solver_tables import solve_once, temp_cache

from agents.evaluation import head_to_head
from agents.registry import make_agent
from yacht_env.rules import load

LADDER = ("random", "easy", "normal", "strong")
CONFIGS = [(p, {}) for p in five_dice_presets()] + [("yacht", {"rolls_per_turn": k}) for k in (1, 2, 4)]
DEALS = 300
# the presets' levels ship with the package; other rules calibrate both levels first (a minute or more each)
PARAMS = [pytest.param(n, o, id=f"{n}-{o}" if o else n, marks=[pytest.mark.slow] if o else []) for n, o in CONFIGS]


@pytest.mark.parametrize("name,overrides", PARAMS)
def test_each_step_of_the_ladder_holds(name, overrides):
    rules = load(name, **overrides)
    with temp_cache():
        solve_once(rules)
        agents = {spec: make_agent(spec) for spec in LADDER}
        for lower, upper in zip(LADDER, LADDER[1:]):
            h = head_to_head(agents[upper], agents[lower], rules, DEALS, seed=0, progress=False)
            assert h["win_rate_a"] >= 0.6 and h["ci95"][0] > 0.5, (upper, lower, h)
