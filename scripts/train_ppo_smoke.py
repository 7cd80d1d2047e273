"""MaskablePPO on Yacht-v0 through the batched SB3 adapter: proof that the pieces fit.

    python scripts/train_ppo_smoke.py --timesteps 50000

Trains on `yacht_env.sb3.YachtVecEnv`, then plays the same evaluation games (same dice) with
uniformly random legal actions and with the trained policy (masked, deterministic), and prints
both mean scores. Same seed, same result.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np


def evaluate(policy, rules: str, games: int, seed: int) -> tuple[float, int]:
    """Mean final score of `games` games (streams seed..seed+games-1) and the illegal moves made.

    policy(obs, mask) -> actions for a batch; each env plays exactly one game.
    """
    from yacht_env.sb3 import YachtVecEnv

    env = YachtVecEnv(games, rules=rules, seed=seed)
    obs = env.reset()
    scores = np.full(games, -1, np.int64)
    illegal = 0
    while (scores < 0).any():
        masks = env.action_masks()
        obs, _, dones, infos = env.step(policy(obs, masks))
        illegal += int(env.batch.illegal[scores < 0].sum())
        for i in np.flatnonzero(dones):
            if scores[i] < 0:
                scores[i] = infos[i]["final_total"]
    return float(scores.mean()), illegal


def random_policy(seed: int):
    """Uniformly random legal actions, from a seeded generator."""
    from yacht_env.batch import random_legal

    rng = np.random.default_rng(seed)

    def act(obs, masks):
        out = np.zeros(len(masks), np.int64)
        random_legal(masks.astype(np.int8), rng.random(len(masks)), out)
        return out

    return act


def progress_callback(total: int):
    """A tqdm bar over environment steps (SB3's own bar needs `rich`)."""
    from stable_baselines3.common.callbacks import BaseCallback
    from tqdm import tqdm

    class Progress(BaseCallback):
        def _on_training_start(self):
            self.bar = tqdm(total=total, unit="step", desc="MaskablePPO")

        def _on_step(self):
            self.bar.update(self.training_env.num_envs)
            return True

        def _on_training_end(self):
            self.bar.close()

    return Progress()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--timesteps", type=int, default=50_000, help="environment steps to train for")
    p.add_argument("--num-envs", type=int, default=32)
    p.add_argument("--rules", default="yacht")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--eval-games", type=int, default=200)
    p.add_argument("--save", default=None, help="write the trained model to this .zip")
    args = p.parse_args(argv)
    if args.timesteps < 1 or args.num_envs < 1 or args.eval_games < 1:
        p.error("--timesteps, --num-envs and --eval-games must be positive")

    import torch
    from sb3_contrib import MaskablePPO

    from yacht_env.sb3 import YachtVecEnv

    torch.set_num_threads(1)
    env = YachtVecEnv(args.num_envs, rules=args.rules, seed=args.seed)
    n_steps = max(8, min(128, args.timesteps // args.num_envs))
    model = MaskablePPO("MlpPolicy", env, n_steps=n_steps, batch_size=min(256, n_steps * args.num_envs),
                        learning_rate=3e-4, gamma=1.0, ent_coef=0.01, seed=args.seed, verbose=0, device="cpu")
    t = time.perf_counter()
    model.learn(args.timesteps, callback=progress_callback(args.timesteps) if args.timesteps >= 20_000 else None)
    spent = time.perf_counter() - t

    def trained(obs, masks):
        actions, _ = model.predict(obs, action_masks=masks, deterministic=True)
        return actions

    eval_seed = 10 ** 9 + args.seed
    base, _ = evaluate(random_policy(args.seed), args.rules, args.eval_games, eval_seed)
    score, illegal = evaluate(trained, args.rules, args.eval_games, eval_seed)
    print(f"trained {args.timesteps} steps in {spent:.1f}s on {args.num_envs} envs ({args.rules})")
    print(f"mean score over {args.eval_games} games: random legal {base:.1f}, MaskablePPO {score:.1f} "
          f"({illegal} illegal moves)")
    if args.save:
        model.save(args.save)
    return 0


if __name__ == "__main__":
    sys.exit(main())
