"""Every environment facade plays the same games as before the shared table core, game by game.

Each case plays a few envs with seeded random legal moves through resets, autoresets and episode
ends, and digests everything the env returned: observations, rewards, terminated/truncated/dones and
every info key the env had then. The digests were taken on the code before the shared core (commit
6a78016, `python tests/envs/test_env_records.py` prints them); keys added since are left out of the digest.
The `single-*` and `pz-*` digests (the single `Yacht-v0` and the PettingZoo env) were taken on commit
a258820, before the one table core stepped them. The `vs*` digests of opponents asked move by move (not
planned) were retaken when a table's final observation came to show the dice the learner scored last, as the
planned path's always had (before, it showed the first roll of the learner's last turn).
"""
import hashlib
import sys

import gymnasium as gym
import numpy as np
import pytest

import yacht_env  # noqa: F401 - registers the envs
from tests.five_dice import five_dice_presets

KNOBS = [{"rolls_per_turn": 2}, {"columns": 2}, {"joker": "free"}, {"extra_yacht_bonus": False},
         {"reward": "terminal"}]
STEPS = 90


def digest_value(h, value, skip=()):
    if isinstance(value, dict):
        for k in sorted(value):
            if k in skip:
                continue
            h.update(str(k).encode())
            digest_value(h, value[k], skip)
    elif isinstance(value, (list, tuple)):
        h.update(f"[{len(value)}".encode())
        for v in value:
            digest_value(h, v, skip)
    elif isinstance(value, np.ndarray):
        h.update(str(value.dtype).encode() + str(value.shape).encode() + np.ascontiguousarray(value).tobytes())
    else:
        h.update(repr(value).encode())


def play_vector(env, steps=STEPS, seed=7, keys=None, new=("t",)):
    """Digest of a Gymnasium vector env played with random legal moves (`new`: keys left out, at any depth)."""
    h, rng = hashlib.sha256(), np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    seen = set(info)
    digest_value(h, (obs, {k: info[k] for k in (keys or info) if k in info}))
    for _ in range(steps):
        mask = info["action_mask"].astype(bool)
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        if rng.random() < 0.05:
            acts[0] = 0 if not mask[0, 0] else acts[0]      # an illegal action now and then
        obs, rew, term, trunc, info = env.step(acts)
        seen |= set(info)
        digest_value(h, (obs, rew, term, trunc, {k: info[k] for k in (keys or info) if k in info}), skip=new)
        if env.metadata.get("autoreset_mode") == gym.vector.AutoresetMode.DISABLED and term.any():
            obs, info = env.reset(options={"reset_mask": term.copy()})
            digest_value(h, (obs, {k: info[k] for k in (keys or info) if k in info}))
    env.close()
    return h.hexdigest()[:16], sorted(seen)


def play_sb3(env, steps=STEPS, seed=7):
    h, rng = hashlib.sha256(), np.random.default_rng(seed)
    env.seed(seed)
    obs = env.reset()
    digest_value(h, obs)
    for _ in range(steps):
        mask = env.action_masks()
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        obs, rew, dones, infos = env.step(acts)
        old = [{k: v for k, v in i.items() if k in ("terminal_observation", "final_total", "TimeLimit.truncated",
                                                      "episode")} for i in infos]
        digest_value(h, (obs, rew, dones, old), skip=("t",))
    env.close()
    return h.hexdigest()[:16]


def play_single(kw, env_id="YachtVs-v0", steps=STEPS, seed=7, new=()):
    h, rng = hashlib.sha256(), np.random.default_rng(seed)
    env = gym.make(env_id, **kw)
    obs, info = env.reset(seed=seed)
    digest_value(h, (obs, info), skip=new)
    for _ in range(steps):
        a = int(rng.choice(np.flatnonzero(info["action_mask"]))) if rng.random() > 0.05 else 0
        obs, rew, term, trunc, info = env.step(a)
        digest_value(h, (obs, rew, term, trunc, info), skip=new)
        if term:
            obs, info = env.reset()
            digest_value(h, (obs, info), skip=new)
    env.close()
    return h.hexdigest()[:16]


def play_pettingzoo(kw, games=2, seed=7):
    """Digest of `games` episodes of the PettingZoo AEC env with random legal moves: every `last()`."""
    from yacht_env.integrations.pettingzoo import env as aec
    h, rng = hashlib.sha256(), np.random.default_rng(seed)
    e = aec(**kw)
    for k in range(games):
        e.reset(seed=seed if k == 0 else None)
        for agent in e.agent_iter():
            obs, rew, term, trunc, info = e.last()
            digest_value(h, (agent, obs, rew, term, trunc, info))
            e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    e.close()
    return h.hexdigest()[:16]


