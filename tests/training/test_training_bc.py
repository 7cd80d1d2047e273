"""Behaviour cloning (algo: bc): a separate, labelled imitation pipeline with the same model files."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

from agents.base import play_game
from agents.learned import LearnedAgent
from agents.training.checkpoint import load_checkpoint, new_policy
from agents.training.config import ConfigError, parse_config
from agents.base import BatchView, View
from agents.features import view_input
from agents.registry import make_agent
from agents.training.imitate import canonical_hold, canonical_holds, imitate, record_teacher
from agents.training.warm import warm_start
from yacht_arena.cli import main
from yacht_env import Game
from yacht_env.core.actions import num_holds
from yacht_env.core.dice_source import game_seed, game_seeds
from yacht_env.envs.options import narrow_masks
from yacht_env.core.dice import HOLD_KEEP, roll_index
from yacht_env.rules import load


def test_canonical_hold_keeps_the_same_dice():
    dice = [2, 2, 5, 5, 6]
    r = roll_index(dice)
    yacht = load("yacht")
    assert canonical_hold(yacht, dice, 0b00010) == 0b00001
    assert canonical_hold(yacht, dice, 0b01010) == 0b00101
    for h in range(31):
        assert HOLD_KEEP[r, canonical_hold(yacht, dice, h)] == HOLD_KEEP[r, h]


def test_sections_belong_to_their_algo():
    with pytest.raises(ConfigError, match="bc: this section is not used by algo 'ppo'"):
        parse_config({"name": "x", "bc": {"games": 3}})
    with pytest.raises(ConfigError, match="ppo: this section is not used by algo 'bc'"):
        parse_config({"name": "x", "algo": "bc", "ppo": {"n_steps": 3}})
    with pytest.raises(ConfigError, match="algo: must be one of ppo, bc, got 'dqn'"):
        parse_config({"name": "x", "algo": "dqn"})
    with pytest.raises(ConfigError, match="bc.games: must be a whole number from 1 to 500,000, got 0"):
        parse_config({"name": "x", "algo": "bc", "bc": {"games": 0}})


def test_bc_run_plays_as_learned(tmp_path, capsys):
    cfg = tmp_path / "bc.yaml"
    cfg.write_text(f"name: bc\nalgo: bc\nseed: 3\nreward_scale: 0.02\ndistinct_holds: true\n"
                   f"bc: {{teacher: greedy, games: 12, epochs: 2, batch_size: 64}}\n"
                   f"policy: {{pi: [32], vf: [32]}}\neval_games: 8\nout: {tmp_path}/run\n")
    assert main(["train", str(cfg), "--no-progress", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["games"] == 8 and doc["optimum"] == pytest.approx(254.5877, abs=0.01)
    run = tmp_path / "run"
    for name in ("best.pt", "final.pt", "curve.csv", "curve.png", "config.json", "run.json"):
        assert (run / name).is_file(), name
    game = play_game(Game("yacht", 1, seed=4), [LearnedAgent(run / "final.pt")])
    assert game.is_over and game.totals()[0] > 0
    assert main(["train", str(cfg), "--resume", str(run / "final.pt")]) == 2
    assert "--resume works with algo 'ppo' only" in capsys.readouterr().err


@pytest.mark.slow
def test_bc_rate_falls_and_its_model_starts_ppo_batched(tmp_path):
    """bc.final_learning_rate: the rate falls linearly over every batch (the last batch's is a batch's share
    of the start). The cloned model, of ppo_batched.py's network and inputs, is where that trainer starts
    (`--warm-start`): with a rate of 0 its model file keeps the cloned weights exactly; a model of another
    network is refused in one line, exit 2."""
    raw = {"name": "bcw", "algo": "bc", "seed": 3, "reward_scale": 0.02, "distinct_holds": True, "dice_onehot": True,
           "eval_games": 8, "policy": {"pi": [16, 16], "vf": [16, 16], "activation": "relu"}}
    cfg = parse_config({**raw, "out": str(tmp_path / "bc"),
                        "bc": {"teacher": "greedy", "games": 10, "epochs": 2, "batch_size": 64,
                               "learning_rate": 1e-3, "final_learning_rate": 0.0}})
    trained = imitate(cfg, progress=False)
    samples = json.loads((tmp_path / "bc" / "run.json").read_text())["teacher_decisions"] * 2
    last = trained.model.optimizer.param_groups[0]["lr"]
    assert 0 < last <= 1e-3 * 64 / samples + 1e-12

    cloned = tmp_path / "bc" / "final.pt"
    again = parse_config({**raw, "out": str(tmp_path / "again"), "warm_start": str(cloned),
                          "bc": {"teacher": "strong", "player": f"learned:{cloned}", "games": 4, "epochs": 1,
                                 "learning_rate": 1e-12}})
    imitate(again, progress=False)       # starts from the clone's weights, a rate too small to move them
    run_doc = json.loads((tmp_path / "again" / "run.json").read_text())
    assert run_doc["warm_start"]["warm_start"] == str(cloned) and run_doc["player"] == f"learned:{cloned}"
    for name, weight in load_checkpoint(cloned)["policy"].items():
        assert torch.allclose(load_checkpoint(tmp_path / "again" / "final.pt")["policy"][name], weight, atol=1e-9)
    run = [sys.executable, "scripts/ppo_batched.py", "--total-timesteps", "256", "--num-envs", "32", "--num-steps", "8",
           "--num-minibatches", "2", "--update-epochs", "1", "--first-eval", "256", "--eval-games", "8",
           "--learning-rate", "0", "--final-learning-rate", "0", "--device", "cpu", "--warm-start", str(cloned)]
    proc = subprocess.run([*run, "--hidden", "16", "--out", str(tmp_path / "ppo")], capture_output=True, text=True,
                          timeout=900)
    assert proc.returncode == 0, proc.stderr
    start, after = load_checkpoint(cloned), load_checkpoint(tmp_path / "ppo" / "final.pt")
    assert after["config"]["warm"]["warm_start"] == str(cloned) and not after["config"]["warm"]["value_head_reset"]
    for name, weight in start["policy"].items():
        assert torch.equal(after["policy"][name], weight), name

    proc = subprocess.run([*run, "--hidden", "8", "--out", str(tmp_path / "other")], capture_output=True, text=True,
                          timeout=900)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        f"ppo_batched.py: error: --warm-start: cannot start from {cloned}: its network is "
        "{'pi': [16, 16], 'vf': [16, 16], 'activation': 'relu'}, the config's {'pi': [8, 8], 'vf': [8, 8], "
        "'activation': 'relu'}"]


def teacher_game_by_game(cfg, rules):
    """The teacher's decisions recorded one game at a time through `Game` (what `record_teacher` plays a
    chunk of tables at once): game k at seat k % seats, with its own per-game agents."""
    config, seats = cfg.to_dict(), cfg.num_players
    holds, canon = num_holds(rules), canonical_holds(rules)
    keep = rules.dice_tables.hold_keep
    rows = []
    for k in range(cfg.bc.games):
        game = Game(rules, seats, seed=game_seed(cfg.seed, k))
        players = [make_agent(cfg.bc.player or cfg.bc.teacher) if s == k % seats else make_agent(cfg.opponents[0])
                   for s in range(seats)]
        teacher = make_agent(cfg.bc.teacher)
        contrast = make_agent(cfg.bc.contrast or cfg.bc.teacher)
        for s, p in enumerate(players):
            p.reset(rules, s, seats, seed=k)
        for p in (teacher, contrast):
            p.reset(rules, k % seats, seats, seed=k)
        mine, before = [], []
        while not game.is_over:
            if game.phase == "roll":
                game.roll()
                continue
            view = View.of(game)
            a = played = int(players[game.current_seat].act(view))
            if game.current_seat == k % seats:
                a, c = int(teacher.act(view)), int(contrast.act(view))
                batch = BatchView.of_view(view)
                x = view_input(batch, config, 1 if seats == 1 else batch.num_sheets)[0]
                mask = narrow_masks(view.mask[None].astype(bool), batch.roll, rules.dice)[0]
                r = batch.roll[0]
                departs = (a < holds) != (c < holds) or (keep[r, a] != keep[r, c] if a < holds else a != c)
                mine.append((x, mask, int(canon[r, a]) if a < holds else a, departs))
                before.append(game.totals()[view.sheet])
            game.apply(played)
        sheet = (k % seats) % game.num_sheets
        totals = np.array(game.totals())
        top = totals.max()
        outcome = -1.0 if totals[sheet] < top else 1.0 if (totals == top).sum() == 1 else 0.0
        for (x, mask, a, departs), b in zip(mine, before):
            rows.append((x, mask, a, outcome if cfg.reward == "win" else game.totals()[sheet] - b, departs))
    return tuple(np.array(c) for c in zip(*rows))


@pytest.mark.parametrize("table", [
    {},
    {"bc": {"teacher": "strong", "player": "greedy", "games": 7}},
    {"num_players": 3, "opponents": "greedy", "reward": "win", "table_obs": "full"},
    {"num_players": 2, "opponents": "strong", "reward": "points"},
    {"num_players": 2, "opponents": "strong", "reward": "win", "bc": {"teacher": "strong", "contrast": "greedy",
                                                                      "games": 7}},
])
def test_teacher_record_is_the_game_by_game_record(table):
    """`record_teacher` plays chunks of tables at once through the engine; its record is the one a game-by-game
    loop gives, decision by decision: inputs, masks, canonical holds and value targets (points to come, or the
    outcome at a table with reward win); with `bc.player` the player's moves make the game and the teacher's
    label it; with `bc.contrast` each decision says whether the teacher departs there from the contrast."""
    cfg = parse_config({"name": "rec", "algo": "bc", "seed": 5, "distinct_holds": True, "dice_onehot": True,
                        "bc": {"teacher": "strong", "games": 7}, **table})
    if cfg.bc.player:
        alone = record_teacher(parse_config({"name": "rec", "algo": "bc", "seed": 5, "distinct_holds": True,
                                             "bc": {"teacher": "strong", "games": 7}}), cfg.ruleset, progress=False)
    got = record_teacher(cfg, cfg.ruleset, progress=False)
    want = teacher_game_by_game(cfg, cfg.ruleset)
    assert len(got[2]) == len(want[2]) > 0
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w.astype(g.dtype))
    if cfg.bc.player:        # greedy's games: other positions, fewer points to come than in strong's own games
        assert got[3].mean() < alone[3].mean() - 20
    if cfg.bc.contrast:      # greedy looks one roll ahead: it departs from strong often, not always
        assert 0.2 < got[4].mean() < 0.95
    else:
        assert not got[4].any()


def test_contrast_weight_weighs_the_departures(tmp_path):
    """A contrast at weight 1 trains the very network a run without one trains; at another weight the
    decisions where the teacher departs from the contrast count more, and the network differs. run.json
    counts the departures."""
    def run(name, **bc):
        cfg = parse_config({"name": name, "algo": "bc", "seed": 3, "distinct_holds": True, "eval_games": 4,
                            "bc": {"teacher": "strong", "games": 6, "epochs": 2, "batch_size": 32, **bc},
                            "policy": {"pi": [16], "vf": [16]}, "out": str(tmp_path / name)})
        imitate(cfg, progress=False)
        model = load_checkpoint(tmp_path / name / "final.pt")
        return model["policy"], json.loads((tmp_path / name / "run.json").read_text())
    plain, plain_run = run("plain")
    one, one_run = run("one", contrast="greedy")
    four, four_run = run("four", contrast="greedy", contrast_weight=4.0)
    assert plain_run["departures"] is None and plain_run["contrast"] is None
    assert one_run["departures"] == four_run["departures"] > 0 and four_run["contrast_weight"] == 4.0
    assert one_run["departures"] < one_run["teacher_decisions"]
    for name, weight in plain.items():
        assert torch.equal(one[name], weight), name
    assert any(not torch.equal(four[name], weight) for name, weight in plain.items())


@pytest.mark.parametrize("bc, why", [
    ({"contrast_weight": 4.0}, "bc.contrast_weight: weighs the decisions where the teacher departs from "
                               "bc.contrast: set bc.contrast"),
    ({"contrast": "strong", "contrast_weight": float("nan")}, "bc.contrast_weight: must be a finite number above 0"),
    ({"contrast": "strong", "contrast_weight": 0}, "bc.contrast_weight: must be a finite number above 0"),
    ({"contrast": "strong", "contrast_weight": "4"}, "bc.contrast_weight: must be a finite number above 0"),
    ({"contrast": "nope"}, "bc.contrast: unknown agent 'nope'"),
])
def test_bad_contrast_is_one_message(bc, why):
    with pytest.raises(ConfigError, match=why):
        parse_config({"name": "x", "algo": "bc", "bc": bc})


def test_bc_at_a_table_is_evaluated_by_its_win_share(tmp_path):
    """A table's clone (reward win: the value head learns outcomes) is chosen and reported by its win share
    against the config's opponents, and plays its table as `learned:`."""
    cfg = parse_config({"name": "bct", "algo": "bc", "seed": 2, "num_players": 2, "opponents": "greedy",
                        "reward": "win", "table_obs": "full", "distinct_holds": True, "eval_games": 8,
                        "bc": {"teacher": "normal", "games": 8, "epochs": 2, "batch_size": 64},
                        "policy": {"pi": [16], "vf": [16]}, "out": str(tmp_path / "run")})
    imitate(cfg, progress=False)
    best = json.loads((tmp_path / "run" / "best.json").read_text())
    assert best["score"] == best["win_share"] and best["num_players"] == 2 and best["games"] == 8
    header = (tmp_path / "run" / "curve.csv").read_text().splitlines()[0].split(",")
    assert "win_share" in header and "win_ci95" in header
    game = play_game(Game("yacht", 2, seed=4), [LearnedAgent(tmp_path / "run" / "final.pt"), make_agent("greedy")])
    assert game.is_over


