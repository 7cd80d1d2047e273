"""The levels' settings file in the cache folder (`agents.levels`) against a planted link and a FIFO: never
written through, never read to a hang; the levels go on without it."""
import os

from agents.level_settings import read_settings, settings_path, write_settings
from tests.planted import SECRET
from yacht_env.rules import load


def test_levels_settings_are_never_written_through_a_link(tmp_path, monkeypatch, victim):
    monkeypatch.setenv("YACHT_CACHE_DIR", str(tmp_path / "cache"))
    rules = load("yacht")
    path = settings_path(rules)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(victim)
    assert read_settings(rules) == {}             # not a settings file: nothing kept
    assert write_settings(rules, {}) is False     # refused, nothing written through the link
    assert victim.read_bytes() == SECRET
    path.unlink()
    os.mkfifo(path)
    assert read_settings(rules) == {}             # a FIFO: no hang
    assert write_settings(rules, {}) is False
