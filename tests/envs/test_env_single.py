"""Yacht-v0: Gymnasium API, masks, rewards against the Game model, illegal actions, seeding."""
import copy
import pickle
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import given, settings
from hypothesis import strategies as st

import yacht_env  # registers the ids
from tests.five_dice import five_dice_presets
from yacht_env import Game, IllegalMove
from yacht_env.core.dice_source import game_seed
from yacht_env.envs.env import YachtEnv
from yacht_env.envs.obs import DICE, FACE_COUNTS, ROLLS_LEFT, TURNS_PLAYED, column_layout

KNOBS = [{}, {"columns": 2}, {"rolls_per_turn": 1}, {"rolls_per_turn": 4}, {"joker": "free"},
         {"extra_yacht_bonus": False}]


def make(**kw):
    return gym.make("Yacht-v0", **kw).unwrapped


def replay_in_game(env, actions, seed):
    """Play `actions` in a Game seeded like the env's episode; return per-action gains and the game."""
    g = Game(env.rules, 1, seed=seed)
    g.roll()
    gains = []
    for a in actions:
        if a < 31:
            g.roll(a)
            gains.append(0)
        else:
            g.apply(a)
            gains.append(g.log[-1]["points"] + g.log[-1]["bonus"])
            if g.phase == "roll":
                g.roll()
    return gains, g


VARIANTS = [{}, {"obs_mode": "dict"}, {"reward": "terminal"}, {"illegal_action": "raise"},
            {"render_mode": "ansi"}]


