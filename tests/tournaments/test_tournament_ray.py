"""The Ray executor (a local Ray) gives the same games as the local one, time limits included."""
import pytest
from tests.fake_agents import FACTORY

from tournaments.config import parse_config
from tournaments.run import run_tournament
from tournaments.store import Store

pytest.importorskip("ray")


@pytest.mark.slow
def test_ray_plays_as_the_local_pool_does(tmp_path, monkeypatch):
    """A Swiss and an adaptive schedule (rounds paired from the results before them) and a round robin with
    a move time limit give the local pool's games, faults included. The Swiss starts its own Ray once for
    all its rounds and stops it at the end; the other runs join a Ray started here and leave it running
    (one Ray start each way keeps the test short)."""
    import os
    import sys

    import ray
    calls = []
    for name in ("init", "shutdown"):
        real = getattr(ray, name)
        monkeypatch.setattr(ray, name, lambda *a, _real=real, _name=name, **k: (calls.append(_name), _real(*a, **k))[1])
    entrants = [{"name": f"p{i}", "agent": ("best", "first", "upper")[i % 3]} for i in range(5)]
    kw = dict(progress=False, factory=FACTORY, analysis=False)
    swiss = parse_config({"entrants": entrants, "games": 1, "seed": 2, "format": "swiss", "rounds": 3})
    res = run_tournament(swiss, out=tmp_path / "swiss" / "ray", executor="ray", workers=2, **kw)
    assert len(res["swiss"]) == 3 and calls == ["init", "shutdown"] and not ray.is_initialized()
    run_tournament(swiss, out=tmp_path / "swiss" / "local", workers=2, **kw)
    assert Store(tmp_path / "swiss" / "ray").records() == Store(tmp_path / "swiss" / "local").records()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False,
             runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}})
    try:
        calls.clear()
        cfg = parse_config({"entrants": entrants, "games": 1, "seed": 2, "schedule": "adaptive", "rounds": 3,
                            "confidence": 0.9})
        run_tournament(cfg, out=tmp_path / "adaptive" / "ray", executor="ray", workers=2, **kw)
        assert calls == [] and ray.is_initialized()
        run_tournament(cfg, out=tmp_path / "adaptive" / "local", workers=2, **kw)
        assert Store(tmp_path / "adaptive" / "ray").records() == Store(tmp_path / "adaptive" / "local").records()
        timed = parse_config({"entrants": ["first", "best", "hang"], "games": 2, "seed": 3, "move_timeout": 0.3})
        kw = dict(progress=False, factory=FACTORY)
        via_ray = run_tournament(timed, out=tmp_path / "timed" / "ray", executor="ray", workers=2, **kw)
        local = run_tournament(timed, out=tmp_path / "timed" / "local", **kw)
        assert Store(tmp_path / "timed" / "ray").records() == Store(tmp_path / "timed" / "local").records()
        assert {f["error"] for f in via_ray["faults"]} == {"MoveTimeout: no move within the 0.3 s limit"}
        assert via_ray["run"]["executor"] == "ray" and via_ray["run"]["games_run"] == 12
        via_ray.pop("run"), local.pop("run")
        assert via_ray == local and calls == [] and ray.is_initialized()
    finally:
        ray.shutdown()
