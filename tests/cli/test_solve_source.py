"""`yacht solve` says where its table came from (the package, the cache, or solved now) and times only the
work this run did: a read is timed as a read, never reported as the stored table's solve time."""
import json

import pytest

from tests.solver.test_cache_hostile import TINY
from yacht_arena.cli import main
from yacht_env.rules import load
from yacht_env.solver import cache_path
from yacht_env.solver.cache import shipped_path


@pytest.fixture
def tiny(tmp_path, monkeypatch):
    monkeypatch.setenv("YACHT_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "tiny.yaml"
    path.write_text(json.dumps(TINY))
    return str(path)


def solve(capsys, *argv) -> tuple[dict, str]:
    assert main(["solve", *argv, "--json", "--no-progress"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert main(["solve", *argv, "--no-progress"]) == 0
    return doc, capsys.readouterr().out


def test_solved_now_then_read_from_the_cache(tiny, capsys):
    doc, _ = solve(capsys, "--rules", tiny, "--no-cache")
    assert doc["table"]["source"] == "solved" and doc["table"]["seconds"] >= doc["table"]["solve_seconds"]
    assert doc["table"]["path"] == str(cache_path(load(tiny)))
    doc, text = solve(capsys, "--rules", tiny)
    assert doc["table"]["source"] == "cache"
    line = next(x for x in text.splitlines() if x.strip().startswith("table"))
    assert "read from the cache" in line and "read in" in line and "when it was made" in line
    assert "solve time" not in text


def test_the_shipped_table_is_named_and_its_read_timed(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("YACHT_CACHE_DIR", str(tmp_path / "empty"))
    if not shipped_path(load("yacht")).exists():
        pytest.skip("this checkout ships no table")
    doc, text = solve(capsys)
    table = doc["table"]
    assert table["source"] == "shipped" and table["path"] == str(shipped_path(load("yacht")))
    assert table["seconds"] < table["solve_seconds"]        # a read, not the solve it once took
    assert "shipped with the package" in text and f"solved in {table['solve_seconds']:.2f} s when it was made" in text


def test_distributions_say_built_or_read(tiny, capsys):
    doc, text = solve(capsys, "--rules", tiny, "--distribution")       # the JSON run builds, the text run reads
    d = doc["distribution"]
    assert d["source"] == "built" and d["seconds"] >= d["build_seconds"] > 0
    assert "distributions           read from the cache in " in text and "(built in " in text
    assert main(["solve", "--rules", tiny, "--distribution", "--risk", "0.01", "--no-progress"]) == 0
    assert "distributions           built now in " in capsys.readouterr().out