@pytest.mark.parametrize("rules", five_dice_presets())
def test_check_env_every_preset(rules):
    """Gymnasium's check_env, render check included, passes without a warning for every preset and mode."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for kw in VARIANTS:
            check_env(make(rules=rules, **kw), skip_render_check=False)


@pytest.mark.parametrize("knobs", KNOBS, ids=str)
def test_check_env_knobs(knobs):
    env = make(rules="yacht", **knobs)
    check_env(env)
    assert env.action_space.n == 31 + env.rules.columns * 13


def play_random(env, seed, episodes=1):
    """Random legal play; yields (actions, rewards, infos) per episode."""
    rng = np.random.default_rng(seed)
    for k in range(episodes):
        obs, info = env.reset(seed=seed) if k == 0 else env.reset()
        actions, rewards, infos = [], [], [info]
        done = False
        while not done:
            assert env.observation_space.contains(obs)
            a = int(rng.choice(np.flatnonzero(info["action_mask"])))
            obs, r, done, trunc, info = env.step(a)
            assert not trunc and not info["illegal_action"]
            actions.append(a)
            rewards.append(r)
            infos.append(info)
        yield actions, rewards, infos


@pytest.mark.parametrize("rules", five_dice_presets())
def test_rewards_match_game_model(rules):
    for knobs in KNOBS[:3]:
        env = make(rules=rules, **knobs)
        for actions, rewards, infos in play_random(env, seed=11, episodes=2):
            gains, g = replay_in_game(env, actions, infos[0]["game_seed"])
            assert rewards == gains
            assert sum(rewards) == g.totals()[0] == infos[-1]["total"]
            assert g.is_over


def test_mask_and_dice_follow_the_game_model():
    env = make(rules="yacht")
    obs, info = env.reset(seed=3)
    g = Game("yacht", 1, seed=info["game_seed"])
    g.roll()
    rng = np.random.default_rng(0)
    done = False
    while not done:
        assert (info["action_mask"] == g.legal_mask()).all()
        assert list(np.rint(obs[DICE] * 6).astype(int)) == list(g.dice)
        a = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, _, done, _, info = env.step(a)
        g.apply(a)
        if g.phase == "roll":
            g.roll()


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2 ** 32), rules=st.sampled_from(five_dice_presets()), rolls=st.integers(1, 4))
def test_mask_invariants(seed, rules, rolls):
    env = make(rules=rules, rolls_per_turn=rolls)
    for actions, _, infos in play_random(env, seed):
        for before, a in zip(infos, actions):
            m = before["action_mask"]
            assert m.dtype == np.int8 and m.any()
            assert m[a]
            # holds are all legal or all illegal, and scoring is always possible
            assert len(set(m[:31])) == 1 and m[31:].any()
        assert np.array_equal(env.action_masks(), infos[-1]["action_mask"].astype(bool))
        assert infos[-1]["action_mask"].all()  # game over: every action marked legal, never all false
        assert env.rules.rounds <= len(actions) <= env.rules.rounds * env.rules.rolls_per_turn


def test_dice_are_sorted_and_obs_in_unit_box():
    env = make(rules="extended", columns=3)
    obs, info = env.reset(seed=5)
    rng = np.random.default_rng(5)
    done = False
    while not done:
        dice = np.rint(obs[DICE] * 6)
        assert (np.diff(dice) >= 0).all() and dice.min() >= 1
        assert obs.dtype == np.float32 and obs.min() >= 0 and obs.max() <= 1
        obs, _, done, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))


def test_observation_layout_matches_game_preview():
    env = make(rules="yacht")
    obs, info = env.reset(seed=9)
    g = Game("yacht", 1, seed=info["game_seed"])
    g.roll()
    lay = column_layout(env.rules, 0)
    preview = g.preview()
    scale = yacht_env.envs.obs.box_scale(env.rules)
    for b, name in enumerate(env.rules.boxes):
        assert obs[lay.open][b] == 1.0
        assert obs[lay.preview][b] == pytest.approx(preview[(0, name)] / scale[b])
    counts = np.bincount(g.dice, minlength=7)[1:]
    assert np.allclose(obs[FACE_COUNTS], counts / 5)
    assert obs[ROLLS_LEFT] == pytest.approx(2 / 3)


def test_dict_observation():
    env = make(rules="yacht", obs_mode="dict")
    obs, info = env.reset(seed=2)
    assert obs["rolls_left"] == 2 and obs["turn"] == 0
    assert (obs["scores"] == -1).all()
    a = 31 + 12  # chance is always legal on an empty sheet
    obs, r, _, _, _ = env.step(a)
    assert obs["scores"][0, 12] == r and obs["turn"] == 1 and obs["rolls_left"] == 2


def test_terminal_reward_mode():
    env = make(rules="yacht", reward="terminal")
    for _actions, rewards, infos in play_random(env, seed=4):
        assert all(type(r) is float for r in rewards)
        assert all(r == 0 for r in rewards[:-1])
        assert rewards[-1] == infos[-1]["total"] > 0


def test_illegal_action_penalize_leaves_state_unchanged():
    env = make(rules="yacht", illegal_penalty=2.5)
    env.reset(seed=1)
    obs, _, _, _, info = env.step(31 + 12)
    obs2, r, done, _, info2 = env.step(31 + 12)  # chance again: filled
    assert r == -2.5 and not done and info2["illegal_action"]
    assert np.array_equal(obs, obs2) and np.array_equal(info["action_mask"], info2["action_mask"])


def test_illegal_action_raise_names_the_legal_actions():
    env = make(rules="yacht", illegal_action="raise", rolls_per_turn=1)
    env.reset(seed=1)
    env.step(31 + 12)
    with pytest.raises(IllegalMove, match=r"action 0 \(roll all\) is not legal now; legal: 31 score ones"):
        env.step(0)
    with pytest.raises(IllegalMove, match=r"action 43 \(score chance\) is not legal now; legal: 31 score ones.*"
                                          r"42 score yacht$"):
        env.step(43)


# one refused argument a check: alike in shape to test_env_vector.py's, by design (other arguments)
def test_bad_arguments_have_clear_messages():
    with pytest.raises(ValueError, match="obs_mode must be one of 'flat', 'dict', got 'image'"):
        make(obs_mode="image")
    with pytest.raises(ValueError, match="reward must be one of 'points', 'terminal', got 'win'"):
        make(reward="win")
    with pytest.raises(ValueError, match="illegal_action must be one of 'penalize', 'raise', got 'ignore'"):
        make(illegal_action="ignore")
    with pytest.raises(ValueError, match="render_mode must be one of None, 'human', 'rgb_array', 'ansi', got 'video'"):
        YachtEnv(render_mode="video")
    with pytest.raises(ValueError, match="a solitaire game has one sheet"):
        make(teams=2)
    env = make()
    with pytest.raises(RuntimeError, match=r"no episode has started; call reset\(\) before step\(\)"):
        env.step(0)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"action 44 is not in 0..43"):
        env.step(44)
    for bad, shown in ((31.9, r"31.9 \(float\)"), ("31", r"'31' \(str\)"), (True, r"True \(bool\)"),
                       (np.float32(31), r"(np.float32\()?31.0\)? \(float32\)"), (None, r"None \(NoneType\)"),
                       ([31], r"\[31\] \(list\)")):
        with pytest.raises(ValueError, match=rf"an action must be an integer 0..43, got {shown}"):
            env.step(bad)
    obs, r, *_ = env.step(np.int64(43))                      # numpy integers are actions; nothing above counted
    assert r > 0 and obs[TURNS_PLAYED] == pytest.approx(1 / 13)


def test_seeds_and_reset_options_are_checked():
    env = make()
    for bad, shown in ((-1, "-1"), (2 ** 64, str(2 ** 64)), (2.0, "2.0"), ("5", "'5'"), (True, "True"),
                       (10 ** 100, "1" + "0" * 36 + r"\.\.\.")):
        with pytest.raises(ValueError, match=rf"a seed must be an integer 0 .. 2\*\*64 - 1, got {shown}$"):
            env.reset(seed=bad)
    _, info = env.reset(seed=2 ** 64 - 1)
    assert info["game_seed"] == game_seed(2 ** 64 - 1, 0)
    _, info = env.reset(seed=np.uint64(9))                   # numpy integers are seeds too
    assert info["game_seed"] == game_seed(9, 0)
    for bad, shown in (({"level": 2}, r"\['level'\]"), ({"reset_mask": None}, r"\['reset_mask'\]"),
                       ("fast", "'fast'")):
        with pytest.raises(ValueError, match=rf"Yacht-v0 reset takes no options, got {shown}"):
            env.reset(seed=1, options=bad)
    env.reset(seed=1, options={})
    env.reset(options=None)


def test_pickle_and_deepcopy_keep_the_game_in_progress():
    env = gym.make("Yacht-v0", rules="yacht", columns=2)
    obs, info = env.reset(seed=31)
    rng = np.random.default_rng(4)
    for _ in range(10):
        obs, _, _, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
    copies = [pickle.loads(pickle.dumps(env)), copy.deepcopy(env)]
    runs = []
    for e in [env, *copies]:
        r = np.random.default_rng(5)
        mask, trace, done = info["action_mask"], [], False
        while not done:
            o, reward, done, _, inf = e.step(int(r.choice(np.flatnonzero(mask))))
            mask = inf["action_mask"]
            trace.append((o.tobytes(), reward, inf["total"], int(inf["game_seed"])))
        trace.append(int(e.reset()[1]["game_seed"]))          # and the stream goes on alike
        runs.append(trace)
    assert runs[0] == runs[1] == runs[2] and runs[0][-1] == game_seed(31, 1)


def test_step_after_game_over_raises():
    env = make(rules="yacht")
    for _ in play_random(env, seed=8):
        pass
    with pytest.raises(RuntimeError, match="the episode is over"):
        env.step(31)


def test_seeding_streams_and_episodes():
    env = make(rules="yacht")
    _, i0 = env.reset(seed=42)
    _, i1 = env.reset()
    assert i0["game_seed"] == game_seed(42, 0) and i1["game_seed"] == game_seed(42, 1)
    assert type(i0["game_seed"]) is np.uint64
    _, big = env.reset(seed=1)
    assert big["game_seed"] == game_seed(1, 0) > 2 ** 63      # all 64 bits are used: no int64 could hold it
    assert Game("yacht", 1, seed=int(big["game_seed"])).seed == game_seed(1, 0)
    a = [(acts, rews, [i["total"] for i in infos]) for acts, rews, infos in play_random(make(), 42, 2)]
    b = [(acts, rews, [i["total"] for i in infos]) for acts, rews, infos in play_random(make(), 42, 2)]
    assert a == b and a[0][0] != a[1][0]


def test_render_ansi():
    env = make(rules="yacht", render_mode="ansi", columns=2)
    env.reset(seed=0)
    env.step(31 + 12)
    text = env.render()
    assert text.startswith("turn 2/26  total ")
    assert "col 1" in text and "col 2" in text and "chance" in text
    assert make(rules="yacht").render() is None
    with pytest.raises(RuntimeError, match=r"no episode has started; call reset\(\) before render\(\)"):
        make(render_mode="ansi").render()


def test_rules_arguments():
    from yacht_env import RuleError, load

    env = make(rules=load("classic", rolls_per_turn=2), columns=2)
    assert env.rules.rolls_per_turn == 2 and env.rules.columns == 2 and env.action_space.n == 31 + 2 * 12
    with pytest.raises(RuleError, match="rols_per_turn: unknown key; allowed: .*rolls_per_turn"):
        make(rols_per_turn=2)
    with pytest.raises(RuleError, match="nope: rules: no such rule set; presets: cheerio"):
        make(rules="nope")


def chase_yachts(env, obs, info):
    """Hold the most common face; score a Yacht in the Yacht box, else the best other legal box."""
    dice = [int(round(x * 6)) for x in obs[DICE]]
    mask = info["action_mask"]
    face = max(set(dice), key=dice.count)
    n = len(env.rules.boxes)
    y = env.rules.boxes.index("yacht")
    if mask[0] and dice.count(face) < 5:
        return sum(1 << i for i, d in enumerate(dice) if d == face)
    legal = [a for a in range(31, len(mask)) if mask[a]]
    if dice.count(face) == 5 and mask[31 + y]:
        return 31 + y
    others = [a for a in legal if (a - 31) % n != y] or legal
    return max(others, key=lambda a: obs[column_layout(env.rules, 0).preview][a - 31])


@pytest.mark.parametrize("rules, knobs", [("yacht", {}), ("verhoeff", {}), ("kirakuken", {}),
                                          ("yacht", {"joker": "free"}), ("yacht", {"joker": "none"})], ids=str)
def test_joker_and_extra_yacht_paths_match_game_model(rules, knobs):
    """Yacht-chasing play reaches jokers and extra-Yacht bonuses; every reward equals the Game's."""
    env = make(rules=rules, **knobs)
    extra = 0
    for k in range(12):
        obs, info = env.reset(seed=123) if k == 0 else env.reset()
        actions, rewards = [], []
        done = False
        while not done:
            a = chase_yachts(env, obs, info)
            obs, r, done, _, info = env.step(a)
            assert not info["illegal_action"]
            actions.append(a)
            rewards.append(r)
        gains, g = replay_in_game(env, actions, info["game_seed"])
        assert rewards == gains and sum(rewards) == g.totals()[0]
        extra += int(g.sheets[0].extra_yachts.sum())
    assert env.rules.extra_yacht_bonus > 0 and extra > 0  # the extra-Yacht (and joker) path was exercised
