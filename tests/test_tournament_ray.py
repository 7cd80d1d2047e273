"""The Ray executor (a local Ray) gives the same games as the local one, time limits included."""
import pytest

from tournaments.config import parse_config
from tournaments.run import run_tournament
from tournaments.store import Store

pytest.importorskip("ray")


@pytest.mark.slow
def test_ray_matches_local(tmp_path):
    cfg = parse_config({"entrants": ["first", "best", "hang"], "games": 2, "seed": 3, "move_timeout": 0.3})
    kw = dict(progress=False, factory="tournament_agents:make_agent")
    via_ray = run_tournament(cfg, out=tmp_path / "ray", executor="ray", workers=2, **kw)
    local = run_tournament(cfg, out=tmp_path / "local", **kw)
    assert Store(tmp_path / "ray").records() == Store(tmp_path / "local").records()
    assert {f["error"] for f in via_ray["faults"]} == {"MoveTimeout: no move within the 0.3 s limit"}
    assert via_ray["run"]["executor"] == "ray" and via_ray["run"]["games_run"] == 12
    via_ray.pop("run"), local.pop("run")
    assert via_ray == local


@pytest.mark.slow
def test_ray_plays_rounds_as_the_local_pool_does(tmp_path):
    """A Swiss and an adaptive schedule (rounds paired from the results before them) under one local Ray,
    started here once: the executor joins it instead of starting one per round."""
    import os
    import sys

    import ray
    entrants = [{"name": f"p{i}", "agent": ("best", "first", "upper")[i % 3]} for i in range(5)]
    kw = dict(progress=False, factory="tournament_agents:make_agent", analysis=False)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False,
             runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}})
    try:
        for name, rounds in [("swiss", {"format": "swiss", "rounds": 2}),
                             ("adaptive", {"schedule": "adaptive", "rounds": 3, "confidence": 0.9})]:
            cfg = parse_config({"entrants": entrants, "games": 1, "seed": 2, **rounds})
            run_tournament(cfg, out=tmp_path / name / "ray", executor="ray", workers=2, **kw)
            run_tournament(cfg, out=tmp_path / name / "local", workers=2, **kw)
            assert Store(tmp_path / name / "ray").records() == Store(tmp_path / name / "local").records()
    finally:
        ray.shutdown()
