"""The adaptive schedule (`schedule: adaptive`): it ranks a ladder in order, plays only where the order is
uncertain, and stops at the first round its ranking reaches the target confidence. (Worker, executor
and resume invariance: tests/tournaments/test_tournament_formats.py, parametrized over the formats.)"""
import pytest

from tournaments.formats.adaptive import AdaptiveReplay, ranking
from tournaments.config import parse_config
from tournaments.ratings import StageCounts
from tournaments.run import run_tournament
from tournaments.store import Store
from yacht_env.config import ConfigError

LADDER = ["normal", "random", "strong", "greedy"]       # seeded out of order


def test_a_ladder_is_ranked_in_order_and_the_run_stops_at_the_confidence(tmp_path, capsys):
    cfg = parse_config({"entrants": LADDER, "games": 6, "seed": 1, "schedule": "adaptive", "rounds": 12,
                        "confidence": 0.95})
    res = run_tournament(cfg, out=tmp_path, progress=True, workers=1, analysis=False)
    a = res["adaptive"]
    # the bar counts the games played against no total (the cap is not what the run will play), with the
    # round and the confidence reached
    bar = capsys.readouterr().err.split("\r")[-1]
    assert f"{res['tournament']['games_played']}game " in bar and f"/{cfg.total_games}" not in bar
    least = min(x["confidence_above_next"] for x in a["ranking"][:-1])
    assert f"round {a['rounds_played']} of at most 12, stopped (confident), least confidence {least:.3f} " \
           f"(target 0.95)" in bar
    assert [x["agent"] for x in a["ranking"]] == ["strong", "normal", "greedy", "random"]
    assert a["stopped"] == "confident" and res["tournament"]["complete"]
    assert all(x["confidence_above_next"] >= 0.95 for x in a["ranking"][:-1])
    assert 1 < a["rounds_played"] < cfg.rounds
    # the first round with every pair sure ends the run: every earlier one was unsure somewhere
    records = list(Store(tmp_path).records().values())
    per = res["tournament"]["deals_per_table"] * 2
    sizes = [len(r["tables"]) for r in a["rounds"]]
    assert sizes[0] == 3 and len(records) == sum(sizes) * per
    for played in range(1, a["rounds_played"]):
        counts = StageCounts(list(cfg.entrants))
        for r in records:
            if r["table"] // 3 < played:
                counts.add(r)
        assert min(ranking(counts)[1]) < 0.95
    # later rounds play only the neighbours whose order is unsure
    assert all(n < 3 for n in sizes[1:])
    replay = AdaptiveReplay(cfg, records)
    assert [t for _, t, _ in replay.pairings()] == [[(t, tuple(res["game_ids"]["tables"][f"t{t}"]))
                                                     for t in r["tables"]] for r in a["rounds"]]
    assert replay.status["stopped"] == "confident"
    text = (tmp_path / "report.md").read_text()
    assert "Format: round robin with an adaptive schedule" in text and "stopped: every pair of neighbours" in text


def test_the_order_fit_does_not_depend_on_the_order_games_are_counted():
    records = [{"agents": [a, b], "places": [1, 2] if (i * 7) % 3 else [2, 1]}
               for i, (a, b) in enumerate([("x", "y"), ("y", "z"), ("x", "z")] * 5)]
    fwd, back = StageCounts(["x", "y", "z"]), StageCounts(["x", "y", "z"])
    for r in records:
        fwd.add(r)
    for r in reversed(records):
        back.add(r)
    assert ranking(fwd)[1] == ranking(back)[1]


@pytest.mark.parametrize("extra,message", [
    ({"schedule": "smart"}, r"t.yaml: schedule: must be one of fixed, adaptive, got 'smart'"),
    ({"schedule": "adaptive"}, r"t.yaml: rounds: an adaptive schedule needs the most rounds it may play"),
    ({"schedule": "adaptive", "rounds": 3, "confidence": 0.5}, r"t.yaml: confidence: must be a finite number above "
                                                               r"0.5 and at most 0.9999, got 0.5"),
    ({"schedule": "adaptive", "rounds": 3, "confidence": "high"}, r"t.yaml: confidence: must be a finite number"),
    ({"confidence": 0.9}, r"t.yaml: confidence: only an adaptive schedule stops at a confidence"),
    ({"schedule": "adaptive", "rounds": 3, "format": "swiss"}, r"t.yaml: schedule: an adaptive schedule ranks a "
                                                               r"round robin's field; this is a swiss"),
])
def test_bad_adaptive_configs_are_one_line(extra, message):
    with pytest.raises(ConfigError, match=message):
        parse_config({"entrants": LADDER, "games": 2, **extra}, "t.yaml")


def test_the_hash_tells_an_adaptive_run_from_a_round_robin():
    plain = parse_config({"entrants": LADDER, "games": 2})
    a = parse_config({"entrants": LADDER, "games": 2, "schedule": "adaptive", "rounds": 3})
    b = parse_config({"entrants": LADDER, "games": 2, "schedule": "adaptive", "rounds": 3, "confidence": 0.9})
    assert len({plain.hash, a.hash, b.hash}) == 3 and a.confidence == 0.95
    assert a.total_games == 3 * 3 * 2 * 2
