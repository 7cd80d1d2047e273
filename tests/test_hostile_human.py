"""A person at the terminal who is not there: stdin at its end before the first move."""
import io

from tournaments.cli import main


def test_play_with_no_input_is_one_clear_error(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["play", "--vs", "random"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["yacht play: error: no input: stdin ended before the first move; `yacht play` reads moves "
                   "from a terminal (or one command per line from a pipe)"]


def test_play_abandoned_after_some_input_is_not_an_error(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("hold 1 2\n"))
    assert main(["play", "--vs", "random"]) == 0
    assert capsys.readouterr().out.rstrip().endswith("game abandoned")


def test_evaluate_human_with_no_input_is_one_clear_error(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["evaluate", "human", "--games", "1", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("yacht evaluate: error: ")
