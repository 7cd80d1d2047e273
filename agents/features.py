"""What a learned policy is fed, and which holds it may choose.

Play-time half of the training options (`agents.training.config`), needing only numpy, so a trained
model plays without stable-baselines3:

* the observation -- a model trained alone (`num_players: 1`, the default) sees its own sheet in the
  solitaire layout of `yacht_env.envs.obs`, wherever it plays; a model trained at a table of several seats
  sees, as `YachtVs-v0` shows it, its sheet and every other sheet (the seat layout of
  `yacht_env.envs.table_obs`), so it plays only at tables with as many sheets as it was trained for.
* `dice_onehot: true` -- the policy's input is the flat observation (`yacht_env.envs.obs`) followed by the
  7n - 1 entries of the env option `dice_obs="onehot"` for the rules' n dice (34 with five, 41 with six;
  `yacht_env.envs.options`, where the layout is).
* `rule_knobs: true` -- then the 12 entries of the env option `rule_obs="knobs"` (`yacht_env.envs.options`:
  rolls per turn, upper bonus, extra-Yacht bonus, joker rule, forced order) for the rules being played, so a
  model plays every rule set of its box layout as the rules it sits at (those it was not trained on with
  `learned?insist=1:PATH`).
* `upper_features: true` -- then, for each column, 16 entries on the way to the upper bonus (all 0 under
  rules without one; `SLACK` points of slack span [0, 1] around 0.5, clipped):
  [0] points still needed for the bonus / threshold; [1] 0.5 + slack / (2 SLACK), where slack = three of
  each open upper face minus the points still needed (below 0.5: the rest of the upper boxes must beat
  par); [2] 1 once the bonus is secured; [3] 1 while every die on each open upper face (five of each with
  five dice, six with six) would still reach it;
  [4:10] for the upper box of face 1..6, while it is open: the slack if the dice in hand were scored
  there now, scaled as [1]; [10:16] for the same box: 1 if the bonus is still reachable after scoring
  the dice there now. What the flat observation holds already (the upper total, which boxes are open,
  the dice) but as the thresholded sums a bonus plan is made of.
* `table_obs: full` (tables only) -- after the dice entries, this sheet's total and every other sheet box
  by box, the entries of the env option `table_obs="full"` (`yacht_env.envs.options.full_sheets`), so a
  policy trained on `YachtVs-v0(table_obs="full")` plays from a position; `summary` (the default) adds none.
* `distinct_holds: true` -- one hold pattern per keep, the env option `action_set="distinct"`
  (`yacht_env.envs.options`: `DISTINCT`, `narrow_masks`).
"""
import numpy as np

from yacht_env.envs.obs import column_layout, dice_layout, obs_size, observe
from yacht_env.envs.options import KNOB_SIZE, dice_features, dice_sizes, full_sheets, rule_features, sheet_size
from yacht_env.envs.table_obs import num_extra, seat_observations

N_UPPER = 16          # upper-bonus entries per column
SLACK = 30            # points of slack that span half of an upper-bonus entry's range
_FACES = np.arange(1, 7)


def upper_features(obs: np.ndarray, rules) -> np.ndarray:
    """(n, N_UPPER * columns) float32 upper-bonus features (module docstring) of rows of observations whose
    first `obs_size(rules)` entries are the flat observation of `yacht_env.envs.obs`."""
    obs = np.asarray(obs, np.float32)
    t = rules.tables
    n, threshold = len(obs), t.upper_threshold
    out = np.zeros((n, N_UPPER * rules.columns), np.float32)
    has_box = t.face_box[1:] >= 0                                      # faces with an upper box
    if threshold <= 0 or not has_box.any():
        return out
    dice = rules.dice
    counts = np.rint(obs[:, dice_layout(dice).face_counts] * dice)     # (n, 6) dice per face

    def scaled(slack):
        return np.clip(0.5 + slack / (2 * SLACK), 0.0, 1.0)

    for c in range(rules.columns):
        lay = column_layout(rules, c)
        upper = np.rint(obs[:, lay.upper] * threshold)
        need = np.maximum(threshold - upper, 0.0)
        box_open = obs[:, lay.open] > 0.5
        face_open = np.zeros((n, 6), bool)
        face_open[:, has_box] = box_open[:, t.face_box[1:][has_box]]
        open_faces = (face_open * _FACES).sum(axis=1)                  # sum of the open upper faces
        slack = 3 * open_faces - need
        slack_after = slack[:, None] + (counts - 3) * _FACES
        reach_after = dice * (open_faces[:, None] - _FACES) >= need[:, None] - counts * _FACES
        o = out[:, N_UPPER * c:N_UPPER * (c + 1)]
        o[:, 0] = need / threshold
        o[:, 1] = scaled(slack)
        o[:, 2] = need == 0
        o[:, 3] = dice * open_faces >= need
        o[:, 4:10] = np.where(face_open, scaled(slack_after), 0.0)
        o[:, 10:16] = face_open & reach_after
    return out


