"""What a learned policy is fed, and which holds it may choose.

Play-time half of the training options (`agents.training.config`), needing only numpy, so a trained
model plays without stable-baselines3:

* the observation -- a model trained alone (`num_players: 1`, the default) sees its own sheet in the
  solitaire layout of `yacht_env.obs`, wherever it plays; a model trained at a table of several seats
  sees, as `YachtVs-v0` shows it, its sheet and every other sheet (the seat layout of
  `yacht_env.table_obs`), so it plays only at tables with as many sheets as it was trained for.
* `dice_onehot: true` -- the policy's input is the flat observation (`yacht_env.obs`) followed by 34
  entries: [0:30] die i of the sorted dice shows face f, 1 at 6 * i + (f - 1); [30:34] die i + 1 shows
  the same face as die i. A hold action is a set of die positions, and the flat observation gives each
  die as face / 6, so "keep every six" or "keep one die of each face" is a hard function of it; with
  these entries both are nearly linear.
* `distinct_holds: true` -- one hold pattern per keep: dice are sorted, so with 2,2,5,5,6 holding die 0
  or die 1 keeps the same multiset {2}; `DISTINCT[r, h]` is True for the smallest pattern h giving each
  keep of roll r (20.4 distinct keeps per roll on average, against 31 patterns).
"""
import numpy as np

from yacht_env.actions import NUM_HOLDS
from yacht_env.dice import HOLD_KEEP, NUM_ROLLS
from yacht_env.obs import obs_size, observe
from yacht_env.table_obs import num_extra, seat_observations

N_EXTRA = 34
_SLOT = 6 * np.arange(5)


def dice_features(dice: np.ndarray) -> np.ndarray:
    """(n, 34) float32 features of rows of sorted dice (faces 1..6)."""
    dice = np.asarray(dice, np.int64)
    n = len(dice)
    onehot = np.zeros((n, 30), np.float32)
    onehot[np.arange(n)[:, None], _SLOT + dice - 1] = 1.0
    same = (dice[:, 1:] == dice[:, :-1]).astype(np.float32)
    return np.concatenate([onehot, same], axis=1)


def trained_sheets(rules, config: dict) -> int:
    """Sheets the observation of a policy trained with this config (a dict) covers: 1 when it was trained
    alone, else the sheets of its training table (`num_players` seats under `rules`, the rules it was
    trained under; teams share a sheet). ValueError when the rules do not seat that many players."""
    players = config.get("num_players", 1)
    return 1 if players == 1 else rules.check_players(players)


def observation_size(rules, sheets: int) -> int:
    """Entries of the observation (before the extra features) of a policy that covers `sheets` sheets."""
    return obs_size(rules) + (num_extra(sheets) if sheets > 1 else 0)


def observations(state, rows, seats, dice, sheets: int) -> np.ndarray:
    """The observations of the seats `seats` to move at tables `rows` of an engine state, as a policy
    covering `sheets` sheets sees them: the solitaire layout of `yacht_env.obs` for 1, else the seat
    layout of `yacht_env.table_obs` (the one `YachtVs-v0` gives; `dice`: the dice in hand)."""
    if sheets == 1:
        return observe(state, rows)
    return seat_observations(state, rows, seats, dice)


def extra_size(config: dict) -> int:
    """Entries a policy trained with this config (as a dict) sees beyond the flat observation."""
    return N_EXTRA if config.get("dice_onehot", False) else 0


def policy_input(obs: np.ndarray, dice: np.ndarray, config: dict) -> np.ndarray:
    """What a policy trained with this config is fed: rows of flat observations (and the dice they show)."""
    obs = np.asarray(obs, np.float32)
    if not config.get("dice_onehot", False):
        return obs
    return np.concatenate([obs, dice_features(dice)], axis=1)


def _distinct() -> np.ndarray:
    out = np.zeros((NUM_ROLLS, NUM_HOLDS), bool)
    for r in range(NUM_ROLLS):
        seen = set()
        for h in range(NUM_HOLDS):
            if HOLD_KEEP[r, h] not in seen:
                seen.add(HOLD_KEEP[r, h])
                out[r, h] = True
    out.setflags(write=False)
    return out


DISTINCT = _distinct()


def narrow_masks(masks: np.ndarray, rolls: np.ndarray) -> np.ndarray:
    """Bool masks with every hold that repeats an earlier hold's keep switched off (rolls: roll indices)."""
    out = np.array(masks, dtype=bool, copy=True)
    out[:, :NUM_HOLDS] &= DISTINCT[rolls]
    return out
