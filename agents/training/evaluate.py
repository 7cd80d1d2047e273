"""Masked evaluation of a policy on fixed games, all played at once through the engine.

Evaluation game j deals the dice of `Game(rules, seed=game_seed(seed + j, 0))`, so the numbers compare
directly with any agent played on those seeds. The policy plays as `learned:` plays it (`agents.learned`:
the same network code, features and masks), taking the most likely legal action (`deterministic`) or
sampling one, so an evaluation and `yacht evaluate learned:MODEL` on the same games agree game by game.
"""
from dataclasses import asdict, dataclass

import numpy as np

from yacht_env.dice_source import game_seed
from yacht_env.engine import UPPER_BONUS, State
from yacht_env.lockstep import play

from ..learned import NetPlayer, PolicyNet
from ..stats import mean_ci


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


def play_games(player, rules, seeds) -> State:
    """Play one solitaire game per stream seed (its episode 0) to the end; returns the finished State."""
    state = State(rules, len(seeds), 1)
    state.reset(np.array([game_seed(s, 0) for s in seeds], np.uint64))
    player.prepare(rules, 1)
    play(state, [player])
    return state


def eval_result(state: State, optimum: float | None = None, optimum_source: str = "") -> EvalResult:
    """Mean, 95% CI, bonus and Yacht rates of finished solitaire games."""
    t = state.rules.tables
    scores = state.totals[:, 0].astype(np.float64)
    bonus = (state.cols[:, 0, :, UPPER_BONUS] > 0).mean() if t.upper_bonus else 0.0
    yacht = (state.scores[:, 0, :, t.yacht_box] > 0).mean() if t.yacht_box >= 0 else 0.0
    mean, (lo, _), std = mean_ci(scores)
    return EvalResult(games=len(scores), mean=mean, std=std, ci95=mean - lo, bonus_rate=float(bonus), yacht_rate=float(yacht),
                      optimum=optimum, optimum_source=optimum_source, scores=scores)


def evaluate_player(player, rules, games: int, seed: int) -> EvalResult:
    """Play `games` games (streams seed, seed+1, ...) with a batched player and summarize them."""
    from .optimum import optimal_mean
    opt, src = optimal_mean(rules)
    res = eval_result(play_games(player, rules, range(seed, seed + games)))
    return EvalResult(**{**asdict(res), "optimum": opt, "optimum_source": src})


def net_of(policy, activation: str) -> PolicyNet:
    """The play-time network of a live SB3 policy (its current weights)."""
    return PolicyNet(policy.state_dict(), {"activation": activation})


def evaluate(policy, rules, games: int, seed: int, deterministic: bool = True, distinct_holds: bool = False,
             dice_onehot: bool = False, activation: str = "relu") -> EvalResult:
    """Evaluate a live SB3 policy (during training) on `games` fixed games."""
    config = {"distinct_holds": distinct_holds, "dice_onehot": dice_onehot}
    return evaluate_player(NetPlayer(net_of(policy, activation), config, deterministic), rules, games, seed)


def evaluate_model(doc: dict, rules, games: int, seed: int, deterministic: bool = True) -> EvalResult:
    """Evaluate a loaded model file (`checkpoint.load_checkpoint`) as it was trained to play."""
    player = NetPlayer(PolicyNet(doc["policy"], doc["config"]["policy"]), doc["config"], deterministic)
    return evaluate_player(player, rules, games, seed)
