"""Yacht-v0 through the tools Gymnasium and SB3 users reach for: every make_vec mode and autoreset mode,
sb3-contrib's masking, env checkers, spec and render_mode, pickling, and the docstrings' sections."""
import re
import warnings
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AutoresetMode

import yacht_env  # noqa: F401 - registers the ids
from tests.five_dice import five_dice_presets
from tests.envs.vector_play import assert_same_info, random_actions, within
from yacht_env.core.dice_source import game_seed
from yacht_env.envs.env import YachtEnv
from yacht_env.rules import load

MODES = ("vector_entry_point", "sync", "async")
SECONDS = 120   # the most any one scenario may take before it counts as a hang
KEYS = ("action_mask", "total", "game_seed", "illegal_action")


def make_vec(mode, n=3, autoreset=None, **kw):
    """make_vec in `mode`, with Gymnasium's autoreset mode `autoreset` (None: the mode's default)."""
    if autoreset is not None:
        if mode == "vector_entry_point":
            kw["autoreset_mode"] = autoreset
        else:
            kw["vector_kwargs"] = {"autoreset_mode": autoreset}
    return gym.make_vec("Yacht-v0", num_envs=n, vectorization_mode=mode, **kw)


def closing(envs, scenario):
    """Run scenario(envs) and close the envs, all within SECONDS; a failure still ends their processes."""
    def run():
        try:
            scenario(envs)
        except BaseException:
            if isinstance(envs.unwrapped, gym.vector.AsyncVectorEnv):
                envs.close(terminate=True)
            raise
        envs.close()
    within(SECONDS, run)
    assert envs.closed


def play(envs, seed, steps, rng_seed=0):
    """reset(seed) then `steps` random legal steps: the list of what reset and each step returned."""
    out = [envs.reset(seed=seed)]
    rng = np.random.default_rng(rng_seed)
    for _ in range(steps):
        out.append(envs.step(random_actions(out[-1][-1]["action_mask"], rng)))
    return out


SEEDS = [0, 1, 2, 3, 17, 2 ** 31, 2 ** 32 + 5, 2 ** 62, 2 ** 63 - 1, 2 ** 63, 2 ** 64 - 3]


@pytest.mark.parametrize("mode", MODES)
def test_every_mode_resets_with_many_seeds_steps_and_closes(mode):
    """Seeds anywhere in 0 .. 2**64 - N: game seeds as uint64 info; random legal play across game ends; close."""
    def scenario(envs):
        for seed in SEEDS:
            obs, info = envs.reset(seed=seed)
            assert envs.observation_space.contains(obs)
            assert info["game_seed"].dtype == np.uint64
            assert info["game_seed"].tolist() == [game_seed(seed + i, 0) for i in range(3)]
            assert info["total"].tolist() == [0, 0, 0] and info["_game_seed"].all()
        ended = 0
        rng = np.random.default_rng(1)
        for _ in range(60):                                    # 13 turns end within 39 steps
            obs, rewards, terminated, truncated, info = envs.step(random_actions(info["action_mask"], rng))
            assert envs.observation_space.contains(obs) and rewards.shape == terminated.shape == (3,)
            assert terminated.dtype == truncated.dtype == np.bool_ and not truncated.any()
            assert not info["illegal_action"].any() and info["action_mask"].dtype == np.int8
            ended += terminated.sum()
        assert ended >= 3
    closing(make_vec(mode), scenario)


@pytest.mark.parametrize("autoreset", [AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP], ids=str)
def test_the_three_modes_play_the_same_games(autoreset):
    """Same seed, same autoreset mode: the same observations, rewards, terminations and infos, step by step."""
    runs = {}

    def record(mode):
        def scenario(envs):
            runs[mode] = play(envs, seed=11, steps=90)
        return scenario
    for mode in MODES:
        closing(make_vec(mode, autoreset=autoreset), record(mode))
    native = runs["vector_entry_point"]
    assert sum(step[2].sum() for step in native[1:]) >= 3      # the run crossed game ends
    for mode in ("sync", "async"):
        for t, (a, b) in enumerate(zip(native, runs[mode])):
            assert np.array_equal(a[0], b[0]), (mode, t)
            if len(a) == 5:                                    # a step: rewards, terminated, truncated too
                for x, y in zip(a[1:4], b[1:4]):
                    assert np.array_equal(x, y), (mode, t)
            assert_same_info(a[-1], b[-1], f"{mode} step {t}")


