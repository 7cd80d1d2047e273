"""render_mode "rgb_array" and "human" (pygame, the [render] extra) for Yacht-v0, YachtVs-v0 and the PettingZoo
env: Gymnasium's RecordVideo writes a game's video, PettingZoo's render_test passes, "ansi" stays."""
import os
import pickle
import sys

import numpy as np
import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")      # "human" opens its window on no screen
pygame = pytest.importorskip("pygame")

import gymnasium as gym  # noqa: E402

import yacht_env  # noqa: E402,F401
from yacht_env.envs.render import Move, PygameMissing, held_marks, last_move  # noqa: E402
from yacht_env.rules import load  # noqa: E402

ENVS = {"Yacht-v0": {}, "YachtVs-v0": {"num_players": 3, "opponents": "greedy"},
        "YachtVs-v0 teams": {"num_players": 4, "opponents": "greedy", "teams": 2, "columns": 2}}


def play(env, steps: int, seed: int = 0):
    obs, info = env.reset(seed=seed)
    frames = [env.render()]
    for _ in range(steps):
        obs, _, done, _, info = env.step(env.action_space.sample(info["action_mask"]))
        frames.append(env.render())
        if done:
            break
    return frames


@pytest.mark.parametrize("name", ENVS)
def test_rgb_array_frames_are_pictures_of_one_size_that_change_with_the_game(name):
    env = gym.make(name.split()[0], render_mode="rgb_array", **ENVS[name])
    env.action_space.seed(0)
    frames = play(env, 40)
    assert all(f.dtype == np.uint8 and f.ndim == 3 and f.shape == frames[0].shape for f in frames)
    assert frames[0].shape[0] % 16 == 0 and frames[0].shape[1] % 16 == 0
    assert sum(not np.array_equal(a, b) for a, b in zip(frames, frames[1:])) >= 25
    copy = pickle.loads(pickle.dumps(env.unwrapped))      # the pygame parts are made anew
    assert np.array_equal(copy.render(), frames[-1])
    env.close()


@pytest.mark.parametrize("name", ENVS)
def test_human_draws_in_a_window_and_returns_none(name):
    env = gym.make(name.split()[0], render_mode="human", **ENVS[name])
    env.unwrapped.metadata["render_fps"] = 1000
    env.action_space.seed(1)
    assert all(f is None for f in play(env, 10))
    assert pygame.display.get_surface() is not None
    env.close()
    assert not pygame.display.get_init()


def test_ansi_stays_text():
    env = gym.make("Yacht-v0", render_mode="ansi")
    env.reset(seed=0)
    assert env.render().startswith("turn 1/13")


def test_record_video_writes_a_game_that_reads_back(tmp_path):
    imageio = pytest.importorskip("imageio")
    pytest.importorskip("moviepy")
    from gymnasium.wrappers import RecordVideo
    env = RecordVideo(gym.make("Yacht-v0", render_mode="rgb_array"), str(tmp_path), episode_trigger=lambda e: True,
                      name_prefix="yacht")
    env.action_space.seed(2)
    obs, info = env.reset(seed=2)
    steps, done = 0, False
    while not done:
        obs, _, done, _, info = env.step(env.action_space.sample(info["action_mask"]))
        steps += 1
    env.close()
    videos = sorted(tmp_path.glob("yacht-episode-0.mp4"))
    assert len(videos) == 1
    reader = imageio.get_reader(videos[0], "ffmpeg")
    frames = [f for f in reader]
    reader.close()
    h, w, _ = gym.make("Yacht-v0", render_mode="rgb_array").unwrapped._renderer.picture.size[::-1] + (3,)
    assert len(frames) == steps + 1 and frames[0].shape == (h, w, 3)
    assert frames[0].mean() > 150 and not np.array_equal(frames[0], frames[-1])   # the light sheet, moving


def test_pettingzoo_render_test_passes():
    from pettingzoo.test import render_test

    from yacht_env.integrations.pettingzoo import env as yacht_aec
    render_test(lambda render_mode=None: yacht_aec(num_players=3, render_mode=render_mode))
    render_test(lambda render_mode=None: yacht_aec(num_players=4, teams=2, render_mode=render_mode))
    text = yacht_aec(num_players=3, render_mode="ansi")
    text.reset(seed=1)
    sheets = text.render()
    assert all(f"[player_{s}] turn 1/13" in sheets for s in range(3)) and sheets.count("\ndice ") == 3
    picture = yacht_aec(num_players=4, teams=2, render_mode="rgb_array")
    picture.reset(seed=1)
    frame = picture.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3 and frame.std() > 0


def test_held_marks_and_last_move():
    rules = load("yacht")
    move = last_move(rules, "you", (1, 3, 3, 5, 6), 0b10010)        # keeps the second die (3) and the fifth (6)
    assert move.kept == (3, 6) and move.who == "you"
    assert held_marks((2, 3, 4, 6, 6), move) == [False, True, False, True, False]
    assert held_marks((2, 3, 4, 6, 6), None) == [False] * 5
    assert last_move(rules, "you", (1, 3, 3, 5, 6), 31 + 12).kept == ()
    assert held_marks((1, 1, 1, 1, 1), Move("p", "hold", (1, 1))) == [True, True, False, False, False]


def test_without_pygame_one_line_naming_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pygame", None)
    with pytest.raises(PygameMissing, match=r"pip install 'yacht-arena\[render\]'") as e:
        gym.make("Yacht-v0", render_mode="rgb_array")
    assert isinstance(e.value, TypeError)     # SB3's make_vec_env then makes the env without a render mode
    gym.make("Yacht-v0", render_mode="ansi").reset(seed=0)
