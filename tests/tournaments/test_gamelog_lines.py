"""The one parser of a games log's lines (`tournaments.gamelog.records`), shared by the store and the analysis,
against blank, torn, repeated, bad and over-long lines."""
import io

import pytest

from tournaments.gamelog import first_of_each_key, record_lines


def test_one_games_log_reader_for_the_store_and_the_analysis():
    """tournaments.gamelog.record_lines: line numbers and offsets, blank lines skipped, a torn last line ends the
    log, a last line of valid JSON without its newline counts only where asked (the analysis), bad lines
    reported; first_of_each_key keeps the first record of a key."""
    def bad(number, problem):
        raise ValueError(f"line {number}: {problem}")

    data = b'{"key": "a"}\n\n{"key": "b"}\n{"key": "a"}\n{"key": "c"}'
    lines = list(record_lines(io.BytesIO(data), bad))
    assert [(n, at, r["key"]) for n, at, r in lines] == [(1, 0, "a"), (3, 14, "b"), (4, 27, "a")]
    kept = first_of_each_key(record_lines(io.BytesIO(data), bad, unterminated=True))
    assert [r["key"] for _, _, r in kept] == ["a", "b", "c"]
    assert len(list(record_lines(io.BytesIO(b'{"key": "a"}\n{"ke'), bad, unterminated=True))) == 1
    with pytest.raises(ValueError, match="line 2: not JSON"):
        list(record_lines(io.BytesIO(b'{"key": "a"}\n{x\n'), bad))
    with pytest.raises(ValueError, match="line 1: too long"):
        list(record_lines(io.BytesIO(b'{"key": "a"}\n'), bad, limit=4))
