"""The one-line error every bad input gets on the command line: exit status 2 and one line on stderr."""
from yacht_arena.cli import main


def error_line(capsys) -> str:
    """The one line the command just wrote to stderr (asserted to be one)."""
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


def cli_error(capsys, argv) -> str:
    """Run `yacht ARGV`, expect exit status 2 and one `yacht CMD: error: ...` line on stderr; return it."""
    assert main(argv) == 2
    line = error_line(capsys)
    assert line.startswith(f"yacht {argv[0]}: error: "), line
    return line
