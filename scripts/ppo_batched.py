"""Masked PPO in one file, in torch, on the batched Yacht env (CleanRL's `ppo.py` shape, read top to bottom).

    python scripts/ppo_batched.py --device auto --out runs/ppo-batched     # 64M steps: ~45 min on 2 cores
    yacht evaluate learned:runs/ppo-batched/best.pt          # its model file plays wherever agents play

What it shows, in order: the env is `gymnasium.make_vec("Yacht-v0", vectorization_mode="vector_entry_point",
action_set="distinct", dice_obs="onehot")` (one compiled step for all N games; the env's options,
`yacht_env.envs.options`: masks that allow one hold pattern per keep of the sorted dice, and the sorted dice
one-hot after the observation, as `yacht train`'s `distinct_holds` and `dice_onehot`); its masks come as
int8 `info["action_mask"]` rows (turned to bool); a finished game restarts in the same step
(`AutoresetMode.SAME_STEP`), so `obs[i]` is already the next game's first observation, `terminated[i]` cuts
the bootstrap, and the game's score is `info["final_info"]["total"][i]` on the rows `info["_final_info"]`
marks. Rewards are the points of each
move times `--reward-scale` (the return stays proportional to the score). Evaluation plays the fixed games
`yacht train` evaluates on (streams `--eval-seed + j`) through `learned:`'s own network code, so the curve
(`curve.csv`: steps, wall seconds, mean and CI, bonus rate) compares with `yacht train`'s directly; the first
evaluations come early (`--first-eval`, doubling up to `--eval-every`) and the last when the run stops, so
even a run of a few minutes has a curve. `--warm-start PATH` starts from a model file of the same network,
inputs and rules (`agents.training.warm`, as `yacht train`'s `warm_start`), for example a behaviour-cloned one.
`--torch-threads` holds for the whole run (`agents.training.threads`). The network's parameters carry SB3's
actor-critic names, so `best.pt` / `final.pt` are project model files (`agents.training.checkpoint.write_model`):
`learned:PATH` plays them, nothing else needed.
"""
import argparse
import csv
import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from agents.training.threads import set_torch_threads  # first: it sets OpenMP's wait policy before torch loads

import gymnasium as gym
import numpy as np
import torch
from torch import nn

import yacht_env  # noqa: F401 - registers Yacht-v0
from agents.learned import NetPlayer, PolicyNet
from agents.training.checkpoint import write_model
from agents.training.config import ConfigError
from agents.training.evaluate import evaluate_player
from agents.training.warm import warm_start
from yacht_env.rules import load


# The trainer is one file to read top to bottom (CleanRL's way), so it keeps its own settings under
# CleanRL's names; agents.training.config.PPOConfig holds `yacht train`'s under SB3's names. The two
# lists look alike on purpose.
@dataclass
class Args:
    seed: int = 0
    rules: str = "yacht"
    total_timesteps: int = 64_000_000   # about 45 minutes on 2 cores: the rate decays over the whole budget
    num_envs: int = 1024
    num_steps: int = 16                 # steps per env per rollout: a batch of num_envs x num_steps
    num_minibatches: int = 8
    update_epochs: int = 3
    learning_rate: float = 1e-3
    final_learning_rate: float = 2e-5   # linear decay over total_timesteps, never below this
    gamma: float = 1.0
    gae_lambda: float = 0.95
    clip_coef: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    reward_scale: float = 0.02
    hidden: int = 256
    device: str = "auto"                # auto: cuda when torch sees a GPU, else cpu
    torch_threads: int = 2
    first_eval: int = 125_000           # evaluations at 125k, 250k, 500k, ... doubling up to eval_every,
    eval_every: int = 1_000_000         # then every eval_every steps, and when the run stops
    eval_games: int = 2000
    eval_seed: int = 1_000_000
    minutes: float = 0.0                # stop after this much wall time (0: no limit)
    warm_start: str = ""                # a model file of this network and inputs to start from
    out: str = "runs/ppo-batched"


def parse_args() -> Args:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name, default in asdict(Args()).items():
        kind = type(default)
        p.add_argument("--" + name.replace("_", "-"), type=kind, default=default,
                       choices=("auto", "cpu", "cuda") if name == "device" else None)
    args = Args(**vars(p.parse_args()))
    for name in POSITIVE:
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.num_envs * args.num_steps < args.num_minibatches:
        p.error("--num-minibatches must be at most --num-envs x --num-steps")
    return args