MODES = ["SameStep", "NextStep", "Disabled"]
VECTOR_KEYS = ["action_mask", "_action_mask", "total", "_total", "game_seed", "_game_seed", "illegal_action",
               "_illegal_action", "final_obs", "_final_obs", "final_info", "_final_info"]
VS_KEYS = ["action_mask", "_action_mask", "seat", "_seat", "totals", "_totals", "game_seed", "_game_seed",
           "illegal_action", "_illegal_action", "final_obs", "_final_obs", "final_info", "_final_info", "final_total"]


def vector_cases():
    for p in sorted(five_dice_presets()):
        for mode in MODES:
            yield f"vector-{p}-{mode}", dict(rules=p, autoreset_mode=mode)
    for knob in KNOBS:
        yield f"vector-yacht-{knob}", dict(rules="yacht", **knob)


def vs_cases():
    for p in sorted(five_dice_presets()):
        yield f"vs-{p}", dict(rules=p, num_players=2)
    yield "vs-yacht-strong", dict(rules="yacht", num_players=3, opponents="strong", seat="rotate")
    yield "vs-yacht-strong-win", dict(rules="yacht", num_players=2, opponents=["strong"], reward="win")
    yield "vs-yacht-mixed", dict(rules="yacht", num_players=3, opponents=["greedy", "strong"])
    yield "vs-classic-teams", dict(rules="classic", num_players=4, teams=2, seat="rotate")
    yield "vs-yacht-knobs", dict(rules="yacht", num_players=2, rolls_per_turn=2, columns=2, joker="free")


def compute(name, kw):
    kind = name.split("-")[0]
    if kind == "vector":
        return play_vector(gym.make_vec("Yacht-v0", num_envs=3, vectorization_mode="vector_entry_point", **kw),
                           keys=VECTOR_KEYS)[0]
    if kind == "vs":     # `total` (the learner's) came with the one table core
        return play_vector(gym.make_vec("YachtVs-v0", num_envs=3, vectorization_mode="vector_entry_point", **kw),
                           keys=VS_KEYS, new=("t", "total", "_total"))[0]
    if kind == "vs1":
        return play_single(kw, new=("total",))
    if kind == "single":
        return play_single(kw, "Yacht-v0")
    if kind == "pz":
        return play_pettingzoo(kw)
    from yacht_env.integrations.sb3 import YachtVecEnv, YachtVsVecEnv
    if kind == "sb3":
        return play_sb3(YachtVecEnv(3, **kw))
    return play_sb3(YachtVsVecEnv(3, **kw))


def cases():
    yield from vector_cases()
    yield from vs_cases()
    yield "vs1-yacht", dict(rules="yacht", num_players=2)
    yield "vs1-yacht-strong", dict(rules="yacht", num_players=3, opponents="strong", seat="rotate", reward="win")
    yield "sb3-yacht", dict(rules="yacht")
    yield "sb3-knizia-terminal", dict(rules="knizia", reward="terminal")
    yield "sb3vs-yacht-strong", dict(rules="yacht", num_players=2, opponents="strong")
    yield "single-yacht", dict(rules="yacht")
    yield "single-yacht-dict-terminal", dict(rules="yacht", obs_mode="dict", reward="terminal")
    yield "single-knizia-knobs", dict(rules="knizia", rolls_per_turn=2, columns=2)
    yield "pz-yacht-1", dict(rules="yacht", num_players=1)
    yield "pz-yacht-3", dict(rules="yacht", num_players=3)
    yield "pz-yacht-2-win", dict(rules="yacht", num_players=2, reward="win")
    yield "pz-classic-teams", dict(rules="classic", num_players=4, teams=2)
    yield "pz-cheerio-2", dict(rules="cheerio", num_players=2, columns=2)
    yield "pz-yacht-rolloff", dict(rules="yacht", num_players=3, first_player="roll_off", tiebreak="sudden_death",
                                   reward="win")


