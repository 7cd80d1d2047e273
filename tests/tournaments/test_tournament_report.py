"""The report an organiser reads: standings first, every table in rank order, consistent summaries, and
names that cannot break files, Markdown or HTML."""
import json
import math

import numpy as np
import pytest
from tests.fake_agents import FACTORY

from tournaments import games as compact_games
from yacht_arena.cli import main
from tournaments.config import parse_config
from tournaments.report import histogram_name, render
from tournaments.run import run_tournament
from tournaments.store import Store
from yacht_env.config import ConfigError

ODD = "A b|<i>$x$"     # a name with Markdown, HTML and matplotlib specials


def run(cfg, out):
    return run_tournament(cfg, out=out, progress=False, factory=FACTORY)


def section(text: str, title: str) -> list[str]:
    lines = text.split("\n")
    start = lines.index(f"## {title}") + 1
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("## ")), len(lines))
    return lines[start:end]


def tables(lines: list[str]) -> list[list[list[str]]]:
    """The Markdown tables among the lines: rows of cells, header first, separator dropped."""
    out, current = [], None
    for line in lines + [""]:
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip("|").split(" | ")]
            if current is None:
                current = [cells]
            elif not set(line) <= set("|-: "):
                current.append(cells)
        elif current is not None:
            out.append(current)
            current = None
    return out


@pytest.fixture(scope="module")
def three_seats(tmp_path_factory):
    out = tmp_path_factory.mktemp("three")
    cfg = parse_config({"entrants": ["random", "first", {"name": "champ", "agent": "best"}], "games": 3, "seats": 3})
    return cfg, run(cfg, out), out


@pytest.fixture(scope="module")
def two_seats(tmp_path_factory):
    out = tmp_path_factory.mktemp("two")
    cfg = parse_config({"entrants": [{"name": "a.b", "agent": "first"}, {"name": "random", "agent": "random"},
                                     {"name": "c_d", "agent": "best"}, {"name": ODD, "agent": "upper"}],
                        "games": 4})
    return cfg, run(cfg, out), out


def test_report_opens_with_the_standings_and_a_winner(three_seats):
    cfg, res, out = three_seats
    text = (out / "report.md").read_text()
    lines = text.split("\n")
    assert lines[0] == "# Tournament 'tournament'" and lines[2] == "## Standings"
    ranked = [x["agent"] for x in res["standings"]]
    assert ranked[0] == "champ" and lines[4].startswith("**Winner: champ**, score rate ")
    (table,) = tables(section(text, "Standings"))
    assert table[0][:3] == ["rank", "agent", "spec"]
    assert [row[1] for row in table[1:]] == ranked
    assert [int(row[0]) for row in table[1:]] == sorted(int(row[0]) for row in table[1:])
    assert {row[1]: row[2] for row in table[1:]} == {n: f"`{s}`" for n, s in cfg.entrants.items()}
    rates = [x["score_rate"] for x in res["standings"]]
    assert rates == sorted(rates, reverse=True)


def test_every_table_follows_the_ranking(three_seats, two_seats):
    for _, res, out in (three_seats, two_seats):
        text = (out / "report.md").read_text()
        ranked = [x["agent"].replace("|", "\\|").replace("<", "\\<").replace(">", "\\>") for x in res["standings"]]
        index = {name: i for i, name in enumerate(ranked)}
        checked = 0
        for title in ("Scores", "Ratings", "Head to head", "Duplicate dice"):
            for table in tables(section(text, title)):
                names = [row[0].strip("*") for row in table[1:]]
                if set(names) <= set(index):
                    assert [index[n] for n in names] == sorted(index[n] for n in names), (title, names)
                    checked += 1
                if table[0][0] == "a":         # pair tables: a ranks above b, pairs in rank order
                    keys = [(index[row[0]], index[row[1]]) for row in table[1:]]
                    assert all(a < b for a, b in keys) and keys == sorted(keys)
                    checked += 1
        (boxes,) = tables(section(text, "Mean points per box"))
        assert boxes[0][1:] == ranked
        assert checked >= 5


def test_per_box_lines_add_up_to_the_mean(two_seats):
    _, res, _ = two_seats
    for a in res["agents"].values():
        total = sum(a["per_box_mean"].values()) + a["upper_bonus_mean"] + a["extra_bonus_mean"]
        assert total == pytest.approx(a["mean"], abs=1e-3)


