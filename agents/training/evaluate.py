"""Masked evaluation of a policy on fixed games, played all at once in a `yacht_env.batch.Batch`.

Evaluation game j deals the dice of `Game(rules, seed=game_seed(seed + j, 0))`, so the
numbers compare directly with any agent played on those seeds. Each decision takes the
most likely legal action (`deterministic`) or samples one.
"""
from dataclasses import asdict, dataclass

import numpy as np
import torch

from yacht_env.batch import Batch
from yacht_env.engine import UPPER_BONUS

from .features import add_dice_features
from .holds import narrow_masks


@dataclass(frozen=True)
class EvalResult:
    """Scores of the evaluation games and the rates the issue asks for."""
    games: int
    mean: float
    std: float
    ci95: float               # half-width of the 95% confidence interval of the mean
    bonus_rate: float         # share of sheet columns that earned the upper bonus
    yacht_rate: float         # share of sheet columns with points in the Yacht box
    optimum: float | None     # the optimal mean for these rules, when known
    optimum_source: str
    scores: np.ndarray

    @property
    def pct_of_optimal(self) -> float | None:
        return None if self.optimum is None else 100.0 * self.mean / self.optimum

    @property
    def gap(self) -> float | None:
        return None if self.optimum is None else self.optimum - self.mean

    def summary(self) -> dict:
        d = {k: v for k, v in asdict(self).items() if k != "scores"}
        d["pct_of_optimal"] = self.pct_of_optimal
        d["gap"] = self.gap
        return d

    def line(self) -> str:
        s = (f"mean {self.mean:.2f} ± {self.ci95:.2f} over {self.games} games, bonus {100 * self.bonus_rate:.1f}%, "
             f"yacht {100 * self.yacht_rate:.1f}%")
        if self.optimum is not None:
            s += f", {self.pct_of_optimal:.2f}% of optimal {self.optimum:.4f} ({self.optimum_source})"
        return s


def play_batch(policy, rules, seeds, deterministic: bool = True, distinct_holds: bool = False,
               dice_onehot: bool = False) -> Batch:
    """Play one game per stream seed (its episode 0) to the end; returns the finished Batch.

    distinct_holds: narrow the masks to one hold per keep, as for a policy trained that way;
    dice_onehot: feed the policy the dice features (`features`), as for a policy trained that way.
    """
    batch = Batch(rules, len(seeds), autoreset=False)
    batch.reset(list(seeds))
    done = np.zeros(len(seeds), bool)
    actions = np.zeros(len(seeds), np.int64)
    while not done.all():
        live = np.flatnonzero(~done)
        obs = batch.obs[live]
        masks = narrow_masks(batch.mask[live], obs) if distinct_holds else batch.mask[live].astype(bool)
        if dice_onehot:
            obs = add_dice_features(obs)
        with torch.no_grad():
            a, _ = policy.predict(obs, action_masks=masks, deterministic=deterministic)
        actions[:] = -1                      # finished games get no action
        actions[live] = a
        batch.step(actions)
        done |= batch.terminated
    return batch


def summarize(batch: Batch, optimum: float | None = None, optimum_source: str = "") -> EvalResult:
    """Mean, 95% CI, bonus and Yacht rates of a finished Batch."""
    rules = batch.rules
    e = batch.engine
    scores = e.totals[:, 0].astype(np.float64)
    t = rules.tables
    bonus = (e.cols[:, 0, :, UPPER_BONUS] > 0).mean() if t.upper_bonus else 0.0
    yacht = (e.scores[:, 0, :, t.yacht_box] > 0).mean() if t.yacht_box >= 0 else 0.0
    std = float(scores.std(ddof=1)) if len(scores) > 1 else 0.0
    return EvalResult(games=len(scores), mean=float(scores.mean()), std=std,
                      ci95=1.96 * std / np.sqrt(len(scores)), bonus_rate=float(bonus), yacht_rate=float(yacht),
                      optimum=optimum, optimum_source=optimum_source, scores=scores)


def evaluate(policy, rules, games: int, seed: int, deterministic: bool = True, batch: int = 2000,
             distinct_holds: bool = False, dice_onehot: bool = False) -> EvalResult:
    """Play `games` games (streams seed, seed+1, ...) in batches of `batch` and summarize them."""
    from .optimum import optimal_mean
    parts = [play_batch(policy, rules, range(seed + s, seed + min(games, s + batch)), deterministic, distinct_holds,
                        dice_onehot) for s in range(0, games, batch)]
    opt, src = optimal_mean(rules)
    res = [summarize(p) for p in parts]
    scores = np.concatenate([r.scores for r in res])
    w = np.array([r.games for r in res], float)
    std = float(scores.std(ddof=1)) if len(scores) > 1 else 0.0
    return EvalResult(games=len(scores), mean=float(scores.mean()), std=std, ci95=1.96 * std / np.sqrt(len(scores)),
                      bonus_rate=float(np.average([r.bonus_rate for r in res], weights=w)),
                      yacht_rate=float(np.average([r.yacht_rate for r in res], weights=w)),
                      optimum=opt, optimum_source=src, scores=scores)


def evaluate_model(doc: dict, rules, games: int, seed: int, deterministic: bool = True) -> EvalResult:
    """Evaluate a loaded model file (`checkpoint.load_checkpoint`) as it was trained to play."""
    from .checkpoint import build_policy
    return evaluate(build_policy(doc), rules, games, seed, deterministic,
                    distinct_holds=bool(doc["config"].get("distinct_holds", False)),
                    dice_onehot=bool(doc["config"].get("dice_onehot", False)))
