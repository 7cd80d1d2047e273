"""A person at the terminal who is not there: stdin at its end before the first move."""
import io

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


def test_an_endless_line_typed_to_play_is_ignored_in_bounded_memory(monkeypatch, capsys):
    import tracemalloc
    monkeypatch.setattr("sys.stdin", Endless(200 << 20, "\nquit\n"))   # 200 MB on one line, then quit
    tracemalloc.start()
    try:
        code = main(["play", "--vs", "random"])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    out = capsys.readouterr().out
    assert code == 0 and "longer than 1000 characters; it was ignored" in out
    assert peak < 64 << 20, peak
