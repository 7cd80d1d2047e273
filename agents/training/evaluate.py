"""Masked evaluation of a policy on fixed games, all played at once through the engine.

Evaluation game j deals the dice of `Game(rules, seed=game_seed(seed + j, 0))`, so the numbers compare
directly with any agent played on those seeds. A policy trained at a table is evaluated at that table
(`evaluate_table`): in game j it sits at seat j % num_players, the opponents at the other seats in
seat order, and the result is its win share (a first place shared by k sheets counts 1/k).

The policy plays as `learned:` plays it (`agents.learned`: the same network code, observation,
features and masks), taking the most likely legal action (`deterministic`) or sampling one, so an
evaluation and `yacht evaluate learned:MODEL` on the same games agree game by game.
"""
from dataclasses import asdict, dataclass

import numpy as np

from yacht_env.core.dice_source import stream_seeds
from yacht_env.core.engine import UPPER_BONUS, State
from yacht_env.core.lockstep import play, seating_around, win_shares
from yacht_env.core.players import Forfeiting, PerGame, batched_player, guarded

from ..learned import NetPlayer, PolicyNet
from ..stats import mean_ci
from .optimum import optimal_mean

PER_GAME_TABLES = 32   # games at a time against per-game opponents (each table runs its own bot process)


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

    @property
    def score(self) -> float:
        """What `best.pt` is chosen by: the mean score."""
        return self.mean

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


@dataclass(frozen=True)
class TableEvalResult:
    """A policy's results at a table of `num_players` seats: its win share and its sheet's scores."""
    games: int
    num_players: int
    opponents: tuple
    win_share: float          # mean over games of 1/k for a first place shared by k sheets, else 0
    win_ci95: float           # half-width of its normal 95% confidence interval
    mean: float               # the policy's sheet's mean total
    ci95: float
    opponents_mean: float     # the other sheets' mean total
    bonus_rate: float         # share of the policy's sheet columns that earned the upper bonus
    yacht_rate: float
    shares: np.ndarray
    opponent_faults: int = 0  # opponents' faults (each forfeits that seat's game: `yacht_env.core.players.Forfeiting`)

    optimum = None            # solitaire notions, not defined at a table
    optimum_source = ""
    pct_of_optimal = None
    gap = None

    @property
    def score(self) -> float:
        """What `best.pt` is chosen by: the win share."""
        return self.win_share

    def summary(self) -> dict:
        d = {k: v for k, v in asdict(self).items() if k != "shares"}
        d["opponents"] = list(self.opponents)
        return d

    def line(self) -> str:
        return (f"win share {100 * self.win_share:.2f}% ± {100 * self.win_ci95:.2f}% over {self.games} games at "
                f"{self.num_players} seats against {', '.join(self.opponents)} (an equal share: "
                f"{100 / self.num_players:.2f}%); mean {self.mean:.2f} ± {self.ci95:.2f} (opponents "
                f"{self.opponents_mean:.2f}), bonus {100 * self.bonus_rate:.1f}%, yacht {100 * self.yacht_rate:.1f}%"
                + (f"; {self.opponent_faults} opponent fault(s), each seat forfeiting that game"
                   if self.opponent_faults else ""))


def play_table(player, rules, num_players: int, opponents, dice_seeds, what: str):
    """Play one game of `num_players` seats per dice seed to its end: `player` at seat j % num_players of game
    j, `opponents` (agent specs, one for every other seat or one per other seat in seat order) at the other
    seats in seat order. Returns the finished `State`, the player's seats, the opponents' faults and the
    opponents' specs, one per other seat.

    Opponents seat as in `YachtVs-v0` (`yacht_env.core.players.guarded`, their warnings naming `what`): one
    that fails forfeits its seat for the rest of that game, with a warning; the faults are counted. Per-game
    agents (external bots) play PER_GAME_TABLES games at a time, so at most that many of their processes run
    (the games are the same: tables are independent)."""
    opponents = list(opponents)
    if len(opponents) == 1:
        opponents = opponents * (num_players - 1)
    games = len(dice_seeds)
    state = State(rules, games, num_players)
    state.reset(np.asarray(dice_seeds, np.uint64))
    others = [guarded(batched_player(spec, games, k + 1, slots=PER_GAME_TABLES), spec, games, what)
              for k, spec in enumerate(opponents)]
    players = [player] + others
    mine = np.arange(games) % num_players
    seating = seating_around(mine, num_players)
    for k, p in enumerate(others):
        if isinstance(p, Forfeiting):
            p.seating, p.index = seating, k + 1
    step = PER_GAME_TABLES if any(isinstance(getattr(p, "player", None), PerGame) for p in others) else games
    faults = 0
    try:
        for p in players:
            if hasattr(p, "prepare"):
                p.prepare(rules, num_players)
        for lo in range(0, games, step):
            rows = np.arange(lo, min(games, lo + step))
            for p in players:
                if hasattr(p, "start"):
                    p.start(state, rows)
            play(state, players, seating, rows=rows)
            faults += sum(len(p.take_faults()) for p in others if isinstance(p, Forfeiting))
    finally:
        for p in others:
            if hasattr(p, "close"):
                p.close()
    return state, mine, faults, opponents


