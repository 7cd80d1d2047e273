"""The batched envs on two stepping threads play the recorded games, the same as on one thread.

`test_env_records` digests every env facade on a few tables, where the step never splits between
threads (`yacht_env.envs.step_threads.MIN_SLICE`). Here each table core mode runs enough tables for
two slices: the one-seat kernel (autoreset on and off, points and terminal rewards), a learner's
seat against a planned opponent (`strong`: `step_planned`, points and win) and against uniform
random ones, every step's observations, rewards, terminations and info digested
(`python tests/envs/test_env_threads_records.py` prints the digests).
"""
import hashlib

import gymnasium as gym
import numpy as np
import pytest

import yacht_env  # noqa: F401 - registers the envs
from tests.envs.test_env_records import digest_value
from tests.envs.vector_play import random_actions
from yacht_env.envs.step_threads import MIN_SLICE

N = 2 * MIN_SLICE + 37      # two slices on two threads
STEPS = 14

CASES = {
    "solo-autoreset": ("Yacht-v0", dict(autoreset_mode="SameStep")),
    "solo-terminal-disabled": ("Yacht-v0", dict(autoreset_mode="Disabled", reward="terminal")),
    "vs-strong-rotate": ("YachtVs-v0", dict(num_players=3, opponents="strong", seat="rotate")),
    "vs-strong-win": ("YachtVs-v0", dict(num_players=2, opponents="strong", reward="win")),
    "vs-random": ("YachtVs-v0", dict(num_players=2, autoreset_mode="Disabled")),
}


def play(env_id, kw, num_threads, steps=STEPS, seed=11):
    """Digest of a batched env of N tables played with random legal moves (an illegal one now and then)."""
    env = gym.make_vec(env_id, num_envs=N, vectorization_mode="vector_entry_point", num_threads=num_threads, **kw)
    h, rng = hashlib.sha256(), np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    digest_value(h, (obs, info))
    for k in range(steps):
        actions = random_actions(info["action_mask"], rng)
        actions[k % N] = 0 if not info["action_mask"][k % N, 0] else actions[k % N]
        obs, rew, term, trunc, info = env.step(actions)
        digest_value(h, (obs, rew, term, trunc, info))
        if term.any() and env.metadata.get("autoreset_mode") == gym.vector.AutoresetMode.DISABLED:
            obs, info = env.reset(options={"reset_mask": term.copy()})
            digest_value(h, (obs, info))
    env.close()
    return h.hexdigest()[:16]


DIGESTS = {
    "solo-autoreset": "72d84934731649f1",
    "solo-terminal-disabled": "ef46ea54ddfad311",
    "vs-strong-rotate": "f7c0e2948532e1b9",
    "vs-strong-win": "3a40a96bdb653e74",
    "vs-random": "35f503aca7ccb2b2",
}


@pytest.mark.parametrize("name", list(CASES))
def test_two_threads_play_the_recorded_games(name):
    env_id, kw = CASES[name]
    one, two = play(env_id, kw, 1), play(env_id, kw, 2)
    assert one == two == DIGESTS[name]


if __name__ == "__main__":
    for name, (env_id, kw) in CASES.items():
        print(f"    {name!r}: {play(env_id, kw, 1)!r},  # two threads: {play(env_id, kw, 2)!r}")
