"""Distinct holds: one hold pattern per keep, found from the roll (and, in training, from the observation's dice)."""
import numpy as np

from yacht_env.envs.options import DISTINCT, narrow_masks, rolls_of_obs
from yacht_env.core.actions import NUM_HOLDS
from yacht_env.core.dice import HOLD_KEEP, roll_index
from yacht_env.envs.obs import DICE, obs_size
from yacht_env.rules import load


def _obs(dice):
    o = np.zeros((1, obs_size(load("yacht"))), np.float32)
    o[0, DICE] = np.array(dice) / 6.0
    return o


def test_one_hold_per_keep():
    for r in range(252):
        keeps = HOLD_KEEP[r, :NUM_HOLDS]
        assert len(set(keeps[DISTINCT[r]])) == DISTINCT[r].sum() == len(set(keeps))


def test_pairs_lose_their_duplicates():
    r = roll_index([2, 2, 5, 5, 6])
    assert rolls_of_obs(_obs([2, 2, 5, 5, 6]))[0] == r
    # keeps of {2,2,5,5,6}: 3 x 3 x 2 = 18 multisets, minus holding all five (not a hold action)
    assert DISTINCT[r].sum() == 17
    assert DISTINCT[r, 0b00001] and not DISTINCT[r, 0b00010]   # one 2: die 0, not die 1
    assert DISTINCT[roll_index([1, 2, 3, 4, 6])].all()


def test_narrow_masks_keeps_boxes_and_spent_rolls():
    mask = np.ones((1, NUM_HOLDS + 13), np.int8)
    out = narrow_masks(mask, rolls_of_obs(_obs([3, 3, 3, 3, 3])))
    assert out.dtype == bool and out[0, NUM_HOLDS:].all()
    assert out[0, :NUM_HOLDS].sum() == 5                        # keep 0..4 threes
    mask[0, :NUM_HOLDS] = 0
    assert not narrow_masks(mask, [roll_index([3, 3, 3, 3, 3])])[0, :NUM_HOLDS].any()
