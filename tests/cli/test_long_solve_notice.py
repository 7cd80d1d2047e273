"""A command whose solver-backed player must first solve a long table (`yacht_env.solver.cache.long_solve_bytes`:
Maxi Yatzy's 3.6 GB) says so in one stderr line before the solve starts, and says nothing once it is solved. The
threshold is lowered here so that a rule set solved in a second counts as long."""
import io
import itertools
import json

import pytest

from tests.solver.test_cache_hostile import TINY
from yacht_arena.cli import main
from yacht_env.rules import load
from yacht_env.solver import cache, solution_for
from yacht_env.solver.space import STATE_BYTES, StateSpace

FRESH = itertools.count(101)   # each test's own extra-Yacht bonus: rules no earlier test's player holds a policy of
NOTICE = ("solving the rules tiny first (once; about {gb} GB for many minutes; `yacht solve --rules {path}` does it "
          "ahead)")


@pytest.fixture
def tiny(tmp_path, monkeypatch):
    """A rules file whose solve counts as long, with an empty cache folder in tmp_path."""
    monkeypatch.setattr(cache, "LONG_SOLVE_BYTES", 0)
    return rules_file(tmp_path, monkeypatch)


def rules_file(tmp_path, monkeypatch) -> str:
    """TINY's rules, new to this process, in a file, with an empty cache folder in tmp_path."""
    monkeypatch.setenv("YACHT_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "tiny.yaml"
    path.write_text(json.dumps(TINY | {"extra_yacht_bonus": next(FRESH)}))
    return str(path)


def notice(path: str) -> str:
    need = StateSpace.of(load(path).tables).size * STATE_BYTES
    return NOTICE.format(gb=f"{need / 1e9:.1f}", path=path)


def test_long_solve_bytes_counts_only_an_unsolved_table_over_the_threshold(tiny, monkeypatch):
    rules = load(tiny)
    need = StateSpace.of(rules.tables).size * STATE_BYTES
    assert cache.long_solve_bytes(rules) == need
    assert cache.long_solve_bytes(load(tiny, columns=3)) == need          # several columns: the one column's solve
    monkeypatch.setattr(cache, "LONG_SOLVE_BYTES", need)
    assert cache.long_solve_bytes(rules) == 0                              # not over the threshold
    monkeypatch.setattr(cache, "LONG_SOLVE_BYTES", 0)
    solution_for(rules, progress=False)
    assert cache.long_solve_bytes(rules) == 0                              # solved: read from the cache


@pytest.mark.parametrize("spec", ["strong", "strong?strength=0.5"])
def test_evaluate_says_it_solves_first_then_not_again(tiny, capsys, spec):
    argv = ["evaluate", spec, "--rules", tiny, "--games", "2", "--no-progress"]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert err.splitlines().count(notice(tiny)) == 1, err
    assert main(argv) == 0
    assert "solving the rules" not in capsys.readouterr().err


def test_play_says_it_before_the_game_starts(tiny, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    main(["play", "--rules", tiny, "--vs", "strong", "--seed", "1", "--no-best"])
    captured = capsys.readouterr()
    assert captured.err.splitlines().count(notice(tiny)) == 1, captured.err
    assert "solving the rules" not in captured.out


def test_the_notice_names_the_rules_as_changed(tiny, capsys):
    argv = ["evaluate", "strong", "--rules", tiny, "--set", "rolls_per_turn=2", "--games", "1", "--no-progress"]
    assert main(argv) == 0
    assert f"`yacht solve --rules {tiny} --set rolls_per_turn=2` does it ahead" in capsys.readouterr().err


def test_a_small_table_is_solved_without_a_word(tmp_path, monkeypatch, capsys):
    path = rules_file(tmp_path, monkeypatch)
    assert main(["evaluate", "strong", "--rules", path, "--games", "2", "--no-progress"]) == 0
    assert "solving the rules" not in capsys.readouterr().err
