"""`bench.py env`: steps per second of random legal play, ours against OpenSpiel and gym-yahtzee.

A step is one decision of the player (a re-roll or a scoring). Only the stepping is timed: for our
envs the step call (its mask comes with it); for OpenSpiel `legal_actions()` plus `apply_action`
for the decision and for the chance node after it (its outcome drawn directly as an index); for
gym-yahtzee `get_possible_actions()` plus `step`. Random choices are drawn outside the timer.
The contenders run interleaved in rounds, so a busy machine slows them all alike. Batched
contenders also report steps per CPU-second of the process in the step call (all its threads: what
one core would give); `--threads` runs each batched size with each num_threads.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np


def add_parser(sub):
    p = sub.add_parser("env", help="steps/s of the Yacht envs and their peers", description=__doc__)
    p.add_argument("--steps", type=int, default=100_000, help="decisions per single-game contender")
    p.add_argument("--batch-steps", type=int, default=1000, help="batched steps per batched contender")
    p.add_argument("--rounds", type=int, default=10, help="interleaved rounds the steps are split into")
    p.add_argument("--sizes", type=int, nargs="+", default=[1024, 4096], help="batched env sizes")
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2],
                   help="num_threads values of the batched env (each size runs with each)")
    p.add_argument("--rules", default="yacht", help="rule set of our envs")
    p.add_argument("--gym-yahtzee-path", default=None,
                   help="folder holding gym-yahtzee and its old `gym` (kept out of the venv: "
                        "pip install --no-deps --target DIR gym==0.26.2 gym-yahtzee pyhtzee gym_notices)")
    p.add_argument("--seed", type=int, default=0)
    return p


class Single:
    """Yacht-v0 from gymnasium.make, one step at a time."""

    def __init__(self, rules: str, seed: int):
        import gymnasium as gym

        import yacht_env  # noqa: F401 - registers Yacht-v0

        self.env = gym.make("Yacht-v0", rules=rules)
        self.rng = np.random.default_rng(seed)
        _, self.info = self.env.reset(seed=seed)

    def run(self, steps: int) -> float:
        env, rng, info, clock = self.env, self.rng, self.info, time.perf_counter
        spent = 0.0
        for _ in range(steps):
            legal = np.flatnonzero(info["action_mask"])
            a = int(legal[int(rng.random() * len(legal))])
            t = clock()
            _, _, done, _, info = env.step(a)
            spent += clock() - t
            if done:
                _, info = env.reset()
        self.info = info
        return spent


class Batched:
    """make_vec("Yacht-v0", vector_entry_point, num_threads=k): the step call, or the bare compiled kernel."""

    def __init__(self, rules: str, n: int, seed: int, bare: bool, threads: int = 1):
        import gymnasium as gym

        import yacht_env  # noqa: F401
        from yacht_env.envs.batch import random_legal

        self.envs = gym.make_vec("Yacht-v0", num_envs=n, vectorization_mode="vector_entry_point", rules=rules,
                                 num_threads=threads)
        self.random_legal, self.n, self.bare = random_legal, n, bare
        self.rng = np.random.default_rng(seed)
        self.actions = np.zeros(n, np.int64)
        _, info = self.envs.reset(seed=seed)
        self.mask = self.envs.unwrapped.core.mask if bare else info["action_mask"]

    cpu = 0.0  # CPU seconds of the process (all its threads) in the step calls, per game-step

    def run(self, steps: int) -> float:
        batch, n, actions = self.envs.unwrapped.core, self.n, self.actions
        spent = 0.0
        for _ in range(steps):
            self.random_legal(self.mask, self.rng.random(n), actions)
            c, t = time.process_time(), time.perf_counter()
            if self.bare:
                batch.step(actions)
            else:
                _, _, _, _, info = self.envs.step(actions)
            spent += time.perf_counter() - t
            self.cpu += (time.process_time() - c) / n
            if not self.bare:
                self.mask = info["action_mask"]
            if batch.illegal.any():   # a stale mask would time steps that do nothing
                raise RuntimeError("the batched contender played an illegal action: its mask is stale")
        return spent / n  # seconds per game-step, so steps / spent counts every game's step


class OpenSpiel:
    """pyspiel `yacht`, 1 player, sorted dice; chance outcomes drawn as an index."""

    def __init__(self, seed: int):
        import pyspiel

        self.game = pyspiel.load_game("yacht", {"players": 1, "sort_dice": True})
        self.rng = np.random.default_rng(seed)
        self.state = self.game.new_initial_state()
        if len(self.state.chance_outcomes()) != 6 ** 5:  # the outcome count we draw from, checked once
            raise RuntimeError("OpenSpiel yacht: unexpected chance outcome count")
        self.state.apply_action(int(self.rng.random() * 6 ** 5))

    def run(self, steps: int) -> float:
        state, rng, clock = self.state, self.rng, time.perf_counter
        spent = 0.0
        for _ in range(steps):
            u, v = rng.random(), rng.random()
            t = clock()
            legal = state.legal_actions()
            a = legal[int(u * len(legal))]
            state.apply_action(a)
            if state.is_terminal():
                state = self.game.new_initial_state()
                state.apply_action(int(v * 6 ** 5))
            elif state.is_chance_node():
                # a in 1..31 re-rolls the dice whose bits are set; a scoring starts a turn of five dice
                state.apply_action(int(v * 6 ** (bin(a).count("1") if a < 32 else 5)))
            spent += clock() - t
        self.state = state
        return spent


class GymYahtzee:
    """gym-yahtzee's YahtzeeSingleEnv (old gym API), legal actions from pyhtzee."""

    def __init__(self, seed: int, path: str | None):
        if path:
            sys.path.insert(0, path)
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            stderr, sys.stderr = sys.stderr, open(os.devnull, "w")  # gym prints an unmaintained notice
            try:
                from gym_yahtzee.envs.yahtzee_env import YahtzeeSingleEnv
            except ModuleNotFoundError as err:
                raise RuntimeError(f"{err}; install it out of the venv with `pip install --no-deps --target DIR "
                                   "gym==0.26.2 gym-yahtzee pyhtzee gym_notices` and pass --gym-yahtzee-path DIR"
                                   ) from None
            finally:
                sys.stderr.close()
                sys.stderr = stderr
        self.env = YahtzeeSingleEnv(seed=seed)
        self.env.reset()
        self.rng = np.random.default_rng(seed)

    def run(self, steps: int) -> float:
        env, rng, clock = self.env, self.rng, time.perf_counter
        spent = 0.0
        for _ in range(steps):
            u = rng.random()
            t = clock()
            legal = env.pyhtzee.get_possible_actions()
            _, _, done, _ = env.step(legal[int(u * len(legal))])
            spent += clock() - t
            if done:
                env.reset()
        return spent


