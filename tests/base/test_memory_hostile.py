"""The memory check of the config layer (`yacht_env.config.check_memory`): sizes that cannot fit in this
machine's memory are refused in one line naming what would be needed, before any work starts, by every
command that sizes its work (evaluate, levels, tournament, train); YACHT_MEMORY_CHECK=off goes on knowingly."""
from pathlib import Path

import pytest

from yacht_arena.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_check_memory_refuses_what_cannot_fit_and_passes_what_can(monkeypatch):
    import yacht_env.config as config
    from yacht_env.config import ConfigError, check_memory
    with pytest.raises(ConfigError, match=r"--games: 9 games would need about 8.0 GiB of memory and this machine "
                                          r"has 1.0 GiB available"):
        check_memory("command line", "--games", 8 << 30, "9 games", have=1 << 30)
    check_memory("command line", "--games", 1 << 30, "9 games", have=1 << 30)
    monkeypatch.setattr(config, "available_memory", lambda: None)
    check_memory("command line", "--games", 1 << 60, "9 games")    # a machine that cannot tell: no refusal


@pytest.mark.parametrize("argv", [["evaluate", "random", "--games", "100000", "--out", "OUT", "--no-progress"],
                                  ["levels", "--games", "100000", "--no-progress"]])
def test_sizes_that_cannot_fit_in_memory_are_refused_before_work_starts(monkeypatch, tmp_path, capsys, argv):
    import yacht_env.config as config
    monkeypatch.setattr(config, "available_memory", lambda: 1 << 30)    # a machine with 1 GiB to give
    argv = [str(tmp_path / "out") if a == "OUT" else a for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "would need about" in err[0] and "1.0 GiB available" in err[0], err
    assert not (tmp_path / "out").exists()


def test_a_tournament_that_cannot_fit_in_memory_is_refused_before_work_starts(monkeypatch, tmp_path, capsys):
    import yacht_env.config as config
    monkeypatch.setattr(config, "available_memory", lambda: 1 << 30)
    cfg = tmp_path / "t.yaml"
    cfg.write_text("entrants: [random, greedy, strong, normal]\ngames: 40000\nseats: 2\n")
    out = tmp_path / "run"
    assert main(["tournament", str(cfg), "--out", str(out), "--quiet", "--workers", "2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "tournament: games: 480,000 games of 2 seats on 2 worker(s) would need about" in err[0]
    assert "1.0 GiB available" in err[0] and "YACHT_MEMORY_CHECK=off" in err[0]
    assert not out.exists()
    from tournaments.config import parse_config
    from tournaments.run import memory_needed
    small = parse_config({"entrants": ["random", "greedy"], "games": 10})
    big = parse_config({"entrants": ["random", "greedy", "strong", "normal"], "games": 40000})
    assert memory_needed(small, 1) < 1 << 30 < memory_needed(big, 2)
    monkeypatch.setenv("YACHT_MEMORY_CHECK", "off")
    config.check_memory("tournament", "games", 1 << 60, "a lot")       # the override goes on knowingly


def test_a_training_run_that_cannot_fit_in_memory_is_refused_before_anything_is_built(monkeypatch, tmp_path,
                                                                                      capsys):
    import yacht_env.config as config
    monkeypatch.setattr(config, "available_memory", lambda: 1 << 30)
    out = tmp_path / "run"
    argv = ["train", "configs/train/smoke.yaml", "--out", str(out), "--no-progress", "--set", "n_envs=8192",
            "--set", "ppo.n_steps=256"]
    monkeypatch.chdir(ROOT)
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "n_envs: 8,192 envs x 256 steps a rollout" in err[0] and "would need about" in err[0]
    assert not out.exists()
