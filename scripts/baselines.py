"""The baselines table: several RL algorithms, several training seeds, fixed step budgets, one evaluation.

    python scripts/baselines.py --algos maskppo --budgets 50000 --seeds 3 --out docs/baselines   # one row
    python scripts/baselines.py --algos a2c dqn --budgets 300 --seeds 2 --eval-games 50 --out /tmp/b  # tiny

Every algorithm trains on `Yacht-v0` (default rules) with the env options `action_set="distinct"` (one hold
pattern per keep) and `dice_obs="onehot"` (`yacht_env.envs.options`), a 256-256 ReLU network for policy and
value (or Q), gamma 1 and rewards x 0.02; `torch` runs 1 thread (`agents.training.threads`):

- `maskppo`: sb3-contrib's MaskablePPO through the project's trainer (`agents.training.run.train`) with the
  settings of `configs/train/ppo-dice.yaml` (the shipped model's run: 256 envs x 32 steps a rollout, its
  upper-par shaping, learning rate 1e-3 falling to 2e-5 over the budget).
- `ppo_batched`: `scripts/ppo_batched.py` with its defaults (1024 envs x 16 steps a rollout), run as a
  process of its own.
- `a2c`: Stable-Baselines3's A2C (its defaults: RMSprop, 5 steps a rollout, here 64 envs, entropy 0.01).
  SB3's A2C knows no masks, so the legal-action mask rides in the observation (`MaskInObs`) and the
  policy (`MaskedActorCritic`) drops it from the network's input and sets the logits of illegal actions
  to -1e8 before the softmax: illegal actions have probability 0 when sampling, in the log-probabilities
  and in the entropy (no penalty, no wasted step).
- `dqn`: Stable-Baselines3's DQN made masked (`MaskedDQN`): the Q-network (`MaskedQNetwork`) reads the mask
  from the observation as A2C's policy does and gives illegal actions Q = -1e8, so the greedy action and
  the target max over the next position's actions are over legal actions only; epsilon-greedy and the
  warm-up draw a random legal action (per env). 16 envs, a 100k replay buffer, a gradient step of 256
  every 16 env steps, the target net every 2,000 steps, epsilon 1 -> 0.05 over the first 30% of the budget.

Training seed k of a run is `--seed + 10,000 k` (env i of a run plays dice stream seed + i, so runs share no
dice). Each run is evaluated on fixed fresh dice -- `--eval-games` games on the streams `--eval-seed` +
j, which no training stream reaches -- through the project's evaluation (`agents.training.evaluate.
evaluate_player`, the network played as `learned:` plays it, deterministic and masked) at a quarter, half,
three quarters and all of its budget (a rollout may end past a point: the steps are the ones done).
Files under `--out`: `runs/ALGO-BUDGET-sSEED.csv` (the run's curve: env steps, wall seconds since the
run began, evaluation mean and its 95% half-width over games), `results.csv` (per algorithm and budget,
over the seeds: the mean of the runs' final evaluation means with a Student-t 95% interval across seeds,
`agents.stats.mean_t_ci`, the mean steps and wall minutes) and `curves.png`. The table is made from
every run file in `--out/runs`, so one command per row fills the same table; a run whose file exists is
not trained again (`--rerun` does). Model files and logs go under `--work`.
Wall minutes are a run's whole time on this machine: start-up, training and its evaluations.
"""
import argparse
import csv
import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))   # the project, when run as `python scripts/baselines.py`

from agents.training.threads import set_torch_threads  # noqa: E402 - first: OpenMP's wait policy before torch

import numpy as np  # noqa: E402
import torch  # noqa: E402
from gymnasium import spaces  # noqa: E402
from sb3_contrib.common.maskable.utils import get_action_masks  # noqa: E402
from stable_baselines3 import A2C, DQN  # noqa: E402
from stable_baselines3.common.callbacks import BaseCallback  # noqa: E402
from stable_baselines3.common.policies import ActorCriticPolicy  # noqa: E402
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor  # noqa: E402
from stable_baselines3.common.vec_env import VecEnvWrapper  # noqa: E402
from stable_baselines3.dqn.policies import DQNPolicy, QNetwork  # noqa: E402