def test_duplicate_summary_is_one_computation(two_seats):
    _, res, out = two_seats
    s = res["duplicate_dice"]["summary"]
    assert s["games_factor"] == pytest.approx(1 / s["width_ratio"] ** 2)
    assert s["width_ratio"] == pytest.approx(math.sqrt(s["variance_per_game_duplicate"]
                                                       / s["variance_per_game_independent"]))
    text = "\n".join(section((out / "report.md").read_text(), "Duplicate dice"))
    assert (f"{100 * s['width_ratio']:.0f}% as wide, as precise as {s['games_factor']:.2f} times as many "
            f"independent games (1 / {s['width_ratio']:.3f}²)") in text


def test_elo_says_why_it_is_missing(three_seats, two_seats):
    _, res, out = three_seats
    assert res["ratings"]["elo"] is None
    text = "\n".join(section((out / "report.md").read_text(), "Ratings"))
    assert ("Elo is not given: it rates games between two players, and these games have 3 players at each "
            "table. OpenSkill Plackett-Luce rates games of any size") in text
    _, res, out = two_seats
    assert set(res["ratings"]["elo"]) == set(res["agents"]) and "elo_unavailable" not in res["ratings"]


def test_game_ids_have_a_legend(three_seats):
    cfg, res, out = three_seats
    lines = section((out / "report.md").read_text(), "Game ids")
    text = "\n".join(lines)
    assert "A game id such as `t3-d12-r1` is table 3" in text and "deal 12 (0 to 2" in text
    assert "arrangement 1 (0 to 2: who sits where)" in text
    (table,) = tables(lines)
    assert table[1:] == [["`t0`", "random, first, champ"]]


def test_histogram_names_are_safe_and_follow_the_slug():
    names = ["a.b", "c d", "E_f", "g/h", "i\\j", "..", "x" * 64, "ä", "hist", ODD]
    files = [histogram_name(n) for n in names]
    assert len(set(files)) == len(files) and len({f.lower() for f in files}) == len(files)
    assert all(f.startswith("hist_") and f.endswith(".png") and "/" not in f and "\\" not in f and len(f) < 80
               for f in files)
    assert histogram_name("strong") == "hist_strong.png"
    with pytest.raises(ConfigError, match="would share the file hist_a_b.png"):   # so names never collide
        parse_config({"entrants": [{"name": "a.b", "agent": "first"}, {"name": "A_b", "agent": "best"}]})


def test_odd_names_keep_their_own_files_and_stay_text(two_seats):
    cfg, res, out = two_seats
    for name in cfg.entrants:
        assert (out / histogram_name(name)).stat().st_size > 1000
    text = (out / "report.md").read_text()
    assert "A b\\|\\<i\\>$x$" in text and ODD not in text
    html = (out / "report.html").read_text()
    assert "A b|&lt;i&gt;$x$" in html and "<i>" not in html


def test_rendering_twice_gives_the_same_files(three_seats, tmp_path):
    _, _, out = three_seats
    names = ["report.md", "report.html", "results.json", "scores.png", histogram_name("champ")]
    before = {n: (out / n).read_bytes() for n in names}
    for n in names:
        (out / n).unlink()
    render(out)
    assert before == {n: (out / n).read_bytes() for n in names}


def test_the_analysis_gets_the_same_chunks_whether_the_records_were_kept_or_read_again(two_seats):
    """`games.read` keeps the full records of a store of one chunk, and `chunks` gives them instead of
    reading the file again: the same records in the same chunks as read from the file (in other sizes too)."""
    _, _, out = two_seats
    kept, again = compact_games.read(Store(out)), compact_games.read(Store(out), keep=0)
    assert kept.full is not None and again.full is None and len(kept) == len(again) > 5
    from_file = list(compact_games.chunks(Store(out), again))
    assert list(compact_games.chunks(Store(out), kept)) == from_file and len(from_file) == 1
    assert kept.full is None                      # given once, then let go
    assert list(compact_games.chunks(Store(out), kept)) == from_file
    assert list(compact_games.chunks(Store(out), compact_games.read(Store(out)), size=5)) == \
        list(compact_games.chunks(Store(out), again, size=5))
    assert compact_games.read(Store(out), keep=len(again) - 1).full is None


def test_a_store_from_another_schedule_is_refused(tmp_path):
    cfg = parse_config({"entrants": ["first", "best"], "games": 1})
    run(cfg, tmp_path)
    lines = (tmp_path / "games.jsonl").read_text().splitlines()
    rec = json.loads(lines[0])
    rec["agents"] = rec["agents"][::-1]
    (tmp_path / "games.jsonl").write_text("\n".join([json.dumps(rec)] + lines[1:]) + "\n")
    with pytest.raises(ConfigError, match=r"games.jsonl: line 1: game t0-d0-r0 does not match the schedule: agents "
                                           r"\['best', 'first'\], expected \['first', 'best'\]; the store is damaged"):
        render(tmp_path)


