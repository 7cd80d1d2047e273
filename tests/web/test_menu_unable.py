"""The lobby's menu (`/api/menu`) greys out the CPUs that cannot play a preset as the solver's cache stands
now: rules solved while the server runs are offered to Strong and the dial without a restart, and taken back
when their table goes."""
import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from yacht_arena.web.child import serving
from yacht_env.rules import load
from yacht_env.solver import cache_path

LONG = "yacht solve --rules maxi"


def test_the_menu_follows_the_solver_cache_while_the_server_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("YACHT_CACHE_DIR", str(tmp_path / "cache"))      # the server's child reads this folder
    table = cache_path(load("maxi"))
    with serving(tmp_path / "data") as srv:
        unable = srv.get("/api/menu")["unable"]
        assert LONG in unable["maxi"]["strong"] and LONG in unable["maxi"]["dial"], unable["maxi"]
        assert unable["yacht"] == {}
        levels = {k: unable["maxi"][k] for k in ("easy", "normal", "strong-win")}
        # the file's presence is what says solved (the 3.6 GB solve is out of a test's reach; its content is
        # checked when a player reads it)
        table.parent.mkdir(parents=True)
        table.write_bytes(b"")
        unable = srv.get("/api/menu")["unable"]
        assert unable["maxi"] == levels                                 # Strong and the dial offered now
        assert unable["yacht"] == {}
        table.unlink()
        unable = srv.get("/api/menu")["unable"]
        assert LONG in unable["maxi"]["strong"] and LONG in unable["maxi"]["dial"], unable["maxi"]