@pytest.mark.parametrize("value", [float("nan"), float("inf"), 1e300, -1, "fast", [1e-3]])
def test_bad_final_rate_is_one_message(value):
    with pytest.raises(ConfigError, match="bc.final_learning_rate: must be a finite number from 0 to 10"):
        parse_config({"name": "x", "algo": "bc", "bc": {"final_learning_rate": value}})


def test_bad_player_is_one_message():
    with pytest.raises(ConfigError, match="bc.player: unknown agent 'nope'"):
        parse_config({"name": "x", "algo": "bc", "bc": {"player": "nope"}})


def test_warm_start_from_a_planted_file_is_refused(tmp_path):
    """What `ppo_batched.py --warm-start` and a BC run's `warm_start` read: a FIFO, a folder, a device or a link
    to one is refused in one message, without blocking on the FIFO."""
    cfg = parse_config({"name": "x", "policy": {"pi": [8], "vf": [8]}})
    fifo = tmp_path / "fifo.pt"
    os.mkfifo(fifo)
    (tmp_path / "link.pt").symlink_to(fifo)
    for path, why in ((fifo, "is a FIFO"), (tmp_path / "link.pt", "is a FIFO"), (tmp_path, "is a folder"),
                      ("/dev/null", "is a device")):
        with pytest.raises(ConfigError, match=f"warm_start: .*{why}"):
            warm_start(new_policy(cfg.to_dict(), load("yacht")), path, cfg.to_dict(), load("yacht"))