from agents.learned import NetPlayer, PolicyNet  # noqa: E402
from agents.sb3_zip import DQN as DQN_KIND  # noqa: E402
from agents.sb3_zip import _network  # noqa: E402
from agents.stats import mean_t_ci  # noqa: E402
from agents.training.config import load_config  # noqa: E402
from agents.training.evaluate import evaluate_player  # noqa: E402
from agents.training.reward import ScaleReward  # noqa: E402
from yacht_env.config import ConfigError  # noqa: E402
from yacht_env.integrations.sb3 import YachtVecEnv  # noqa: E402
from yacht_env.rules import load  # noqa: E402
from yacht_env.safe_file import atomic_writer, check_folder, read_text, write_atomic  # noqa: E402

ALGOS = ("maskppo", "ppo_batched", "a2c", "dqn")
SEED_STRIDE = 10_000          # training seed k = --seed + SEED_STRIDE k: runs play disjoint dice streams
MAX_ENVS = 1024               # the most envs (dice streams) of one run (ppo_batched's default)
OPTIONS = {"action_set": "distinct", "dice_obs": "onehot"}
PLAYED = {"num_players": 1, "distinct_holds": True, "dice_onehot": True, "policy": {"activation": "relu"}}
HIDDEN = [256, 256]
REWARD_SCALE = 0.02
ILLEGAL = -1e8                # the logit / Q-value of an illegal action
CURVE = ("timesteps", "wall_seconds", "eval_mean", "eval_ci95", "eval_games", "eval_seed")
RESULTS = ("algo", "budget", "seeds", "n_seeds", "steps", "wall_minutes", "mean", "lo", "hi", "sd", "interval",
           "eval_games", "eval_seed")
ANCHORS = (("shipped model (policy alone)", 249.27), ("A2C, published median", 241.78),
           ("Yahtzotron", 240.0))


# ---- masks for SB3's A2C and DQN, which know none ----------------------------------------------------

class MaskInObs(VecEnvWrapper):
    """A masked SB3 VecEnv whose observations end with its legal-action mask (1.0 / 0.0, one entry per
    action); a finished game's terminal observation ends with all ones (its mask stays all 1)."""

    def __init__(self, venv):
        self.n_actions = venv.action_space.n
        size = venv.observation_space.shape[0] + self.n_actions
        super().__init__(venv, observation_space=spaces.Box(0.0, 1.0, (size,), np.float32))

    def _with_mask(self, obs):
        return np.concatenate([obs, get_action_masks(self.venv).astype(np.float32)], axis=1)

    def reset(self):
        return self._with_mask(self.venv.reset())

    def step_wait(self):
        obs, rewards, dones, infos = self.venv.step_wait()
        for info in infos:
            if "terminal_observation" in info:
                info["terminal_observation"] = np.concatenate(
                    [info["terminal_observation"], np.ones(self.n_actions, np.float32)])
        return self._with_mask(obs), rewards, dones, infos


class DropMask(BaseFeaturesExtractor):
    """The network's input: the observation without the mask `MaskInObs` appended."""

    def __init__(self, observation_space, n_actions: int):
        super().__init__(observation_space, observation_space.shape[0] - n_actions)
        self.n_actions = n_actions

    def forward(self, obs):
        return obs[:, :-self.n_actions]


def mask_of(obs, n_actions: int):
    """The legal-action mask (bool) at the end of `MaskInObs` observations (tensors or arrays)."""
    return obs[:, -n_actions:] > 0.5


class MaskedActorCritic(ActorCriticPolicy):
    """SB3's actor-critic policy on `MaskInObs` observations: the mask is dropped from the network's input
    (`DropMask`) and the logits of illegal actions are set to -1e8, in acting and in training alike."""

    def __init__(self, observation_space, action_space, lr_schedule, **kwargs):
        kwargs.update(features_extractor_class=DropMask, features_extractor_kwargs={"n_actions": action_space.n})
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)

    def extract_features(self, obs, features_extractor=None):
        self._legal = mask_of(obs, self.action_space.n)      # forward and evaluate_actions: their distribution
        return super().extract_features(obs, features_extractor)

    def get_distribution(self, obs):
        self._legal = mask_of(obs, self.action_space.n)      # predict's way, past `extract_features`
        return super().get_distribution(obs)

    def _get_action_dist_from_latent(self, latent_pi):
        logits = self.action_net(latent_pi).masked_fill(~self._legal, ILLEGAL)
        return self.action_dist.proba_distribution(action_logits=logits)