POSITIVE = ("total_timesteps", "num_envs", "num_steps", "num_minibatches", "update_epochs", "hidden", "torch_threads",
            "first_eval", "eval_every", "eval_games")


class ActorCritic(nn.Module):
    """Policy and value MLPs, named as SB3's MaskableActorCriticPolicy names them (so the weights form a
    project model file): mlp_extractor.policy_net / value_net, action_net, value_net."""

    def __init__(self, n_inputs: int, n_actions: int, hidden: int):
        super().__init__()
        self.mlp_extractor = nn.Module()
        self.mlp_extractor.policy_net = nn.Sequential(nn.Linear(n_inputs, hidden), nn.ReLU(),
                                                      nn.Linear(hidden, hidden), nn.ReLU())
        self.mlp_extractor.value_net = nn.Sequential(nn.Linear(n_inputs, hidden), nn.ReLU(),
                                                     nn.Linear(hidden, hidden), nn.ReLU())
        self.action_net = nn.Linear(hidden, n_actions)
        self.value_net = nn.Linear(hidden, 1)
        for layer in (*self.mlp_extractor.policy_net, *self.mlp_extractor.value_net):
            if isinstance(layer, nn.Linear):
                nn.init.orthogonal_(layer.weight, np.sqrt(2))
                nn.init.zeros_(layer.bias)
        nn.init.orthogonal_(self.action_net.weight, 0.01)
        nn.init.zeros_(self.action_net.bias)
        nn.init.orthogonal_(self.value_net.weight, 1.0)
        nn.init.zeros_(self.value_net.bias)

    def value(self, x):
        return self.value_net(self.mlp_extractor.value_net(x)).squeeze(-1)

    def act(self, x, mask, action=None):
        """(action, log-prob, entropy, value) under a bool mask of legal actions (illegal logits -> -1e8)."""
        logits = self.action_net(self.mlp_extractor.policy_net(x)).masked_fill(~mask, -1e8)
        dist = torch.distributions.Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.value(x)


def fail(message: str):
    """One line on stderr and exit status 2, as argparse ends a bad command line."""
    print(f"ppo_batched.py: error: {message}", file=sys.stderr)
    raise SystemExit(2)