def test_default_autoreset_modes_and_how_to_choose_one():
    native, sync = make_vec("vector_entry_point"), make_vec("sync")
    assert native.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert sync.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP     # Gymnasium's default
    assert make_vec("sync", autoreset=AutoresetMode.SAME_STEP).metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert make_vec("vector_entry_point", autoreset="NextStep").metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    assert type(native).metadata["autoreset_mode"] == AutoresetMode.SAME_STEP   # per instance, not per class
    with pytest.raises(gym.error.Error, match="vector_kwargs` is not empty"):
        gym.make_vec("Yacht-v0", 2, vectorization_mode="vector_entry_point",
                     vector_kwargs={"autoreset_mode": AutoresetMode.NEXT_STEP})


def single_replay(seed):
    """A Yacht-v0 env seeded like sub-env 0: the oracle for the end-of-episode tests."""
    env = YachtEnv()
    return env, *env.reset(seed=seed)


def play_until_game_0_ends(envs, seed):
    """Step random legal actions until game 0 ends, checking it against a single env; returns
    (single env, its last obs and info, the vector step that ended it)."""
    single, o, inf = single_replay(seed)
    obs, info = envs.reset(seed=seed)
    rng = np.random.default_rng(2)
    while True:
        actions = random_actions(info["action_mask"], rng)
        step = envs.step(actions)
        obs, rewards, terminated, _, info = step
        o, r, d, _, inf = single.step(int(actions[0]))
        assert rewards[0] == r and terminated[0] == d
        if d:
            return single, o, inf, step
        assert np.array_equal(obs[0], o)


@pytest.mark.parametrize("mode", MODES)
def test_same_step_end_of_episode(mode):
    """SAME_STEP: the ending step shows the next game's first obs; the last one is in final_obs / final_info."""
    def scenario(envs):
        single, last_obs, last_info, (obs, _, _, _, info) = play_until_game_0_ends(envs, 21)
        assert info["_final_obs"][0] and info["_final_info"][0]
        assert np.array_equal(info["final_obs"][0], last_obs)
        for key in KEYS:
            assert np.array_equal(info["final_info"][key][0], last_info[key]) and info["final_info"][f"_{key}"][0]
        assert info["final_info"]["game_seed"][0] == game_seed(21, 0) and info["final_info"]["action_mask"][0].all()
        first_obs, first_info = single.reset()
        assert np.array_equal(obs[0], first_obs)
        assert info["game_seed"][0] == game_seed(21, 1) and info["total"][0] == 0
        assert np.array_equal(info["action_mask"][0], first_info["action_mask"])
        action = int(np.flatnonzero(first_info["action_mask"])[-1])
        obs, rewards, terminated, _, info = envs.step(np.array([action, *random_actions(info["action_mask"][1:],
                                                                                        np.random.default_rng(0))]))
        o, r, d, _, inf = single.step(action)                  # the next step plays the new game
        assert np.array_equal(obs[0], o) and rewards[0] == r and info["total"][0] == inf["total"]
    closing(make_vec(mode, autoreset=AutoresetMode.SAME_STEP), scenario)


@pytest.mark.parametrize("mode", MODES)
def test_next_step_end_of_episode(mode):
    """NEXT_STEP: the ending step shows the last obs; the next step ignores the action and starts the next game."""
    def scenario(envs):
        single, last_obs, last_info, (obs, _, _, _, info) = play_until_game_0_ends(envs, 22)
        assert "final_obs" not in info and "final_info" not in info
        assert np.array_equal(obs[0], last_obs)
        for key in KEYS:
            assert np.array_equal(info[key][0], last_info[key])
        assert info["action_mask"][0].all() and info["game_seed"][0] == game_seed(22, 0)
        rest = random_actions(info["action_mask"][1:], np.random.default_rng(0))
        obs, rewards, terminated, _, info = envs.step(np.array([0, *rest]))   # action 0 is ignored for game 0
        first_obs, first_info = single.reset()
        assert rewards[0] == 0 and not terminated[0] and not info["illegal_action"][0]
        assert np.array_equal(obs[0], first_obs) and info["game_seed"][0] == game_seed(22, 1)
        assert np.array_equal(info["action_mask"][0], first_info["action_mask"])
    envs = make_vec(mode, autoreset=AutoresetMode.NEXT_STEP if mode == "vector_entry_point" else None)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    closing(envs, scenario)


