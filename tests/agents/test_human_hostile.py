"""A person at the terminal who is not there: stdin at its end before the first move."""
import io

import pytest

from yacht_arena.cli import main


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


class Endless(io.TextIOBase):
    """A stdin whose first line is `size` characters long (never held whole), then `rest`."""

    def __init__(self, size: int, rest: str):
        self.left, self.rest = size, io.StringIO(rest)

    def readable(self) -> bool:
        return True

    def readline(self, limit: int = -1) -> str:
        if self.left > 0:
            n = self.left if limit is None or limit < 0 else min(limit, self.left)
            self.left -= n
            return "x" * n + ("\n" if self.left == 0 and (limit < 0 or n < limit) else "")
        return self.rest.readline(limit)


def test_a_long_line_typed_to_play_is_ignored_in_bounded_memory(monkeypatch, capsys):
    import tracemalloc
    monkeypatch.setattr("sys.stdin", Endless(500 << 10, "\nquit\n"))   # 500 KB on one line, then quit
    tracemalloc.start()
    try:
        code = main(["play", "--vs", "random"])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    out = capsys.readouterr().out
    assert code == 0 and "longer than 1000 characters; it was ignored" in out
    assert peak < 64 << 20, peak


@pytest.mark.parametrize("size", [(1 << 20) + 70_000, 200 << 20, 10 ** 18])
def test_an_endless_line_ends_play_in_one_line(monkeypatch, capsys, size):
    """A line past MAX_LINE_CHARS (2^20) is nobody's typing: the input is not read further (an endless stream
    without a newline once kept `yacht play` reading forever)."""
    stdin = Endless(size, "\nquit\n")
    monkeypatch.setattr("sys.stdin", stdin)
    assert main(["play", "--vs", "random"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == ["yacht play: error: input: line 1: longer than 1,048,576 characters without an end; a command "
                   "is one line of at most 1,000 characters"]
    assert size - stdin.left < (1 << 20) + (1 << 17)            # read no further than the bound


def test_ask_counts_lines_and_refuses_only_the_endless_one():
    from agents.human import EndlessLine, HumanAgent, HumanQuit
    person = HumanAgent(inp=io.StringIO("x" * 5000 + "\n" + "roll\n" + "y" * (3 << 20)), out=io.StringIO())
    assert person.ask("> ") == "roll" and person.lines == 2
    with pytest.raises(EndlessLine, match="line 3: longer than 1,048,576 characters"):
        person.ask("> ")
    person = HumanAgent(inp=io.StringIO("z" * 200_000), out=io.StringIO())        # long, then the input ends
    with pytest.raises(HumanQuit):
        person.ask("> ")
