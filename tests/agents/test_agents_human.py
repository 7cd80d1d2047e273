"""Human play in the terminal, driven by scripted input: commands, typos, undo, whole games."""
import io
import re

import pytest

from agents.base import View
from yacht_arena.cli.play import play
from agents.human import CommandHelp, HumanAgent, HumanQuit, parse_command, scorecard
from agents.simple import GreedyAgent
from yacht_arena.cli import main
from yacht_env.core.dice_source import ScriptedDice
from yacht_env.core.game import Game


def view_of(dice, rules="yacht", rolls=1, **overrides):
    g = Game(rules, 1, dice=ScriptedDice(list(dice) * 3), **overrides)
    g.roll()
    for _ in range(rolls - 1):
        g.roll(0)
    return View.of(g)


def test_hold_by_position_and_roll():
    v = view_of([1, 2, 3, 4, 6])
    assert parse_command("hold 1 3 5", v) == 0b10101
    assert parse_command("h 135", v) == 0b10101
    assert parse_command("H 1,3,5", v) == 0b10101
    assert parse_command("roll", v) == 0


def test_score_by_name_prefix_and_spaces():
    v = view_of([2, 2, 3, 3, 3])
    boxes = v.rules.boxes
    assert parse_command("score full_house", v) == 31 + boxes.index("full_house")
    assert parse_command("full house", v) == 31 + boxes.index("full_house")
    assert parse_command("s CHANCE", v) == 31 + boxes.index("chance")
    assert parse_command("three_of", v) == 31 + boxes.index("three_of_a_kind")
    with pytest.raises(ValueError, match="'thr' could be threes, three_of_a_kind: type more of the name"):
        parse_command("thr", v)


