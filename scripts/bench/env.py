"""`bench.py env`: steps per second of random legal play, ours against OpenSpiel and gym-yahtzee.

A step is one decision of the player (a re-roll or a scoring). Only the stepping is timed: for our
envs the step call (its mask comes with it); for OpenSpiel `legal_actions()` plus `apply_action`
for the decision and for the chance node after it (its outcome drawn directly as an index); for
gym-yahtzee `get_possible_actions()` plus `step`. Random choices are drawn outside the timer.
"""

from __future__ import annotations

import sys
import time

import numpy as np


def add_parser(sub):
    p = sub.add_parser("env", help="steps/s of the Yacht envs and their peers", description=__doc__)
    p.add_argument("--steps", type=int, default=100_000, help="decisions per single-game measurement")
    p.add_argument("--batch-steps", type=int, default=300, help="batched steps per measurement")
    p.add_argument("--sizes", type=int, nargs="+", default=[1024, 4096], help="batched env sizes")
    p.add_argument("--rules", default="yacht", help="rule set of our envs")
    p.add_argument("--gym-yahtzee-path", default=None,
                   help="folder holding gym-yahtzee and its old `gym` (kept out of the venv: "
                        "pip install --no-deps --target DIR gym==0.26.2 gym-yahtzee pyhtzee gym_notices)")
    p.add_argument("--seed", type=int, default=0)
    return p


def bench_single(rules: str, steps: int, seed: int) -> float:
    import gymnasium as gym

    import yacht_env  # noqa: F401 - registers Yacht-v0

    env = gym.make("Yacht-v0", rules=rules)
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    env.step(int(np.flatnonzero(info["action_mask"])[0]))  # compile outside the timer
    _, info = env.reset(seed=seed)
    clock = time.perf_counter
    spent = 0.0
    for _ in range(steps):
        legal = np.flatnonzero(info["action_mask"])
        a = int(legal[int(rng.random() * len(legal))])
        t = clock()
        _, _, done, _, info = env.step(a)
        spent += clock() - t
        if done:
            _, info = env.reset()
    return steps / spent


def bench_batched(rules: str, n: int, steps: int, seed: int) -> tuple[float, float]:
    """(steps/s of YachtVectorEnv.step, steps/s of the bare compiled kernel)."""
    import gymnasium as gym

    import yacht_env  # noqa: F401
    from yacht_env.batch import random_legal

    envs = gym.make_vec("Yacht-v0", num_envs=n, vectorization_mode="vector_entry_point", rules=rules)
    rng = np.random.default_rng(seed)
    actions = np.zeros(n, np.int64)
    rates = []
    for bare in (False, True):
        _, info = envs.reset(seed=seed)
        mask = envs.unwrapped.batch.mask if bare else info["action_mask"]
        random_legal(mask, rng.random(n), actions)
        envs.step(actions)  # compile outside the timer
        spent = 0.0
        for _ in range(steps):
            random_legal(mask, rng.random(n), actions)
            t = time.perf_counter()
            if bare:
                envs.unwrapped.batch.step(actions)
            else:
                _, _, _, _, info = envs.step(actions)
            spent += time.perf_counter() - t
            if not bare:
                mask = info["action_mask"]
        rates.append(n * steps / spent)
    return rates[0], rates[1]


def bench_openspiel(steps: int, seed: int) -> float:
    import pyspiel

    game = pyspiel.load_game("yacht", {"players": 1, "sort_dice": True})
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    if len(state.chance_outcomes()) != 6 ** 5:  # the outcome count we draw from, checked once
        raise RuntimeError("OpenSpiel yacht: unexpected chance outcome count")
    state.apply_action(int(rng.random() * 6 ** 5))
    clock = time.perf_counter
    spent = 0.0
    for _ in range(steps):
        u, v = rng.random(), rng.random()
        t = clock()
        legal = state.legal_actions()
        a = legal[int(u * len(legal))]
        state.apply_action(a)
        if state.is_terminal():
            spent += clock() - t
            state = game.new_initial_state()
            state.apply_action(int(v * 6 ** 5))
            continue
        if state.is_chance_node():
            # a in 1..31 re-rolls the dice whose bits are set; a scoring starts a turn of five dice
            state.apply_action(int(v * 6 ** (bin(a).count("1") if a < 32 else 5)))
        spent += clock() - t
    return steps / spent


def bench_gym_yahtzee(steps: int, seed: int, path: str | None) -> float:
    if path:
        sys.path.insert(0, path)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from gym_yahtzee.envs.yahtzee_env import YahtzeeSingleEnv
    env = YahtzeeSingleEnv(seed=seed)
    env.reset()
    rng = np.random.default_rng(seed)
    clock = time.perf_counter
    spent = 0.0
    for _ in range(steps):
        u = rng.random()
        t = clock()
        legal = env.pyhtzee.get_possible_actions()
        _, _, done, _ = env.step(legal[int(u * len(legal))])
        spent += clock() - t
        if done:
            env.reset()
    return steps / spent


def run(args) -> int:
    rows = []

    def add(name, fn):
        try:
            rate = fn()
        except Exception as exc:  # noqa: BLE001 - a peer that cannot run is reported, not fatal
            rows.append((name, None, f"{type(exc).__name__}: {exc}"))
        else:
            rows.append((name, rate, ""))
        name_, rate_, note = rows[-1]
        print(f"{name_:<44} {f'{rate_:,.0f}' if rate_ else 'n/a':>14}  {note}", flush=True)

    print(f"{'env (random legal play)':<44} {'steps/s':>14}")
    add(f"Yacht-v0 single (gymnasium.make, {args.rules})", lambda: bench_single(args.rules, args.steps, args.seed))
    for n in args.sizes:
        both = {}
        add(f"Yacht-v0 batched N={n} (make_vec step)",
            lambda n=n: both.setdefault("r", bench_batched(args.rules, n, args.batch_steps, args.seed))[0])
        if "r" in both:
            rows.append((f"Yacht-v0 batched N={n} (bare kernel)", both["r"][1], ""))
            print(f"{rows[-1][0]:<44} {both['r'][1]:>14,.0f}", flush=True)
    add("OpenSpiel yacht (pyspiel, 1 player, sorted)", lambda: bench_openspiel(args.steps, args.seed))
    add("gym-yahtzee (YahtzeeSingleEnv)", lambda: bench_gym_yahtzee(args.steps // 4, args.seed,
                                                                      args.gym_yahtzee_path))
    rate = {name: r for name, r, _ in rows if r}
    single = rate.get(rows[0][0])
    print("\nratios")
    for peer in ("OpenSpiel yacht (pyspiel, 1 player, sorted)", "gym-yahtzee (YahtzeeSingleEnv)"):
        if peer not in rate:
            continue
        for name, r, _ in rows:
            if r and name.startswith("Yacht-v0"):
                print(f"  {name} / {peer.split(' (')[0]}: {r / rate[peer]:.1f}x")
    return 0 if single else 1