class MaskedQNetwork(QNetwork):
    """SB3's Q-network on `MaskInObs` observations: illegal actions get Q = -1e8, so its argmax (acting) and
    its max (the target of the next position) are over legal actions only."""

    def forward(self, obs):
        return super().forward(obs).masked_fill(~mask_of(obs, self.action_space.n), ILLEGAL)


class MaskedDQNPolicy(DQNPolicy):
    """SB3's DQN policy with `MaskedQNetwork`s (online and target) and the mask dropped from their input."""

    def __init__(self, observation_space, action_space, lr_schedule, **kwargs):
        kwargs.update(features_extractor_class=DropMask, features_extractor_kwargs={"n_actions": action_space.n})
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)

    def make_q_net(self):
        net_args = self._update_features_extractor(self.net_args, features_extractor=None)
        return MaskedQNetwork(**net_args).to(self.device)


def random_legal(masks: np.ndarray, rng) -> np.ndarray:
    """One uniformly random legal action per row of bool masks (every row has one)."""
    u = rng.random((len(masks), 1))
    counts = masks.sum(axis=1, keepdims=True)
    pick = np.minimum((u * counts).astype(np.int64), counts - 1)       # the pick-th legal action of each row
    return (np.cumsum(masks, axis=1) > pick).argmax(axis=1)


class MaskedDQN(DQN):
    """SB3's DQN with masked exploration: epsilon-greedy per env, a random action being a random legal one
    (SB3 draws from the whole action space, for every env at once), and the warm-up before
    `learning_starts` likewise; the greedy action is `MaskedQNetwork`'s."""

    def predict(self, observation, state=None, episode_start=None, deterministic=False):
        action, state = self.policy.predict(observation, state, episode_start, deterministic)
        if not deterministic and np.ndim(observation) == 2:
            explore = np.random.random(len(observation)) < self.exploration_rate
            if explore.any():
                action = np.array(action)
                action[explore] = random_legal(mask_of(observation[explore], self.action_space.n), np.random)
        return action, state

    def _sample_action(self, learning_starts, action_noise=None, n_envs=1):
        if self.num_timesteps < learning_starts:
            action = random_legal(mask_of(self._last_obs, self.action_space.n), np.random)
        else:
            action, _ = self.predict(self._last_obs, deterministic=False)
        return action, action


# ---- one run --------------------------------------------------------------------------------------