# one refused input and its message a row: alike in shape to the other such tables, by design
@pytest.mark.parametrize("line, message", [
    ("", "type a command: hold 1 3 5, roll, score BOX"),
    ("hold 6", "'6' is not a die position: positions are 1 to 5"),
    ("hold 0", "'0' is not a die position"),
    ("hold 1 1", "die 1 is given twice"),
    ("hold x", "'x' is not a die position"),
    ("hold", "hold which dice? give positions 1-5"),
    ("hold 12345", "holding all five dice re-rolls nothing: score a box instead"),
    ("roll 1 2", "'roll' re-rolls all five dice and takes nothing after it; to keep dice: hold 1 2"),
    ("1 3", "to keep dice, type: hold 1 3"),
    ("score", "score which box? open: ones, twos"),
    ("fulhouse", "unknown command or box 'fulhouse'; did you mean full_house"),
    ("xyzzy", "unknown command or box 'xyzzy'; boxes: ones, twos"),
    ("f", "'f' could be fours, fives, four_of_a_kind, full_house: type more of the name"),
    ("undo", "nothing to undo: undo works right after you score, until the next roll"),
])
def test_typo_messages(line, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_command(line, view_of([1, 2, 3, 4, 6]))


def test_no_rolls_left_and_filled_box():
    v = view_of([1, 2, 3, 4, 6], rolls=3)
    with pytest.raises(ValueError, match="no re-rolls left this turn: score a box"):
        parse_command("hold 1", v)
    scores = v.game.sheets[0].scores.copy()
    scores[0, v.rules.boxes.index("chance")] = 20
    v.game.set_sheet(0, scores)
    v = View.of(v.game)
    with pytest.raises(ValueError, match="chance is already filled; open: ones"):
        parse_command("chance", v)


def test_columns_need_a_column():
    v = view_of([1, 2, 3, 4, 6], columns=2)
    assert parse_command("chance@2", v) == 31 + 13 + v.rules.boxes.index("chance")
    assert parse_command("chance 2", v) == 31 + 13 + v.rules.boxes.index("chance")
    with pytest.raises(ValueError, match=r"which column\? type chance@1 .. chance@2"):
        parse_command("chance", v)
    with pytest.raises(ValueError, match="column '3' does not exist: columns are 1 to 2"):
        parse_command("chance@3", v)


def test_scorecard_shows_what_open_boxes_would_score():
    v = view_of([2, 3, 4, 5, 6])
    card = scorecard(v.game, {0: "you"}, preview_sheet=0)
    assert "large_straight" in card and "(40)" in card and "(20)" in card


def session(lines, opponents=1, dice=None, seed=1):
    out = io.StringIO()
    names = {0: "you", 1: "cpu"}
    human = HumanAgent(io.StringIO("".join(line + "\n" for line in lines)), out, names)
    g = Game("yacht", 1 + opponents, seed=seed, dice=dice)
    agents = [human] + [GreedyAgent() for _ in range(opponents)]
    for s, a in enumerate(agents):
        a.reset(g.rules, s, g.num_players, seed=s)
    try:
        play(g, agents, names, human)
    except HumanQuit:
        pass
    return g, out.getvalue()


def test_undo_gives_the_same_dice_back():
    g, text = session(["chance", "undo", "ones", "", "quit"], opponents=0, dice=ScriptedDice([1, 1, 2, 3, 5] * 4))
    sheet = g.sheets[0]
    boxes = g.rules.boxes
    assert "scored 12 in chance" in text and "undone: same dice, choose again" in text
    assert sheet.scores[0, boxes.index("chance")] == -1 and sheet.scores[0, boxes.index("ones")] == 2
    assert text.count("[1]  [1]  [2]  [3]  [5]") >= 2


def test_undo_is_only_offered_until_the_next_roll():
    g, text = session(["ones", "", "undo", "quit"], opponents=1)
    assert "nothing to undo: undo works right after you score" in text


def test_after_score_prompt_rejects_other_input():
    g, text = session(["chance", "hold 1", "", "quit"], opponents=0)
    assert "'hold 1': press Enter to go on, or type undo" in text


def test_whole_game_against_a_cpu_from_the_command_line(monkeypatch, capsys):
    boxes = Game("yacht").rules.boxes
    script = "".join(f"score {b}\n\n" for b in reversed(boxes))   # from chance down to ones
    monkeypatch.setattr("sys.stdin", io.StringIO(script))
    assert main(["play", "--vs", "greedy", "--seed", "3"]) == 0
    text = capsys.readouterr().out
    assert "winner:" in text and text.count("scored ") == len(boxes)


def test_end_of_input_abandons_the_game(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("hold 1\n"))
    assert main(["play", "--vs", "easy"]) == 0
    assert "game abandoned" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["play", "--vs", "nobody"], "unknown agent 'nobody'"),
    (["play", "--seat", "3"], "--seat must be 1..2 with 1 opponent(s), got 3"),
    (["play", "--vs"] + ["random"] * 8, "allow 1 to 8 players; you and 8 CPU(s) make 9"),
    (["play", "--set", "teams=2", "--vs", "random", "random"], "3 players cannot split into 2 teams"),
])
def test_play_argument_errors(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


# ---- yacht play: rematch, best score, several people, help, JSON events ---------------------------------

import json  # noqa: E402

from tournaments.gamelog import BestScores  # noqa: E402
from yacht_arena.cli.play import data_dir  # noqa: E402
from agents.human import COMMANDS, VERBS, help_text  # noqa: E402

NO_JOKER = ["--set", "extra_yacht_bonus=false"]    # every open box can be scored: scripts stay in step
BOXES = Game("yacht").rules.boxes


def full_game(boxes=BOXES) -> list[str]:
    """One person's whole game: each box in turn, Enter after each."""
    return [line for b in reversed(boxes) for line in (f"score {b}", "")]


@pytest.fixture(autouse=True)
def data_folder(tmp_path, monkeypatch):
    folder = tmp_path / "data"
    monkeypatch.setenv("YACHT_DATA_DIR", str(folder))
    return folder


def play_cli(monkeypatch, capsys, argv, lines, seed: int | None = 0):
    """`yacht play ARGV` reading `lines`: (exit code, stdout, stderr); seed 0 unless ARGV or `seed` says."""
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(line + "\n" for line in lines)))
    if seed is not None and "--seed" not in argv:
        argv = argv + ["--seed", str(seed)]
    code = main(["play"] + argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_help_lists_every_command_and_every_command_works():
    text = help_text()
    v = view_of([1, 2, 3, 4, 6])
    for _words, usage, what in COMMANDS:
        assert f"  {usage}" in text and what in text
    assert "undo (u)" in text and "take the box back" in text
    assert "several columns" in help_text(columns=2) and "several columns" not in text
    for word in VERBS:
        try:
            parse_command(word + (" 1" if VERBS[word] == "hold" else ""), v)
        except HumanQuit:
            assert VERBS[word] == "quit"
        except CommandHelp as h:
            assert VERBS[word] in ("help", "card") and str(h)
        except ValueError as e:
            assert "unknown command" not in str(e), word


def test_help_and_card_at_the_undo_prompt():
    g, text = session(["chance", "help", "card", "", "quit"], opponents=0)
    assert text.count("undo (u)") == 1 and "  [Enter] go on" in text


def test_play_again_passes_the_first_turn_to_the_next_seat(monkeypatch, capsys):
    lines = full_game() + ["y"] + full_game() + ["n"]
    code, out, err = play_cli(monkeypatch, capsys, ["--vs", "greedy", "--seed", "3", "--json"] + NO_JOKER, lines)
    assert code == 0
    events = [json.loads(line) for line in out.splitlines()]
    starts = [e for e in events if e["event"] == "start"]
    ends = [e for e in events if e["event"] == "end"]
    assert [(s["game"], s["seed"], s["first_seat"]) for s in starts] == [(1, 3, 0), (2, 4, 1)]
    assert len(ends) == 2 and "first to play: you" in err and "first to play: greedy" in err
    second = [e for e in events if e.get("game") == 2 and e["event"] in ("roll", "score")]
    assert second[0]["seat"] == 1 and second[0]["player"] == "greedy"
    assert err.count("play again? [y/N]") == 2


def test_play_again_prompt_rejects_other_answers(monkeypatch, capsys):
    code, out, err = play_cli(monkeypatch, capsys, ["--vs"] + NO_JOKER, full_game() + ["maybe"])
    assert code == 0 and "type y to play again, or n (or Enter) to stop" in out


def test_solo_best_score_is_remembered_per_rule_set(monkeypatch, capsys, data_folder):
    code, out, _ = play_cli(monkeypatch, capsys, ["--vs"] + NO_JOKER, full_game())
    assert code == 0 and "no best score under these rules yet" in out
    first = int(out.split("new best score under these rules: ")[1].split()[0])
    saved = json.loads((data_folder / "best.json").read_text())["best"]
    assert [e["score"] for e in saved.values()] == [first]
    code, out, _ = play_cli(monkeypatch, capsys, ["--vs"] + NO_JOKER, full_game())
    assert f"best score under these rules: {first} (you)" in out and "new best score" not in out
    # other rules, another record
    code, out, _ = play_cli(monkeypatch, capsys, ["--vs", "--set", "rolls_per_turn=2"] + NO_JOKER, full_game())
    assert "no best score under these rules yet" in out
    assert len(json.loads((data_folder / "best.json").read_text())["best"]) == 2
    # a better score replaces the old one and says what it was
    key = next(iter(saved))
    (data_folder / "best.json").write_text(json.dumps({"best": {key: {"score": 1, "rules": "yacht", "name": "x"}}}))
    code, out, _ = play_cli(monkeypatch, capsys, ["--vs", "--name", "ann"] + NO_JOKER, full_game())
    assert f"new best score under these rules: {first} (was 1)" in out
    assert json.loads((data_folder / "best.json").read_text())["best"][key] == {"score": first, "rules": "yacht",
                                                                                "name": "ann"}


def test_no_best_reads_and_writes_nothing(monkeypatch, capsys, data_folder):
    code, out, err = play_cli(monkeypatch, capsys, ["--vs", "--no-best"] + NO_JOKER, full_game())
    assert code == 0 and "best score" not in out and not data_folder.exists() and err == ""


def test_best_score_only_alone(monkeypatch, capsys, data_folder):
    code, out, _ = play_cli(monkeypatch, capsys, ["--vs", "greedy"] + NO_JOKER, ["quit"])
    assert "best score" not in out and not data_folder.exists()


@pytest.mark.parametrize("content, problem", [
    ("{not json", "is not valid JSON"),
    ("[]", 'is not a best-score file (expected {"best": {...}})'),
    ('{"best": {"abc": {"score": NaN}}}', "has a bad entry for rules hash 'abc': score nan"),
    ('{"best": {"abc": {"score": 1e999}}}', "has a bad entry for rules hash 'abc'"),
    ('{"best": {"abc": {"score": true}}}', "has a bad entry for rules hash 'abc': score True"),
    ('{"best": {"abc": 5}}', "has a bad entry for rules hash 'abc': score None"),
    ("[" * 100_000 + "]" * 100_000, "is not valid JSON"),
    (" " * (2 << 20), "cannot be read (2,097,152 bytes; a best-score file may have at most 1,048,576 bytes)"),
    (b"\xff\xfe", "cannot be read"),
])
def test_a_damaged_best_file_costs_one_warning(monkeypatch, capsys, data_folder, content, problem):
    data_folder.mkdir()
    path = data_folder / "best.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    code, out, err = play_cli(monkeypatch, capsys, ["--vs"] + NO_JOKER, full_game())
    assert code == 0 and "winner: you" in out
    assert err.count("\n") == 1 and err.startswith(f"yacht play: warning: {path} {problem}")
    assert "best scores are not kept this session (delete the file to start afresh)" in err
    assert path.read_bytes() == (content if isinstance(content, bytes) else content.encode()), "left alone"


def test_a_best_file_that_is_a_folder(monkeypatch, capsys, data_folder):
    (data_folder / "best.json").mkdir(parents=True)
    code, out, err = play_cli(monkeypatch, capsys, ["--vs"] + NO_JOKER, full_game())
    assert code == 0 and "winner: you" in out
    assert err.count("\n") == 1 and "cannot be read (is a folder, not a best-score file)" in err


def test_an_unwritable_data_folder_costs_one_warning(monkeypatch, capsys, tmp_path):
    (tmp_path / "file").write_text("x")
    monkeypatch.setenv("YACHT_DATA_DIR", str(tmp_path / "file" / "sub"))
    code, out, err = play_cli(monkeypatch, capsys, ["--vs"] + NO_JOKER, full_game())
    assert code == 0 and "winner: you" in out and "new best score" not in out
    assert err.count("\n") == 1 and err.startswith("yacht play: warning: cannot save the best score to ")
    assert "Not a directory" in err


def test_data_folder_follows_xdg_and_home(monkeypatch, tmp_path):
    monkeypatch.setenv("YACHT_DATA_DIR", "")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert data_dir() == tmp_path / "xdg" / "yacht-arena"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert data_dir() == tmp_path / "home" / ".local" / "share" / "yacht-arena"


def test_two_sessions_keep_the_better_score(tmp_path):
    a, b = BestScores(tmp_path), BestScores(tmp_path)
    assert a.offer("k", 100, "yacht", "ann") == {"score": None}
    assert b.offer("k", 90, "yacht", "bob") is None, "b re-reads the file before saving"
    assert b.offer("j", 50, "classic", "bob") == {"score": None}
    assert BestScores(tmp_path).entries == {"k": {"score": 100, "rules": "yacht", "name": "ann"},
                                            "j": {"score": 50, "rules": "classic", "name": "bob"}}
    assert [p.name for p in tmp_path.iterdir()] == ["best.json"], "no temporary file left"


def test_several_people_at_one_terminal_each_with_their_own_undo(monkeypatch, capsys):
    lines = ["chance", "undo", "ones", "",       # alice scores, takes it back, scores again
             "undo", "chance", "",               # bob cannot undo alice's box; he scores his own
             "quit"]
    code, out, err = play_cli(monkeypatch, capsys, ["--humans", "alice", "bob", "--vs", "greedy"] + NO_JOKER, lines)
    assert code == 0 and err == ""
    assert "alice, bob, greedy; first to play: alice" in out
    assert out.index("--- alice's turn ---") < out.index("alice scored ") < out.index("undone: same dice")
    bob = out.index("--- bob's turn ---")
    assert out.index("undone: same dice") < bob < out.index("bob>   nothing to undo: undo works right after you score")
    assert bob < out.index("bob scored ") and "alice scored " not in out[bob:]
    assert "  greedy scores " in out and "game abandoned" in out
    header = next(line for line in out.splitlines() if "alice" in line and "bob" in line and "greedy" in line
                  and "first" not in line)
    assert header.split() == ["alice", "bob", "greedy"]


def test_people_alone_at_one_terminal(monkeypatch, capsys):
    code, out, _ = play_cli(monkeypatch, capsys, ["--humans", "ann", "ben"] + NO_JOKER, ["quit"])
    assert code == 0 and "ann, ben; first to play: ann" in out and "best score" not in out


@pytest.mark.parametrize("argv, message", [
    (["--humans", "alice", "alice"], "--humans: 'alice' is given twice; each person needs their own name"),
    (["--humans", "alice", " "], "--humans: a name cannot be empty"),
    (["--humans", "a" * 30], "is longer than 20 characters"),
    (["--humans", "a\tb"], "holds characters that cannot be printed"),
    (["--name", ""], "--name: a name cannot be empty"),
    (["--humans", "alice", "--seat", "2"], "--humans names everyone at the terminal and seats them first"),
    (["--humans", "alice", "--name", "bob"], "it does not go with --name or --seat"),
    (["--vs", "human"], "--vs human: people at this terminal are named with --humans NAME"),
    (["--humans"] + [f"p{i}" for i in range(6)] + ["--vs", "random", "random", "random"],
     "allow 1 to 8 players; 6 people and 3 CPU(s) make 9"),
])
def test_people_argument_errors(argv, message, capsys):
    assert main(["play"] + argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_cpu_named_like_a_person_gets_its_seat(monkeypatch, capsys):
    code, out, _ = play_cli(monkeypatch, capsys, ["--name", "greedy", "--vs", "greedy"], ["quit"])
    assert "greedy, greedy#2; first to play: greedy" in out


def test_a_fresh_seed_unless_one_is_given_shown_so_the_game_can_be_replayed(monkeypatch, capsys):
    argv, lines = ["--json", "--vs", "--no-best"] + NO_JOKER, full_game() + ["n"]
    first, second = (play_cli(monkeypatch, capsys, argv, lines, seed=None) for _ in range(2))
    seeds = [json.loads(out.splitlines()[0])["seed"] for _, out, _ in (first, second)]
    assert seeds[0] != seeds[1]                     # two fresh seeds of 63 bits
    assert f"Seed {seeds[0]} (replay: --seed {seeds[0]})" in first[2]
    replay = play_cli(monkeypatch, capsys, argv + ["--seed", str(seeds[0])], lines)
    assert replay[0] == 0 and replay[1] == first[1]  # the same game, event for event


def test_json_is_an_event_log_and_prompts_go_to_stderr(monkeypatch, capsys):
    lines = ["hold 1 2", "chance", "undo", "ones", ""] + full_game(BOXES[1:]) + ["n"]
    code, out, err = play_cli(monkeypatch, capsys, ["--json", "--vs", "--seed", "5"] + NO_JOKER, lines)
    assert code == 0 and "> " in err and "winner: you" in err
    events = [json.loads(line) for line in out.splitlines()]
    kinds = [e["event"] for e in events]
    assert kinds[0] == "start" and kinds[-1] == "end" and kinds.count("undo") == 1
    start = events[0]
    assert start["rules"]["name"] == "yacht" and start["rules"]["set"] == {"extra_yacht_bonus": False}
    assert len(start["rules"]["hash"]) == 16 and start["players"] == [{"seat": 0, "name": "you", "agent": "human"}]
    assert events[1]["event"] == "roll" and events[2]["hold"] == [0, 1] and events[2]["rolls_left"] == 1
    undo = events[kinds.index("undo")]
    assert undo["box"] == "chance" and events[kinds.index("undo") - 1]["box"] == "chance"
    scores = [e for e in events if e["event"] == "score"]
    kept = [e for i, e in enumerate(events) if e["event"] == "score" and kinds[i + 1] != "undo"]
    assert len(scores) == 14 and len(kept) == 13
    end = events[-1]
    assert end["totals"] == [kept[-1]["total"]] == [sum(e["points"] + e["bonus"] for e in kept)]
    assert end["winners"] == [0] and end["best"] == {"score": end["totals"][0], "new": True}


def test_json_abandoned_game(monkeypatch, capsys):
    code, out, err = play_cli(monkeypatch, capsys, ["--json", "--vs", "greedy"], ["quit"])
    events = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and events[-1] == {"event": "abandoned", "game": 1, "reason": "quit"}
    assert "game abandoned" in err


def test_json_help_says_what_it_writes(capsys):
    with pytest.raises(SystemExit):
        main(["play", "--help"])
    assert "JSON lines on stdout, one event per" in " ".join(capsys.readouterr().out.split())


def test_run_with_scripted_streams_keeps_screen_and_events_apart():
    from yacht_arena.cli.play import run
    from yacht_arena.cli import build_parser
    args = build_parser().parse_args(["play", "--json", "--humans", "ann", "--vs", "greedy", "--seed", "2"])
    screen, events = io.StringIO(), io.StringIO()
    assert run(args, inp=io.StringIO("roll\nchance\nundo\nchance\n\nquit\n"), out=screen, events=events) == 0
    lines = [json.loads(line) for line in events.getvalue().splitlines()]
    assert [e["event"] for e in lines[:7]] == ["start", "roll", "roll", "score", "undo", "score", "roll"]
    assert lines[-1]["event"] == "abandoned" and "{" not in screen.getvalue()
    assert "> roll\n" in screen.getvalue() and "undone: same dice" in screen.getvalue()