DIGESTS = {
    'vector-cheerio-SameStep': '766d702ceedc8fd9',
    'vector-cheerio-NextStep': 'c5a5801ba4dbc091',
    'vector-cheerio-Disabled': '7003e21e9bb243e4',
    'vector-classic-SameStep': '0173a9f70e3ef19c',
    'vector-classic-NextStep': '71c8c9a116fda03b',
    'vector-classic-Disabled': '962f68c78368a3d1',
    'vector-extended-SameStep': 'd522c347bab4ca70',
    'vector-extended-NextStep': '4a838b7613adc56a',
    'vector-extended-Disabled': 'd26563804ffbc117',
    'vector-knizia-SameStep': 'f0a86a1ba1f1fb39',
    'vector-knizia-NextStep': 'd2f5bab82d8a9f5e',
    'vector-knizia-Disabled': '6626d96d78b53e49',
    'vector-verhoeff-SameStep': '099292f4e0446fff',
    'vector-verhoeff-NextStep': 'e6d167ad0e2110ce',
    'vector-verhoeff-Disabled': '043f0a1c4c70e4d8',
    'vector-yacht-SameStep': '099292f4e0446fff',
    'vector-yacht-NextStep': 'e6d167ad0e2110ce',
    'vector-yacht-Disabled': '043f0a1c4c70e4d8',
    "vector-yacht-{'rolls_per_turn': 2}": '2f6c4310e2d011fd',
    "vector-yacht-{'columns': 2}": 'fde6b358464e6807',
    "vector-yacht-{'joker': 'free'}": '099292f4e0446fff',
    "vector-yacht-{'extra_yacht_bonus': False}": '099292f4e0446fff',
    "vector-yacht-{'reward': 'terminal'}": '689e7551ef9218f7',
    'vs1-yacht': '4f72254d85c396cc',
    'vs1-yacht-strong': '48baf81cb5c3f048',
    'sb3-yacht': 'ca4128223314f6d8',
    'sb3-knizia-terminal': '45f58f5833f529cd',
    'sb3vs-yacht-strong': '47c09605e3e67a3d',
    'vs-cheerio': '7641d9dac2e712c0',
    'vs-classic': '182cb71032b7675e',
    'vs-extended': 'a44723bea5cb3c5c',
    'vs-kirakuken': 'f9fe504e8a675441',
    'vs-knizia': '34ef25aa6e401c2f',
    'vs-verhoeff': 'f9fe504e8a675441',
    'vs-yacht': 'f9fe504e8a675441',
    'vs-yacht-strong': '3fd1540eb94064b2',
    'vs-yacht-strong-win': '3914b8e32cc0c2a2',
    'vs-yacht-mixed': 'e5e518a5e129c183',
    'vs-classic-teams': '4fa1081eabf89795',
    'vs-yacht-knobs': '52c5657b5b83949f',
    'vector-kirakuken-SameStep': '099292f4e0446fff',
    'vector-kirakuken-NextStep': 'e6d167ad0e2110ce',
    'vector-kirakuken-Disabled': '043f0a1c4c70e4d8',
    'single-yacht': '5decedea8f3cb765',
    'single-yacht-dict-terminal': '4306178449a539dd',
    'single-knizia-knobs': 'e8a5e148de431c09',
    'pz-yacht-1': 'a78a35566fe04282',
    'pz-yacht-3': '34638d0243d026af',
    'pz-yacht-2-win': 'e7936e062e798c5d',
    'pz-classic-teams': '4f565d1dd3543f02',
    'pz-cheerio-2': '05ebbcc0c81ff107',
    'pz-yacht-rolloff': 'fdc8d9ae5f7f0624',
    # Scandinavian Yatzy (issue 38): first recorded when the preset came, on the one table core
    'vector-yatzy-SameStep': '95ee96e5c8dfe4f9',
    'vector-yatzy-NextStep': '8e9bc3b04072675f',
    'vector-yatzy-Disabled': 'af1b664404ee8898',
    'vs-yatzy': '08c966fe1674cd41',
}


@pytest.mark.parametrize("name,kw", list(cases()), ids=[c[0] for c in cases()])
def test_the_games_are_the_games_played_before(name, kw):
    assert compute(name, kw) == DIGESTS[name]


@pytest.mark.parametrize("mode", ["SameStep", "NextStep"])
@pytest.mark.parametrize("env_id,kw", [("Yacht-v0", {}), ("YachtVs-v0", {"num_players": 3, "seat": 1})])
def test_the_single_and_the_batched_env_give_the_same_info_keys(env_id, kw, mode):
    """The table core builds both infos: the same keys at every step (the batched terminal step's under
    SAME_STEP in `final_info`), apart from Gymnasium's `_key` arrays and the autoreset entries."""
    def keys(info):
        return {k for k in info if not k.startswith("_")} - {"final_obs", "final_info", "final_total"}

    single = gym.make(env_id, **kw)
    batched = gym.make_vec(env_id, num_envs=1, vectorization_mode="vector_entry_point", autoreset_mode=mode, **kw)
    _, one = single.reset(seed=3)
    _, many = batched.reset(seed=3)
    assert keys(one) == keys(many) and "total" in keys(one)
    for _ in range(200):
        a = int(np.flatnonzero(one["action_mask"])[-1])
        _, _, over, _, one = single.step(a)
        _, _, _, _, many = batched.step(np.array([a]))
        assert keys(one) == keys(many["final_info"] if over and mode == "SameStep" else many)
        if over:
            break
    assert over and ("winners" in one) == (env_id == "YachtVs-v0")
    single.close()
    batched.close()


if __name__ == "__main__":
    for name, kw in cases():
        try:
            print(f"    {name!r}: {compute(name, kw)!r},")
        except Exception as e:  # noqa: BLE001
            print(f"    # {name}: {type(e).__name__}: {e}", file=sys.stderr)