def evaluate_table(player, rules, num_players: int, opponents, games: int, seed: int) -> TableEvalResult:
    """Play `games` games of `num_players` seats (game j: the dice of stream seed + j, episode 0; `player`
    at seat j % num_players; `opponents`: agent specs, one for every other seat or one per other seat in
    seat order; `play_table`) and summarize the player's results."""
    state, mine, faults, opponents = play_table(player, rules, num_players, opponents,
                                                first_episodes(range(seed, seed + games)), "table evaluation")
    sheet = mine % state.num_sheets
    rows = np.arange(games)
    shares = win_shares(state, rows, sheet)
    share, (lo, _), _ = mean_ci(shares)
    totals = state.totals.astype(np.float64)
    mean, (mlo, _), _ = mean_ci(totals[rows, sheet])
    other = np.ones_like(totals, bool)
    other[rows, sheet] = False
    bonus, yacht = rates(state, rows, sheet)
    return TableEvalResult(games=games, num_players=num_players, opponents=tuple(dict.fromkeys(opponents)),
                           win_share=share, win_ci95=share - lo, mean=mean, ci95=mean - mlo,
                           opponents_mean=float(totals[other].mean()), bonus_rate=bonus, yacht_rate=yacht,
                           shares=shares, opponent_faults=faults)


def first_episodes(streams) -> np.ndarray:
    """The dice seeds of episode 0 of each stream: `game_seed(stream, 0)`."""
    streams = np.asarray(list(streams), np.uint64)
    return stream_seeds(streams, np.zeros(len(streams), np.int64))


def rates(state: State, rows, sheets) -> tuple[float, float]:
    """Share of the columns of sheet sheets[j] of tables rows[j] that earned the upper bonus, and that
    scored their Yacht box (0 where the rules have none)."""
    t = state.rules.tables
    bonus = (state.cols[rows, sheets, :, UPPER_BONUS] > 0).mean() if t.upper_bonus else 0.0
    yacht = (state.scores[rows, sheets, :, t.yacht_box] > 0).mean() if t.yacht_box >= 0 else 0.0
    return float(bonus), float(yacht)


def play_games(player, rules, seeds) -> State:
    """Play one solitaire game per stream seed (its episode 0) to the end; returns the finished State."""
    state = State(rules, len(seeds), 1)
    state.reset(first_episodes(seeds))
    player.prepare(rules, 1)
    play(state, [player])
    return state


def eval_result(state: State, optimum: float | None = None, optimum_source: str = "") -> EvalResult:
    """Mean, 95% CI, bonus and Yacht rates of finished solitaire games."""
    scores = state.totals[:, 0].astype(np.float64)
    bonus, yacht = rates(state, np.arange(state.num_tables), np.zeros(state.num_tables, np.int64))
    mean, (lo, _), std = mean_ci(scores)
    return EvalResult(games=len(scores), mean=mean, std=std, ci95=mean - lo, bonus_rate=bonus, yacht_rate=yacht,
                      optimum=optimum, optimum_source=optimum_source, scores=scores)


def evaluate_player(player, rules, games: int, seed: int) -> EvalResult:
    """Play `games` games (streams seed, seed+1, ...) with a batched player and summarize them."""
    opt, src = optimal_mean(rules)
    res = eval_result(play_games(player, rules, range(seed, seed + games)))
    return EvalResult(**{**asdict(res), "optimum": opt, "optimum_source": src})


def net_of(policy, activation: str) -> PolicyNet:
    """The play-time network of a live SB3 policy (its current weights)."""
    return PolicyNet(policy.state_dict(), {"activation": activation})


def evaluate_config(player, config: dict, rules, games: int, seed: int):
    """Evaluate a player trained with `config` (a dict) where it was trained: alone (`evaluate_player`)
    or at its table against its opponents (`evaluate_table`)."""
    if config.get("num_players", 1) == 1:
        return evaluate_player(player, rules, games, seed)
    return evaluate_table(player, rules, config["num_players"], config["opponents"], games, seed)


def evaluate(policy, cfg, rules, deterministic: bool = True):
    """Evaluate a live SB3 policy (during training with `TrainConfig` cfg) on the config's evaluation games."""
    config = cfg.to_dict()
    player = NetPlayer(net_of(policy, cfg.policy.activation), config, deterministic)
    return evaluate_config(player, config, rules, cfg.eval_games, cfg.eval_seed)


def evaluate_model(doc: dict, rules, games: int, seed: int, deterministic: bool = True):
    """Evaluate a loaded model file (`checkpoint.load_checkpoint`) as it was trained to play."""
    player = NetPlayer(PolicyNet(doc["policy"], doc["config"]["policy"]), doc["config"], deterministic)
    return evaluate_config(player, doc["config"], rules, games, seed)