@pytest.mark.parametrize("mode", MODES)
def test_disabled_autoreset_restarts_with_a_reset_mask(mode):
    """DISABLED: a finished game waits for reset(options={"reset_mask": ...}), which starts its next episode."""
    def scenario(envs):
        single, o, inf = single_replay(23)
        obs, info = envs.reset(seed=23)
        mask, rng, restarted = info["action_mask"], np.random.default_rng(2), 0
        while True:
            actions = random_actions(mask, rng)
            obs, _, terminated, _, info = envs.step(actions)
            o, r, d, _, inf = single.step(int(actions[0]))
            assert np.array_equal(obs[0], o) and terminated[0] == d and "final_obs" not in info
            mask = info["action_mask"]
            if d:
                break
            if terminated[1:].any():                          # another game ended first: restart it alone
                which = terminated.copy()
                obs, info = envs.reset(options={"reset_mask": which})
                assert info["_game_seed"].tolist() == which.tolist()
                mask = np.where(which[:, None], info["action_mask"], mask)
                restarted += 1
        others = obs[1:].copy()
        obs, info = envs.reset(options={"reset_mask": np.array([True, False, False])})
        first_obs, _ = single.reset()
        assert np.array_equal(obs[0], first_obs) and info["game_seed"][0] == game_seed(23, 1)
        assert info["_game_seed"].tolist() == [True, False, False]
        assert np.array_equal(obs[1:], others)                 # the other games were left as they were
        assert restarted > 0
    closing(make_vec(mode, autoreset=AutoresetMode.DISABLED), scenario)


@pytest.mark.parametrize("mode", MODES)
def test_reset_without_a_seed_continues_every_stream(mode):
    def scenario(envs):
        envs.reset(seed=5)
        _, info = envs.reset()
        assert info["game_seed"].tolist() == [game_seed(5 + i, 1) for i in range(3)]
        _, info = envs.reset(seed=[9, None, 2 ** 64 - 1])
        assert info["game_seed"].tolist() == [game_seed(9, 0), game_seed(6, 2), game_seed(2 ** 64 - 1, 0)]
    closing(make_vec(mode), scenario)


@pytest.mark.filterwarnings("ignore:.*ERROR:")                  # async logs each worker's error as well
@pytest.mark.parametrize("mode", MODES)
def test_bad_seeds_options_and_actions_are_clear_errors_in_every_mode(mode):
    """The sub-env's ValueError reaches the caller in every mode, and async still closes (no hang)."""
    checks = [(lambda envs: envs.reset(seed=2 ** 64 - 2), r"a seed must be an integer 0 \.\. 2\*\*64 - "),
              (lambda envs: envs.reset(seed=[1, 2, -3]), r"a seed must be an integer 0 \.\. 2\*\*64 - 1, got -3"),
              (lambda envs: envs.reset(seed=0, options={"level": 2}), r"got \['level'\]"),
              (lambda envs: envs.step(np.array([31.5, 31.0, 31.0])), "must be (an integer|integers) 0..43"),
              (lambda envs: envs.step(np.array([31, 31, 99])), "action 99 is not in 0..43")]
    for call, message in checks:
        def scenario(envs, call=call, message=message):
            envs.reset(seed=0)
            with pytest.raises(ValueError, match=message):
                call(envs)
        closing(make_vec(mode), scenario)                     # a failed async worker is gone: new envs


@pytest.mark.slow
def test_async_pickles_the_env_functions_for_spawned_workers():
    """`context="spawn"` pickles every env function into a fresh interpreter: the same games as sync."""
    runs = {}

    def record(name):
        def scenario(envs):
            runs[name] = play(envs, seed=3, steps=45)
        return scenario
    closing(make_vec("async", n=2, vector_kwargs={"context": "spawn"}, rules="classic", rolls_per_turn=2),
            record("spawn"))
    closing(make_vec("sync", n=2, rules="classic", rolls_per_turn=2), record("sync"))
    for a, b in zip(runs["spawn"], runs["sync"]):
        assert np.array_equal(a[0], b[0])
        assert_same_info(a[-1], b[-1])