def eval_points(budget: int) -> list[int]:
    """Env steps at which a run of `budget` steps is evaluated: a quarter, half, three quarters and all."""
    return sorted({max(1, budget * k // 4) for k in (1, 2, 3, 4)})


def evaluate_state(state: dict, games: int, seed: int):
    """The evaluation of a network's weights (SB3 actor-critic names) played as `learned:` plays them."""
    player = NetPlayer(PolicyNet(state, PLAYED["policy"]), PLAYED)
    return evaluate_player(player, load("yacht"), games, seed)


def q_state(policy) -> dict:
    """A masked DQN policy's online Q-network under `PolicyNet`'s names (the Q-values as the logits)."""
    state = {k: v.detach().cpu().numpy() for k, v in policy.state_dict().items()}
    return _network(state, DQN_KIND, "the DQN policy")


class EvalAt(BaseCallback):
    """Evaluates the model at the env steps of `points` (once each, when a step passes one) and at the end."""

    def __init__(self, points, games: int, seed: int, weights, t0: float):
        super().__init__()
        self.points, self.games, self.seed, self.weights, self.t0 = list(points), games, seed, weights, t0
        self.rows: list[dict] = []

    def _on_step(self) -> bool:
        if self.points and self.num_timesteps >= self.points[0]:
            while self.points and self.points[0] <= self.num_timesteps:
                self.points.pop(0)
            self.evaluate()
        return True

    def evaluate(self) -> None:
        res = evaluate_state(self.weights(self.model.policy), self.games, self.seed)
        self.rows.append({"timesteps": self.num_timesteps, "wall_seconds": round(time.time() - self.t0, 1),
                          "eval_mean": res.mean, "eval_ci95": res.ci95})

    def _on_training_end(self) -> None:
        if not self.rows or self.rows[-1]["timesteps"] != self.num_timesteps:
            self.evaluate()


def run_sb3(algo: str, budget: int, seed: int, games: int, eval_seed: int, work: Path) -> list[dict]:
    """Train A2C or the masked DQN for `budget` env steps; its curve rows."""
    t0 = time.time()
    rules = load("yacht")
    n_envs = 64 if algo == "a2c" else 16
    venv = MaskInObs(ScaleReward(YachtVecEnv(n_envs, rules=rules, seed=seed, **OPTIONS), REWARD_SCALE))
    if algo == "a2c":
        model = A2C(MaskedActorCritic, venv, gamma=1.0, ent_coef=0.01, seed=seed, device="cpu", verbose=0,
                    policy_kwargs={"net_arch": {"pi": HIDDEN, "vf": HIDDEN}, "activation_fn": torch.nn.ReLU})
        weights = lambda policy: policy.state_dict()    # noqa: E731 - SB3's actor-critic names already
    else:
        model = MaskedDQN(MaskedDQNPolicy, venv, learning_rate=2.5e-4, buffer_size=100_000, learning_starts=1_000,
                          batch_size=256, gamma=1.0, train_freq=1, gradient_steps=1, target_update_interval=2_000,
                          exploration_fraction=0.3, exploration_final_eps=0.05, seed=seed, device="cpu",
                          verbose=0, policy_kwargs={"net_arch": HIDDEN})
        weights = q_state
    callback = EvalAt(eval_points(budget), games, eval_seed, weights, t0)
    model.learn(budget, callback=callback)
    venv.close()
    return callback.rows


def run_maskppo(budget: int, seed: int, games: int, eval_seed: int, work: Path) -> list[dict]:
    """MaskablePPO through `yacht train`'s code with configs/train/ppo-dice.yaml's settings; its curve rows."""
    from agents.training.curve import read_rows          # the trainer's own curve log
    from agents.training.run import train
    t0 = time.time()
    cfg = load_config(ROOT / "configs/train/ppo-dice.yaml", settings={
        "eval_every": max(1, budget // 4), "eval_games": games, "eval_seed": eval_seed, "torch_threads": 1,
        "device": "cpu", "checkpoint_every": budget}, total_timesteps=budget, seed=seed, out=str(work))
    train(cfg, progress=False, force=True)
    start = time.time() - t0 - read_rows(work / "curve.csv")[-1]["wall_seconds"]     # start-up before training
    return [{"timesteps": int(r["timesteps"]), "wall_seconds": round(r["wall_seconds"] + start, 1),
             "eval_mean": r["eval_mean"], "eval_ci95": r["eval_ci95"]} for r in read_rows(work / "curve.csv")]


def run_ppo_batched(budget: int, seed: int, games: int, eval_seed: int, work: Path) -> list[dict]:
    """scripts/ppo_batched.py (its defaults) as a process of its own; its curve rows."""
    t0 = time.time()
    quarter = max(1, budget // 4)
    cmd = [sys.executable, str(ROOT / "scripts/ppo_batched.py"), "--seed", str(seed), "--total-timesteps",
           str(budget), "--first-eval", str(quarter), "--eval-every", str(quarter), "--eval-games", str(games),
           "--eval-seed", str(eval_seed), "--torch-threads", "1", "--device", "cpu", "--out", str(work)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise SystemExit(f"baselines.py: error: scripts/ppo_batched.py failed: {done.stderr.strip()[-500:]}")
    with open(work / "curve.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    start = time.time() - t0 - float(rows[-1]["wall_seconds"])       # start-up before its clock began
    return [{"timesteps": int(r["timesteps"]), "wall_seconds": round(float(r["wall_seconds"]) + start, 1),
             "eval_mean": float(r["eval_mean"]), "eval_ci95": float(r["eval_ci95"])} for r in rows]


def run_one(algo: str, budget: int, seed: int, games: int, eval_seed: int, work: Path) -> list[dict]:
    """One run's curve rows (timesteps, wall_seconds, eval_mean, eval_ci95)."""
    work.mkdir(parents=True, exist_ok=True)
    if algo == "maskppo":
        return run_maskppo(budget, seed, games, eval_seed, work)
    if algo == "ppo_batched":
        return run_ppo_batched(budget, seed, games, eval_seed, work)
    return run_sb3(algo, budget, seed, games, eval_seed, work)


# ---- the table ------------------------------------------------------------------------------------

def run_name(algo: str, budget: int, seed: int) -> str:
    return f"{algo}-{budget}-s{seed}"


def write_curve(path: Path, rows: list[dict], games: int, eval_seed: int) -> None:
    buf = io.StringIO(newline="")
    w = csv.DictWriter(buf, fieldnames=CURVE, lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({**r, "eval_mean": f"{r['eval_mean']:.4f}", "eval_ci95": f"{r['eval_ci95']:.4f}",
                    "eval_games": games, "eval_seed": eval_seed})
    write_atomic(path, buf.getvalue(), "run curve")


MAX_CURVE_BYTES = 1 << 20     # a run file: a few rows of a few numbers


def read_curve(path: Path) -> list[dict]:
    """The rows of a run file, every field a finite number; a damaged one is a `ConfigError` naming it."""
    text = read_text(path, MAX_CURVE_BYTES, "run curve")
    try:
        rows = [{k: float(r[k]) for k in CURVE} for r in csv.DictReader(io.StringIO(text, newline=""))]
    except (KeyError, TypeError, ValueError):
        rows = None
    if not rows or not all(np.isfinite(list(r.values())).all() for r in rows):
        raise ConfigError(str(path), "rows", f"must be rows of finite numbers under the header {','.join(CURVE)}; "
                                             "the run file is damaged (remove it, or train it again with --rerun)")
    return rows


def read_curves(runs: Path) -> dict:
    """{(algo, budget, eval_games, eval_seed): {seed: rows}} of every run file in `runs` (named
    ALGO-BUDGET-sSEED.csv; other files are not run files)."""
    out: dict = {}
    for path in sorted(runs.glob("*-*-s*.csv")):
        algo, budget, seed = path.stem.rsplit("-", 2)
        if algo not in ALGOS or not budget.isdigit() or not seed[1:].isdigit():
            continue
        rows = read_curve(path)
        key = (algo, int(budget), int(rows[-1]["eval_games"]), int(rows[-1]["eval_seed"]))
        out.setdefault(key, {})[int(seed[1:])] = rows
    return out


def aggregate(curves: dict) -> list[dict]:
    """One results row per (algo, budget, evaluation): the runs' final evaluation means over seeds, with
    their Student-t 95% interval (`mean_t_ci`), and the mean steps and wall minutes of the runs."""
    rows = []
    for (algo, budget, games, eval_seed), by_seed in sorted(curves.items(), key=lambda kv: (ALGOS.index(kv[0][0]),
                                                                                            kv[0][1:])):
        seeds = sorted(by_seed)
        finals = [by_seed[s][-1] for s in seeds]
        mean, (lo, hi), sd = mean_t_ci([r["eval_mean"] for r in finals])
        rows.append({"algo": algo, "budget": budget, "seeds": " ".join(map(str, seeds)), "n_seeds": len(seeds),
                     "steps": round(float(np.mean([r["timesteps"] for r in finals]))),
                     "wall_minutes": round(float(np.mean([r["wall_seconds"] for r in finals])) / 60, 2),
                     "mean": round(mean, 2), "lo": round(lo, 2), "hi": round(hi, 2), "sd": round(sd, 2),
                     "interval": "student-t 95% over seeds", "eval_games": games, "eval_seed": eval_seed})
    return rows


def write_results(path: Path, rows: list[dict]) -> None:
    buf = io.StringIO(newline="")
    w = csv.DictWriter(buf, fieldnames=RESULTS, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    write_atomic(path, buf.getvalue(), "results table")


def plot(curves: dict, path: Path) -> None:
    """Mean evaluation curve over seeds (with its t-interval) of every algorithm, one panel per budget."""
    import matplotlib    # drawing only
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt   # after the Agg backend: no window

    budgets = sorted({key[1] for key in curves})
    games = ", ".join(f"{g:,}" for g in sorted({key[2] for key in curves}))
    fig, axes = plt.subplots(1, len(budgets), figsize=(6 * len(budgets), 4.5), squeeze=False)
    for ax, budget in zip(axes[0], budgets):
        for (algo, b, _, _), by_seed in sorted(curves.items(), key=lambda kv: ALGOS.index(kv[0][0])):
            if b != budget:
                continue
            n = min(len(rows) for rows in by_seed.values())
            x = [np.mean([rows[i]["timesteps"] for rows in by_seed.values()]) for i in range(n)]
            stats = [mean_t_ci([rows[i]["eval_mean"] for rows in by_seed.values()]) for i in range(n)]
            ax.plot(x, [s[0] for s in stats], "o-", ms=3, label=f"{algo} ({len(by_seed)} seeds)")
            ax.fill_between(x, [s[1][0] for s in stats], [s[1][1] for s in stats], alpha=0.2)
        for (label, score), style in zip(ANCHORS, (":", "--", "-.")):
            ax.axhline(score, color="k", ls=style, lw=1, label=f"{label} {score:g}")
        ax.set_title(f"budget {budget:,} env steps")
        ax.set_xlabel("env steps")
        ax.set_ylabel(f"evaluation mean ({games} fresh games)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    with atomic_writer(path, "baselines plot") as f:
        fig.savefig(f, format="png", dpi=80)
    plt.close(fig)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--algos", nargs="+", default=list(ALGOS), choices=ALGOS)
    p.add_argument("--budgets", nargs="+", type=int, default=[50_000, 200_000], help="env steps of a run")
    p.add_argument("--seeds", type=int, default=3, help="training seeds per algorithm and budget")
    p.add_argument("--seed", type=int, default=0, help="the first training seed (seed k: SEED + 10,000 k)")
    p.add_argument("--eval-games", type=int, default=1000)
    p.add_argument("--eval-seed", type=int, default=1_000_000, help="evaluation game j plays stream EVAL_SEED + j")
    p.add_argument("--out", default="docs/baselines", help="the table, its run curves and its plot")
    p.add_argument("--work", default="runs/baselines", help="model files and logs of the runs")
    p.add_argument("--rerun", action="store_true", help="train again runs whose curve file exists")
    p.add_argument("--json", action="store_true", help="print the results rows as JSON")
    args = p.parse_args(argv)
    for name, lo, hi in (("seeds", 1, 50), ("seed", 0, 2**31 - 1), ("eval_games", 1, 100_000),
                         ("eval_seed", 0, 2**62)):
        if not lo <= getattr(args, name) <= hi:
            p.error(f"--{name.replace('_', '-')} must be {lo} .. {hi}, got {getattr(args, name)}")
    if any(not 100 <= b <= 100_000_000 for b in args.budgets):
        p.error(f"--budgets must be env steps 100 .. 100,000,000, got {args.budgets}")
    last = args.seed + SEED_STRIDE * (args.seeds - 1) + MAX_ENVS
    if args.seed < args.eval_seed + args.eval_games and args.eval_seed < last:
        p.error(f"training streams {args.seed} .. {last - 1} meet the evaluation streams {args.eval_seed} .. "
                f"{args.eval_seed + args.eval_games - 1}: give --seed or --eval-seed apart")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        return table(args)
    except (ConfigError, OSError) as e:     # a damaged run file, an --out that is no folder, a full disk
        print(f"baselines.py: error: {e}", file=sys.stderr)
        return 2


def table(args) -> int:
    """Train the runs `args` ask for that have no run file yet (all with --rerun), then write the table."""
    out, work = Path(args.out), Path(args.work)
    check_folder(out / "runs", "--out folder")           # before any training
    check_folder(work, "--work folder")
    read_curves(out / "runs")                            # a damaged run file stops the command now, not at the end
    set_torch_threads(1)
    for budget in args.budgets:
        for algo in args.algos:
            for k in range(args.seeds):
                seed = args.seed + SEED_STRIDE * k
                path = out / "runs" / f"{run_name(algo, budget, seed)}.csv"
                if path.exists() and not args.rerun:
                    print(f"kept {path} (--rerun trains it again)", file=sys.stderr)
                    continue
                rows = run_one(algo, budget, seed, args.eval_games, args.eval_seed,
                               work / run_name(algo, budget, seed))
                write_curve(path, rows, args.eval_games, args.eval_seed)
                last = rows[-1]
                print(f"{run_name(algo, budget, seed)}: {last['timesteps']} steps, "
                      f"{last['wall_seconds'] / 60:.1f} min, eval {last['eval_mean']:.2f}", file=sys.stderr)
    curves = read_curves(out / "runs")
    rows = aggregate(curves)
    write_results(out / "results.csv", rows)
    if curves:
        plot(curves, out / "curves.png")
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        for r in rows:
            print(f"{r['algo']:12} {r['budget']:>10,} {r['steps']:>10,} steps {r['wall_minutes']:6.2f} min  "
                  f"{r['mean']:7.2f} [{r['lo']:.2f}, {r['hi']:.2f}]  seeds {r['seeds']}")
    print(f"wrote {out / 'results.csv'}, {out / 'curves.png'} and the run curves in {out / 'runs'}",
          file=sys.stderr if args.json else sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