def main():
    args = parse_args()
    device = torch.device("cuda" if args.device == "auto" and torch.cuda.is_available() else
                          "cpu" if args.device == "auto" else args.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        fail("--device cuda, but torch sees no GPU")
    set_torch_threads(args.torch_threads)   # held through the evaluations (agents.training.threads)
    torch.manual_seed(args.seed)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rules = load(args.rules)

    # the env: N games stepped by one compiled call, same-step autoreset
    envs = gym.make_vec("Yacht-v0", num_envs=args.num_envs, vectorization_mode="vector_entry_point", rules=rules,
                        action_set="distinct", dice_obs="onehot")
    obs, info = envs.reset(seed=args.seed)
    n_actions = envs.single_action_space.n
    x = torch.as_tensor(obs, device=device)
    mask = torch.as_tensor(info["action_mask"].astype(bool), device=device)

    agent = ActorCritic(x.shape[1], n_actions, args.hidden).to(device)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    config = {"name": out.name, "algo": "ppo (scripts/ppo_batched.py)", "rules": rules.name, "seed": args.seed,
              "num_players": 1, "reward": "points", "dice_onehot": True, "distinct_holds": True,
              "reward_scale": args.reward_scale, "upper_shaping": 0.0,
              "policy": {"pi": [args.hidden] * 2, "vf": [args.hidden] * 2, "activation": "relu"},
              "trainer": asdict(args)}
    if args.warm_start:       # the same checks and copy as `yacht train`'s warm_start key
        try:
            config["warm"] = warm_start(agent, args.warm_start, config, rules)
        except ConfigError as e:
            fail("--" + str(e).replace("warm_start:", "warm-start:", 1))

    # rollout storage
    T, N = args.num_steps, args.num_envs
    batch_size = T * N
    minibatch = batch_size // args.num_minibatches
    xs = torch.zeros((T, N, x.shape[1]), device=device)
    masks = torch.zeros((T, N, n_actions), dtype=torch.bool, device=device)
    actions = torch.zeros((T, N), dtype=torch.long, device=device)
    logprobs = torch.zeros((T, N), device=device)
    rewards = torch.zeros((T, N), device=device)
    ends = torch.zeros((T, N), device=device)          # 1 where step t ended the game (no bootstrap)
    values = torch.zeros((T, N), device=device)

    scores: list[int] = []
    best, step, next_eval, start = -np.inf, 0, min(args.first_eval, args.eval_every), time.time()
    with open(out / "curve.csv", "w", newline="") as f:
        csv.writer(f).writerow(["timesteps", "wall_seconds", "cpu_seconds", "train_mean", "eval_mean", "eval_ci95",
                                "bonus_rate", "yacht_rate", "pct_of_optimal"])

    def save(path, eval_result=None):
        extra = {"timesteps": step, "wall_seconds": round(time.time() - start, 1),
                 "torch_threads": torch.get_num_threads(),         # as they were at the end: --torch-threads
                 "eval": eval_result.summary() if eval_result else None}
        write_model(path, agent.state_dict(), x.shape[1], n_actions, step, config, rules.to_dict(),
                    extra=extra)

    out_of_time = False
    while step < args.total_timesteps and not out_of_time:
        frac = min(step / args.total_timesteps, 1.0)       # the schedule stops at its end value
        for group in optimizer.param_groups:
            group["lr"] = args.learning_rate + (args.final_learning_rate - args.learning_rate) * frac

        # 1. play T steps in every game
        for t in range(T):
            xs[t], masks[t] = x, mask
            with torch.no_grad():
                action, logprob, _, value = agent.act(x, mask)
            actions[t], logprobs[t], values[t] = action, logprob, value
            obs, reward, terminated, _, info = envs.step(action.cpu().numpy())
            rewards[t] = torch.as_tensor(reward * args.reward_scale, device=device)
            ends[t] = torch.as_tensor(terminated, dtype=torch.float32, device=device)
            if terminated.any():
                scores.extend(info["final_info"]["total"][info["_final_info"]].tolist())
            x = torch.as_tensor(obs, device=device)
            mask = torch.as_tensor(info["action_mask"].astype(bool), device=device)
        step += batch_size

        # 2. advantages by GAE; an ended game's next observation is the next game's, so it is not bootstrapped
        with torch.no_grad():
            next_value = agent.value(x)
            advantages = torch.zeros_like(rewards)
            last = torch.zeros(N, device=device)
            for t in reversed(range(T)):
                following = next_value if t == T - 1 else values[t + 1]
                go_on = 1.0 - ends[t]
                delta = rewards[t] + args.gamma * following * go_on - values[t]
                last = delta + args.gamma * args.gae_lambda * go_on * last
                advantages[t] = last
            returns = advantages + values

        # 3. PPO's clipped update on shuffled minibatches
        b_x, b_masks = xs.reshape(batch_size, -1), masks.reshape(batch_size, -1)
        b_actions, b_logprobs = actions.reshape(-1), logprobs.reshape(-1)
        b_adv, b_returns = advantages.reshape(-1), returns.reshape(-1)
        for _ in range(args.update_epochs):
            order = torch.randperm(batch_size, device=device)
            for lo in range(0, batch_size, minibatch):
                mb = order[lo:lo + minibatch]
                _, newlogprob, entropy, newvalue = agent.act(b_x[mb], b_masks[mb], b_actions[mb])
                ratio = (newlogprob - b_logprobs[mb]).exp()
                adv = b_adv[mb]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()
                v_loss = 0.5 * ((newvalue - b_returns[mb]) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

        # 4. evaluate on the fixed games, as `learned:` plays (the network in numpy, deterministic, masked)
        out_of_time = bool(args.minutes) and time.time() - start > 60 * args.minutes
        if step >= next_eval or step >= args.total_timesteps or out_of_time:
            while next_eval <= step:
                next_eval = min(2 * next_eval, next_eval + args.eval_every)
            player = NetPlayer(PolicyNet(agent.state_dict(), config["policy"]), config)
            res = evaluate_player(player, rules, args.eval_games, args.eval_seed)
            wall = time.time() - start
            train_mean = float(np.mean(scores[-1000:])) if scores else None
            with open(out / "curve.csv", "a", newline="") as f:
                csv.writer(f).writerow([step, round(wall, 1), round(time.process_time(), 1), train_mean, res.mean,
                                        res.ci95, res.bonus_rate, res.yacht_rate, res.pct_of_optimal])
            print(f"[{step} steps, {wall:.0f}s, {step / wall:.0f} steps/s] train {train_mean or 0:.1f} "
                  f"eval {res.line()}", flush=True)
            if res.mean > best:
                best = res.mean
                save(out / "best.pt", res)
                (out / "best.json").write_text(json.dumps({"timesteps": step, **res.summary()}, indent=2) + "\n")
    save(out / "final.pt")
    envs.close()


if __name__ == "__main__":
    main()