def test_gymnasium_vector_wrappers():
    """RecordEpisodeStatistics sees returns equal to final scores under both autoreset modes; observation
    wrappers, which need NEXT_STEP, work on the batched env in that mode."""
    from gymnasium.wrappers.vector import NormalizeObservation, RecordEpisodeStatistics

    for mode, autoreset in [("vector_entry_point", None), ("vector_entry_point", AutoresetMode.NEXT_STEP),
                            ("sync", None)]:
        envs = RecordEpisodeStatistics(make_vec(mode, autoreset=autoreset))
        _, info = envs.reset(seed=8)
        rng = np.random.default_rng(0)
        returns, seen = np.zeros(3), 0
        while seen < 3:
            _, rewards, terminated, _, info = envs.step(random_actions(info["action_mask"], rng))
            returns += rewards
            for i in np.flatnonzero(terminated):
                assert info["_episode"][i] and info["episode"]["r"][i] == returns[i] > 0
                returns[i] = 0
                seen += 1
        envs.close()
    envs = NormalizeObservation(make_vec("vector_entry_point", autoreset=AutoresetMode.NEXT_STEP))
    obs, info = envs.reset(seed=1)
    obs, *_ = envs.step(random_actions(info["action_mask"], np.random.default_rng(0)))
    assert obs.shape == (3, 41)
    # Gymnasium 1.4 refuses SAME_STEP with this ValueError, 1.2 (RLlib's) with a bare AssertionError
    with pytest.raises((ValueError, AssertionError), match="^$|Expected autoreset_mode to be NEXT_STEP or DISABLED"):
        NormalizeObservation(make_vec("vector_entry_point"))


def test_dict_observations_in_sync_and_async():
    def scenario(envs):
        obs, info = envs.reset(seed=4)
        assert obs["dice"].shape == (2, 5) and obs["scores"].shape == (2, 1, 13)
        assert (obs["rolls_left"] == 2).all() and info["game_seed"].dtype == np.uint64
        envs.step(random_actions(info["action_mask"], np.random.default_rng(0)))
    for mode in ("sync", "async"):
        closing(make_vec(mode, n=2, obs_mode="dict"), scenario)
    with pytest.raises(ValueError, match="obs_mode='flat' only"):
        make_vec("vector_entry_point", obs_mode="dict")


# ---- sb3-contrib: MaskablePPO and ActionMasker ------------------------------------------------------

def learn(env, steps=256):
    """MaskablePPO for `steps` steps on `env` (illegal actions raise in the envs below, so this also
    proves every action taken was masked correctly); returns the model."""
    from sb3_contrib import MaskablePPO
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [32]})
    return model.learn(steps)


def envs_page() -> str:
    """The environments' page of the docs, where the README sends a reader."""
    return (Path(__file__).resolve().parents[2] / "docs" / "envs.md").read_text()


def test_envs_page_environment_block_runs():
    """The first code block of docs/envs.md, as written (it closes what it opens here)."""
    block = envs_page().split("```python\n")[1].split("```")[0]
    names = {}
    within(SECONDS, exec, block, names)
    assert names["envs"].metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP and names["envs"].num_envs == 8
    assert names["obs"].shape == (41,) and not names["truncated"]
    within(SECONDS, names["envs"].close)


@pytest.mark.slow
def test_envs_page_action_masker_recipe_learns():
    """The docs' recipe, read from docs/envs.md: ActionMasker(gym.make("Yacht-v0"), <its lambda>)."""
    from sb3_contrib.common.maskable.utils import get_action_masks
    from sb3_contrib.common.wrappers import ActionMasker

    recipe = re.search(r'ActionMasker\(gym\.make\("Yacht-v0"\), (lambda e: [\w.]+\(\))\)', envs_page())
    assert recipe and recipe.group(1) == "lambda e: e.unwrapped.action_masks()"
    env = ActionMasker(gym.make("Yacht-v0", illegal_action="raise"), eval(recipe.group(1)))
    env.reset(seed=0)
    assert np.array_equal(get_action_masks(env), env.unwrapped.action_masks())
    model = learn(env)
    assert model.num_timesteps >= 256


def test_maskable_ppo_needs_no_action_masker_on_gym_make():
    """MaskablePPO finds action_masks through gym.make's wrappers itself (get_wrapper_attr)."""
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    env = gym.make("Yacht-v0", illegal_action="raise", rules="cheerio")
    env.reset(seed=1)
    assert is_masking_supported(env)
    assert np.array_equal(get_action_masks(env), env.unwrapped.action_masks())
    assert learn(env).num_timesteps >= 256