def test_an_unwritable_report_is_one_message(tmp_path, capsys):
    run(parse_config({"entrants": ["first", "best"], "games": 1}), tmp_path)
    (tmp_path / "report.html").unlink()
    (tmp_path / "report.html").mkdir()
    assert main(["report", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"yacht report: error: {tmp_path / 'report.html'}: is a folder; the report file is "
                          f"written only as a regular file")
    assert err.count("\n") == 1


def test_incomplete_tournament_names_a_leader(tmp_path):
    cfg = parse_config({"entrants": ["first", "best"], "games": 2})
    run(cfg, tmp_path)
    lines = (tmp_path / "games.jsonl").read_text().splitlines()
    (tmp_path / "games.jsonl").write_text("\n".join(lines[:2]) + "\n")
    res = render(tmp_path)
    assert not res["tournament"]["complete"]
    assert "**Leading so far: best**" in (tmp_path / "report.md").read_text()
    (tmp_path / "games.jsonl").write_text("")
    res = render(tmp_path)
    text = (tmp_path / "report.md").read_text()
    assert "No results yet." in text and res["ratings"]["elo_unavailable"] == "no two-seat games played yet"


@pytest.mark.parametrize("opened, says", [(True, "opened {} in the web browser"),
                                          (False, "no web browser could be opened; the report is {}")])
def test_report_open(three_seats, monkeypatch, capsys, opened, says):
    _, _, out = three_seats
    calls = []
    monkeypatch.setattr("webbrowser.open", lambda url: calls.append(url) or opened)
    assert main(["report", str(out), "--open"]) == 0
    text = capsys.readouterr().out
    assert calls == [(out / "report.html").resolve().as_uri()]
    assert says.format(out / "report.html") in text and f"report: {out / 'report.md'}, {out / 'report.html'}" in text
    assert main(["report", str(out), "--open", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["tournament"]["games_played"] == 9
    assert says.format(out / "report.html") in captured.err


def test_report_open_survives_a_browser_that_raises(three_seats, monkeypatch, capsys):
    _, _, out = three_seats

    def broken(url):
        raise OSError("no display")

    monkeypatch.setattr("webbrowser.open", broken)
    assert main(["report", str(out), "--open"]) == 0
    assert "no web browser could be opened; the report is" in capsys.readouterr().out


def test_no_teams_section_without_teams(three_seats):
    _, res, out = three_seats
    assert res["teams"] is None and res["tournament"]["partnership_splits"] is None
    assert "## Teams" not in (out / "report.md").read_text()


def test_the_report_reads_columns_as_it_would_read_whole_records_in_any_file_order(tmp_path):
    """`tournaments.games.Games` (flat columns, sorted by game) gives the figures the full records give,
    whatever order games.jsonl holds them in and with a game stored twice (the first line counts)."""
    from tournaments.report import results
    from tournaments.gamelog import GAMES
    from tournaments.store import Store

    cfg = parse_config({"entrants": ["first", "crash", "best"], "games": 2, "seed": 5})
    run_tournament(cfg, out=tmp_path / "a", progress=False, factory=FACTORY, analysis=False)
    lines = (tmp_path / "a" / GAMES).read_bytes().splitlines(keepends=True)
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "tournament.json").write_bytes((tmp_path / "a" / "tournament.json").read_bytes())
    (tmp_path / "b" / GAMES).write_bytes(b"".join(lines[::-1] + [lines[0]]))
    whole = results(Store(tmp_path / "a"), list(Store(tmp_path / "a").records().values()), analysis=False)
    assert whole["faults"] and whole["tournament"]["games_played"] == len(lines) == 12
    for folder in ("a", "b"):
        assert results(Store(tmp_path / folder), analysis=False) == whole


def test_spilled_figures_come_back_in_order_to_readers_at_once():
    from agents.analysis import Spill
    from tournaments.store import KeySet

    spill = Spill()
    groups = [(np.arange(6.0).reshape(3, 2) + g, np.array([g, g + 1])) for g in range(3)]
    for g in groups:
        spill.add(*g)
    for got, want in zip(zip(spill, spill), groups):
        for arrays in got:
            assert all(np.array_equal(x, y) and x.dtype == y.dtype for x, y in zip(arrays, want))
    spill.close()
    for keys in (KeySet(3, 2, 2), KeySet(10 ** 9, 10, 2)):       # a bit a game; a set past KeySet.BITS
        assert keys.add("t2-d1-r1") and not keys.add("t2-d1-r1") and keys.add("t0-d0-r0") and len(keys) == 2
        assert "t2-d1-r1" in keys and "t1-d1-r1" not in keys