def test_departures_script_splits_the_agreement(capsys):
    """scripts/departures.py: a model compared with itself as teacher agrees everywhere; with another teacher
    its agreement splits into the teacher's departures from the contrast and the rest, the counts adding up."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("departures", "scripts/departures.py")
    departures = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(departures)
    model = "models/bc-goalwin4.pt"
    itself = departures.count(model, f"learned:{model}", "greedy", "strong", 4, 4, 3)
    assert itself["agrees"] == itself["agrees_where_departing"] == itself["agrees_elsewhere"] == 1.0
    doc = departures.count(model, "strong", "greedy", "strong", 4, 4, 3)
    assert min(doc["decisions"], itself["decisions"]) > 4 * 13 and 0 < doc["departures"] < 1   # a turn: 1-3 decisions
    split = doc["departures"] * doc["agrees_where_departing"] + (1 - doc["departures"]) * doc["agrees_elsewhere"]
    assert split == pytest.approx(doc["agrees"]) and 0.5 < doc["agrees"] < 1
    assert departures.main([model, "--teacher", "strong", "--contrast", "greedy", "--games", "4", "--seed", "3",
                            "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == doc
    with pytest.raises(SystemExit) as bad:
        departures.main(["no-such-model.pt", "--games", "4"])
    assert bad.value.code == 2 and "no model file at 'no-such-model.pt'" in capsys.readouterr().err


@pytest.fixture
def mini_win(tmp_path):
    """The mini rules (seven boxes) in a file, solved with their score distributions in the tests' shared cache,
    so that `strong?goal=win` plays them at once."""
    from tests.mini_rules import MINI
    from tests.solver_tables import solve_once, temp_cache
    from yacht_env.solver import distributions_for
    path = tmp_path / "mini.yaml"
    path.write_text(MINI)
    with temp_cache():
        rules = load(str(path))
        solve_once(rules)
        distributions_for(rules, progress=False)
        yield path, rules


def test_the_win_teachers_chances_are_the_ones_it_plays_by(mini_win):
    """`strong?goal=win`'s `move_chances`: its own move has the highest chance among the legal moves, every hold
    pattern of a keep gets the keep's chance, and the win dial's losses are read from the same chances."""
    from agents.training.evaluate import play_table
    _, rules = mini_win
    teacher = make_agent("strong?goal=win")
    seen = []

    class Checker:
        batched = True

        def prepare(self, rules, num_players):
            teacher.prepare(rules, num_players)

        def act_batch(self, view):
            chances, moves = teacher.move_chances(view), teacher.act_batch(view)
            legal = np.where(view.mask.astype(bool), chances, -np.inf)
            top = legal.max(axis=1)
            rows = np.arange(len(moves))
            np.testing.assert_allclose(chances[rows, moves], top, rtol=0, atol=1e-12)
            hold = legal[:, :num_holds(rules)]
            keep = rules.dice_tables.hold_keep[view.roll, :num_holds(rules)]
            for j in range(len(moves)):
                for k in np.unique(keep[j]):
                    assert len(set(hold[j, keep[j] == k].tolist())) == 1
            dial, losses, decided = teacher.act_dial(view, 1e-4, np.full(len(moves), 0.5))
            np.testing.assert_allclose(losses, top - chances[rows, dial], rtol=0, atol=1e-12)
            seen.append((top - np.where(view.mask.astype(bool), chances, np.inf).min(axis=1) > 1e-3).mean())
            return moves

    play_table(Checker(), rules, 3, ["strong"], game_seeds(11, last=np.arange(6)), "the test's games")
    assert len(seen) > 20 and np.mean(seen) > 0.2      # most decisions have moves of different chances


def test_soft_targets_rate_the_teachers_moves(mini_win, tmp_path):
    """With bc.soft_temperature each decision also learns the softmax of the teacher's chance after each legal
    move: a distribution over the legal moves, largest at the teacher's move, one-hot where every move has the
    same chance. A soft weight of 0 trains the very network the teacher's moves alone train; 0.5 another one;
    run.json records both settings."""
    path, rules = mini_win

    def cfg(name, **bc):
        return parse_config({"name": name, "algo": "bc", "rules": str(path), "seed": 4, "num_players": 3,
                             "opponents": "strong", "reward": "win", "table_obs": "full", "distinct_holds": True,
                             "eval_games": 6, "policy": {"pi": [16], "vf": [16]}, "out": str(tmp_path / name),
                             "bc": {"teacher": "strong?goal=win", "games": 9, "epochs": 2, "batch_size": 32, **bc}})
    hard = record_teacher(cfg("hard"), rules, progress=False)
    got = record_teacher(cfg("soft", soft_temperature=0.003), rules, progress=False)
    for h, g in zip(hard[:5], got[:5]):
        np.testing.assert_array_equal(h, g)
    masks, actions, soft = got[1], got[2], got[5]
    rows = np.arange(len(actions))
    assert hard[5].shape == (len(actions), 0) and soft.shape == masks.shape
    np.testing.assert_allclose(soft.sum(axis=1), 1, atol=1e-5)
    assert (soft[~masks] == 0).all() and (soft[rows, actions] >= soft.max(axis=1) - 1e-6).all()
    one_hot = soft.max(axis=1) == 1
    assert 0 < one_hot.mean() < 0.9 and (soft[one_hot, actions[one_hot]] == 1).all()
    sharp = record_teacher(cfg("sharp", soft_temperature=1e-9), rules, progress=False)[5]
    assert sharp[rows, actions].mean() > soft[rows, actions].mean()

    def trained(name, **bc):
        imitate(cfg(name, **bc), progress=False)
        return load_checkpoint(tmp_path / name / "final.pt")["policy"], \
            json.loads((tmp_path / name / "run.json").read_text())
    plain, plain_run = trained("plain")
    zero, zero_run = trained("zero", soft_temperature=0.003, soft_weight=0.0)
    half, half_run = trained("half", soft_temperature=0.003)
    assert plain_run["soft_temperature"] is None and plain_run["soft_weight"] is None
    assert (zero_run["soft_temperature"], zero_run["soft_weight"], half_run["soft_weight"]) == (0.003, 0.0, 0.5)
    for name, weight in plain.items():
        assert torch.equal(zero[name], weight), name
    assert any(not torch.equal(half[name], weight) for name, weight in plain.items())


@pytest.mark.parametrize("bc, why", [
    ({"soft_temperature": 0.01}, "bc.soft_temperature: learns the teacher's chance of each move; only "
                                 "strong?goal=win and strong?goal=target rate their moves, bc.teacher is 'strong'"),
    ({"teacher": "greedy", "soft_temperature": 0.01}, "bc.teacher is 'greedy'"),
    ({"teacher": "strong?goal=win", "soft_temperature": 0}, "bc.soft_temperature: must be a finite number above 0"),
    ({"teacher": "strong?goal=win", "soft_temperature": float("nan")}, "bc.soft_temperature: must be a finite number"),
    ({"teacher": "strong?goal=win", "soft_temperature": 2}, "bc.soft_temperature: must be a finite number"),
    ({"teacher": "strong?goal=win", "soft_temperature": "warm"}, "bc.soft_temperature: must be a finite number"),
    ({"teacher": "strong?goal=win", "soft_temperature": 0.01, "soft_weight": 1.5},
     "bc.soft_weight: must be a finite number from 0 to 1"),
    ({"soft_weight": 0.3}, "bc.soft_weight: is the share of the teacher's rated moves in the target: "
                           "set bc.soft_temperature too"),
    ({"teacher": "strong?goal=nope", "soft_temperature": 0.01}, "bc.teacher: "),
])
def test_bad_soft_targets_are_one_message(bc, why):
    with pytest.raises(ConfigError, match=why.replace("?", r"\?").replace(".", r"\.").replace("(", r"\(")):
        parse_config({"name": "x", "algo": "bc", "bc": bc})