def run(args) -> int:
    from tqdm import tqdm

    contenders, failed = [], []

    def add(name, make, steps):
        try:
            contenders.append([name, make(), steps, 0.0])
        except Exception as exc:  # noqa: BLE001 - a peer that cannot run is reported, not fatal
            failed.append((name, f"{type(exc).__name__}: {exc}"))

    single = f"Yacht-v0 single (gymnasium.make, {args.rules})"
    add(single, lambda: Single(args.rules, args.seed), args.steps)
    for n in args.sizes:
        for k in args.threads:
            tag = f"N={n}" + (f", {k} threads" if k > 1 else "")
            add(f"Yacht-v0 batched {tag} (make_vec step)",
                lambda n=n, k=k: Batched(args.rules, n, args.seed, False, k), args.batch_steps)
            add(f"Yacht-v0 batched {tag} (bare kernel)",
                lambda n=n, k=k: Batched(args.rules, n, args.seed, True, k), args.batch_steps)
    add("OpenSpiel yacht (pyspiel, 1 player, sorted)", lambda: OpenSpiel(args.seed), args.steps)
    add("gym-yahtzee (YahtzeeSingleEnv)", lambda: GymYahtzee(args.seed, args.gym_yahtzee_path), args.steps // 4)

    for c in contenders:  # warm up (numba compiles outside the timer)
        c[1].run(2)
        if isinstance(c[1], Batched):
            c[1].cpu = 0.0
    load = os.getloadavg()[0]
    for _ in tqdm(range(args.rounds), desc="rounds", leave=False):
        for c in contenders:
            c[3] += c[1].run(max(1, c[2] // args.rounds))
    rate = {name: (steps // args.rounds) * args.rounds / spent for name, _, steps, spent in contenders}

    print(f"load average {load:.1f} -> {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; "
          f"{args.rounds} interleaved rounds")
    per_round = {name: (steps // args.rounds) * args.rounds for name, _, steps, _ in contenders}
    print(f"{'contender (random legal play)':<56} {'steps/s':>14} {'per CPU-second':>16}")
    for name, runner, _, _ in contenders:
        cpu = f"{per_round[name] / runner.cpu:>16,.0f}" if isinstance(runner, Batched) else ""
        print(f"{name:<56} {rate[name]:>14,.0f} {cpu}")
    for name, why in failed:
        print(f"{name:<56} {'n/a':>14}  {why}")
    print("\nratios")
    for peer in ("OpenSpiel yacht (pyspiel, 1 player, sorted)", "gym-yahtzee (YahtzeeSingleEnv)"):
        if peer in rate:
            for name, r in rate.items():
                if name.startswith("Yacht-v0"):
                    print(f"  {name} / {peer.split(' (')[0]}: {r / rate[peer]:.1f}x")
    return 0 if single in rate else 1