def upper_par_potential(obs: np.ndarray, rules, weight: float) -> np.ndarray:
    """weight x (upper points - 3 x faces of the filled upper boxes) while the upper bonus is still open, else 0.

    Read from flat observations (`yacht_env.envs.obs` layout), summed over the sheet's columns.
    """
    t = rules.tables
    faces = t.box_face.astype(np.float32)
    out = np.zeros(len(obs), np.float32)
    if t.upper_bonus == 0:
        return out
    for c in range(rules.columns):
        at = column_layout(rules, c)
        filled = 1.0 - obs[:, at.open]
        ratio = obs[:, at.upper]
        upper = np.rint(ratio * t.upper_threshold)
        surplus = upper - 3.0 * (filled * faces).sum(axis=1)
        out += np.where(ratio < 1.0, weight * surplus, 0.0)
    return out


def trained_sheets(rules, config: dict) -> int:
    """Sheets the observation of a policy trained with this config (a dict) covers: 1 when it was trained
    alone, else the sheets of its training table (`num_players` seats under `rules`, the rules it was
    trained under; teams share a sheet). ValueError when the rules do not seat that many players."""
    players = config.get("num_players", 1)
    return 1 if players == 1 else rules.check_players(players)


def observation_size(rules, sheets: int) -> int:
    """Entries of the observation (before the extra features) of a policy that covers `sheets` sheets."""
    return obs_size(rules) + (num_extra(sheets, rules) if sheets > 1 else 0)


def observations(state, rows, seats, dice, sheets: int) -> np.ndarray:
    """The observations of the seats `seats` to move at tables `rows` of an engine state, as a policy
    covering `sheets` sheets sees them: the solitaire layout of `yacht_env.envs.obs` for 1, else the seat
    layout of `yacht_env.envs.table_obs` (the one `YachtVs-v0` gives; `dice`: the dice in hand)."""
    if sheets == 1:
        return observe(state, rows)
    return seat_observations(state, rows, seats, dice)


FEATURES = ("dice_onehot", "rule_knobs", "upper_features")   # the config keys (true / false) of extra inputs
GROUPS = ("dice_onehot", "table_obs", "rule_knobs", "upper_features")   # every extra input group, in input order


def uses(config: dict, key: str) -> bool:
    """Whether a policy trained with this config (a dict) sees the input group `key` (of GROUPS):
    `table_obs` when it is "full", the others when true."""
    if key == "table_obs":
        return config.get("table_obs", "summary") == "full"
    return bool(config.get(key, False))


def table_size(rules, sheets: int) -> int:
    """Entries of the `table_obs: full` group at a table of `sheets` sheets."""
    return 1 + (sheets - 1) * sheet_size(rules)


def feature_sizes(config: dict, rules) -> dict[str, int]:
    """Config key -> entries, for each extra input group a policy trained with this config (a dict) sees
    under `rules`, in input order (after the observation); the table group is sized for the table it was
    trained at (it plays only at tables with as many sheets)."""
    size = {"dice_onehot": lambda: onehot_size(rules), "rule_knobs": lambda: KNOB_SIZE,
            "upper_features": lambda: N_UPPER * rules.columns,
            "table_obs": lambda: table_size(rules, trained_sheets(rules, config))}
    return {key: size[key]() for key in GROUPS if uses(config, key)}


def onehot_size(rules) -> int:
    """Entries of the `dice_onehot` group under `rules` (the env option dice_obs="onehot" for their dice)."""
    return dice_sizes(rules.dice)["onehot"]


def extra_size(config: dict, rules) -> int:
    """Entries a policy trained with this config (as a dict) sees beyond the observation under `rules`."""
    return sum(feature_sizes(config, rules).values())


def table_input(state, rows, sheets, config: dict):
    """The `table_obs: full` entries of a config (a dict) for sheet sheets[j] of table rows[j] of an
    engine state, or None when the config does not use them."""
    return full_sheets(state, rows, sheets) if uses(config, "table_obs") else None


def view_input(view, config: dict, sheets: int) -> np.ndarray:
    """What a policy trained with this config (a dict), covering `sheets` sheets, is fed for the seats to move
    in a `BatchView` (its `observations`, then `policy_input`'s extra inputs)."""
    obs = observations(view.state, view.rows, view.seat, view.dice, sheets)
    return policy_input(obs, view.dice, config, view.rules, table_input(view.state, view.rows, view.sheet, config))


def policy_input(obs: np.ndarray, dice: np.ndarray, config: dict, rules, table=None) -> np.ndarray:
    """What a policy trained with this config is fed under `rules`: rows of observations (and the rules' n
    dice they show, (rows, n)) followed by the extra inputs of the config; `table`: the rows' `table_input` (needed when
    the config uses `table_obs: full`)."""
    obs = np.asarray(obs, np.float32)
    parts = [obs]
    if config.get("dice_onehot", False):
        parts.append(dice_features(dice))
    if uses(config, "table_obs"):
        if table is None:
            raise ValueError("a policy trained with table_obs: full needs the table's sheets (table_input)")
        parts.append(np.asarray(table, np.float32))
    if config.get("rule_knobs", False):
        parts.append(np.broadcast_to(rule_features(rules), (len(obs), KNOB_SIZE)))
    if config.get("upper_features", False):
        parts.append(upper_features(obs, rules))
    return parts[0] if len(parts) == 1 else np.concatenate(parts, axis=1)


