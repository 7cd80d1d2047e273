"""The table of shared options in docs/cli.md is exactly what `yacht CMD --help` offers, for every command."""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from yacht_arena.cli import COMMANDS, main

SHARED = ("--rules/--set", "--seed", "--json", "--out")


def options_table() -> dict[str, set[str]]:
    text = Path("docs/cli.md").read_text()
    rows = re.findall(r"^\| `yacht (\w+)` \|(.*)\|\s*$", text, flags=re.M)
    table = {}
    for name, cells in rows:
        marks = [c.strip() for c in cells.split("|")]
        assert len(marks) == len(SHARED) and set(marks) <= {"yes", ""}, (name, marks)
        table[name] = {opt for opt, mark in zip(SHARED, marks) if mark == "yes"}
    return table


def help_options(name: str, capsys) -> set[str]:
    with pytest.raises(SystemExit) as e:
        main([name, "--help"])
    assert e.value.code == 0
    text = capsys.readouterr().out
    section = text.split("\noptions:\n", 1)[1]
    found = set(re.findall(r"^ {2}(?:-\w, )?(--[\w-]+)", section, flags=re.M))
    shared = {opt for opt in ("--seed", "--json", "--out") if opt in found}
    if "--rules" in found or "--set" in found:
        assert {"--rules", "--set"} <= found, f"yacht {name} has only one of --rules and --set"
        shared.add("--rules/--set")
    return shared


def test_options_table_lists_every_command_once():
    assert sorted(options_table()) == sorted(COMMANDS)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_options_table_matches_help(name, capsys):
    assert help_options(name, capsys) == options_table()[name]


def test_rules_help_says_how_a_file_is_named(capsys):
    with pytest.raises(SystemExit):
        main(["rules", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "a preset name" in text and "a rules file named with a path or a .yaml suffix (./mine.yaml)" in text
    with pytest.raises(SystemExit):
        main(["report", "--help"])
    assert "Everything comes from the folder: the rules" in " ".join(capsys.readouterr().out.split())


def test_usage_errors_are_one_line(capsys):
    with pytest.raises(SystemExit) as e:
        main(["rules", "--frobnicate"])
    assert e.value.code == 2
    assert capsys.readouterr().err == "yacht: error: unrecognized arguments: --frobnicate (see yacht --help)\n"
    with pytest.raises(SystemExit) as e:
        main(["evaluate", "greedy", "--seed", "x"])
    assert e.value.code == 2
    assert capsys.readouterr().err == ("yacht evaluate: error: argument --seed: must be a whole number from 0 to "
                                       "9223372036854775807, got 'x' (see yacht evaluate --help)\n")


def test_python_dash_m_runs_the_command():
    """`python -m yacht_arena.cli` is the `yacht` command (the benchmarks start it that way)."""
    out = subprocess.run([sys.executable, "-m", "yacht_arena.cli", "rules", "--json"], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).resolve().parents[2])
    assert json.loads(out.stdout)["name"] == "yacht"


def test_version_is_the_distributions(capsys):
    import tomllib
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    project = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())["project"]
    assert e.value.code == 0 and capsys.readouterr().out == f"{project['name']} {project['version']}\n"