def test_action_masker_with_the_plain_lambda():
    """`lambda e: e.action_masks()` works on the env itself; on gym.make's env `e` is a wrapper that does not
    forward attributes (why docs/envs.md writes e.unwrapped)."""
    from sb3_contrib.common.wrappers import ActionMasker

    assert learn(ActionMasker(YachtEnv(illegal_action="raise"), lambda e: e.action_masks())).num_timesteps >= 256
    wrapped = ActionMasker(gym.make("Yacht-v0"), lambda e: e.action_masks())
    wrapped.reset(seed=0)
    with pytest.raises(AttributeError, match="'OrderEnforcing' object has no attribute 'action_masks'"):
        wrapped.action_masks()


@pytest.mark.parametrize("vec_env", ["dummy", "subproc"])
def test_sb3_make_vec_env_with_action_masker(vec_env):
    """SB3's make_vec_env("Yacht-v0") (which asks for render_mode="rgb_array" first) with ActionMasker."""
    from sb3_contrib.common.wrappers import ActionMasker
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    kw = {"vec_env_cls": DummyVecEnv} if vec_env == "dummy" else \
        {"vec_env_cls": SubprocVecEnv, "vec_env_kwargs": {"start_method": "fork"}}
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*render_mode='rgb_array' that is not in the possible")
        env = make_vec_env("Yacht-v0", n_envs=2, seed=0, env_kwargs={"illegal_action": "raise"},
                           wrapper_class=ActionMasker,
                           wrapper_kwargs={"action_mask_fn": lambda e: e.unwrapped.action_masks()}, **kw)
    try:
        try:
            import pygame  # noqa: F401
            drawn = "rgb_array"          # the [render] extra draws pictures
        except ImportError:
            drawn = None                 # PygameMissing is a TypeError: make_vec_env makes the env without one
        assert env.get_attr("render_mode") == [drawn, drawn]
        assert within(SECONDS, learn, env).num_timesteps >= 256
    finally:
        env.close()


def test_sb3_check_env():
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    for kw in [{}, {"reward": "terminal"}, {"columns": 2}]:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            sb3_check_env(gym.make("Yacht-v0", **kw))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sb3_check_env(gym.make("Yacht-v0", obs_mode="dict"))
    # the Dict form keeps the sheet as a (columns, boxes) array, which SB3 only advises against
    assert {re.search(r"observation (\w+) has an unconventional shape", str(w.message)).group(1)
            for w in caught} == {"scores", "preview"}


# ---- the env as Gymnasium's tooling sees it ---------------------------------------------------------

def test_gym_make_check_env_spec_and_remake():
    env = gym.make("Yacht-v0", rules="classic", rolls_per_turn=2)
    assert [type(w).__name__ for w in (env, env.env)] == ["OrderEnforcing", "PassiveEnvChecker"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env)
    assert all("is different from the unwrapped version" in str(w.message) for w in caught)
    assert env.spec.id == "Yacht-v0" and env.spec.kwargs == {"rules": "classic", "rolls_per_turn": 2}
    assert env.spec.vector_entry_point == "yacht_env.envs.vector:YachtVectorEnv"
    again = gym.make(gym.envs.registration.EnvSpec.from_json(env.spec.to_json()))
    assert again.unwrapped.rules == env.unwrapped.rules == load("classic", rolls_per_turn=2)
    a, b = env.reset(seed=6), again.reset(seed=6)
    assert np.array_equal(a[0], b[0]) and a[1]["game_seed"] == b[1]["game_seed"]
    limited = gym.make("Yacht-v0", max_episode_steps=5)
    limited.reset(seed=0)
    for _ in range(5):
        *_, terminated, truncated, _ = limited.step(31 + 12 if _ == 0 else 0)
    assert truncated and not terminated                         # Gymnasium's TimeLimit, when asked for


@pytest.mark.parametrize("mode", MODES)
def test_make_vec_spec(mode):
    envs = make_vec(mode, n=2, rules="kirakuken")
    assert envs.spec.id == "Yacht-v0"
    assert envs.spec.kwargs["vectorization_mode"] == mode and envs.spec.kwargs["rules"] == "kirakuken"
    assert envs.single_action_space == gym.spaces.Discrete(31 + 13)
    within(SECONDS, envs.close)


def test_render_modes():
    env = gym.make("Yacht-v0", render_mode="ansi")
    assert env.render_mode == "ansi" and env.metadata["render_modes"] == ["human", "rgb_array", "ansi"]
    with pytest.raises(gym.error.ResetNeeded):
        env.render()
    env.reset(seed=0)
    assert env.render().startswith("turn 1/13")
    assert gym.make("Yacht-v0").render_mode is None
    for bad in ("video", "rgb", 3, ["ansi"]):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            message = "render_mode must be one of None, 'human', 'rgb_array', 'ansi', got " + repr(bad)
            with pytest.raises(ValueError, match=re.escape(message)) as e:
                gym.make("Yacht-v0", render_mode=bad) if isinstance(bad, str) else YachtEnv(render_mode=bad)
        assert isinstance(e.value, TypeError)                   # what SB3's make_vec_env falls back on
    envs = make_vec("sync", n=2, render_mode="ansi")
    envs.reset(seed=0)
    frames = envs.render()
    assert len(frames) == 2 and all(f.startswith("turn 1/13") for f in frames) and frames[0] != frames[1]
    with pytest.raises(ValueError, match="the batched env does not render, got render_mode='ansi'"):
        make_vec("vector_entry_point", render_mode="ansi")


# ---- docstrings ---------------------------------------------------------------------------------------

SECTIONS = ("Description", "Action Space", "Observation Space", "Rewards", "Starting State", "Episode End",
            "Arguments", "Version History")


def env_classes():
    from yacht_env.integrations.pettingzoo import raw_env
    from yacht_env.integrations.sb3 import YachtVecEnv
    from yacht_env.envs.vector import YachtVectorEnv
    from yacht_env.envs.vs_env import YachtVsEnv
    from yacht_env.envs.vs_vector import YachtVsVectorEnv
    return [YachtEnv, YachtVectorEnv, YachtVecEnv, raw_env, YachtVsEnv, YachtVsVectorEnv]


@pytest.mark.parametrize("cls", env_classes(), ids=lambda c: c.__name__)
def test_env_docstrings_have_the_gymnasium_sections(cls):
    doc = cls.__doc__
    found = re.findall(r"^    ## (.+)$", doc, flags=re.M)
    assert [s for s in found if s in SECTIONS] == list(SECTIONS), found
    assert "* v0:" in doc.split("## Version History")[1]


@pytest.mark.parametrize("rules", five_dice_presets())
@pytest.mark.parametrize("columns", [1, 3])
def test_docstring_space_formulas_match_the_spaces(rules, columns):
    """The sizes the docstrings give: Discrete(31 + columns * n_boxes), 13 + columns * (2 * n_boxes + 2)."""
    doc = YachtEnv.__doc__
    assert "`Discrete(31 + columns * n_boxes)` (44 under the `yacht` preset)" in doc
    assert "`Box(0, 1, (13 + columns * (2 * n_boxes + 2),), float32)`, 41 entries" in doc
    env = YachtEnv(rules=rules, columns=columns)
    n_boxes = len(env.rules.boxes)
    assert env.action_space.n == 31 + columns * n_boxes
    assert env.observation_space.shape == (13 + columns * (2 * n_boxes + 2),)
    assert YachtEnv().action_space.n == 44 and YachtEnv().observation_space.shape == (41,)
    from yacht_env.envs import obs
    assert (obs.DICE, obs.FACE_COUNTS, obs.ROLLS_LEFT, obs.TURNS_PLAYED) == (slice(0, 5), slice(5, 11), 11, 12)
    for c in range(columns):                                   # the table's base + ... rows
        base = 13 + c * (2 * n_boxes + 2)
        b = n_boxes
        assert obs.column_layout(env.rules, c) == (slice(base, base + b), slice(base + b, base + 2 * b),
                                                   base + 2 * b, base + 2 * b + 1)
    from yacht_env.integrations.pettingzoo import raw_env
    if env.rules.max_players >= 4:
        seat = raw_env(num_players=4, rules=rules, columns=columns).observation_space("player_0")
        assert seat["observation"].shape == (13 + columns * (2 * n_boxes + 2) + 4 * 4 - 3,)
