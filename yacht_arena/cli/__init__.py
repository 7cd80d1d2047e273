"""The `yacht` command line: one subcommand per module, each with add_parser(sub) and run(args)."""
import argparse
import importlib
import importlib.metadata
import os
import sys

from .options import USER_ERRORS, InertOutput, Parser

DISTRIBUTION = "yacht-arena"      # the name in pyproject.toml

# name -> module with `add_parser(subparsers)` and `run(args) -> int`; loaded on demand.
COMMANDS = {name: f"yacht_arena.cli.{name}" for name in (
    "rules", "odds", "solve", "advise", "play", "evaluate", "levels", "analyze", "show", "tournament", "match",
    "report", "train", "serve", "verify")}


def _module(name):
    return importlib.import_module(COMMANDS[name])


# extras that provide a missing top-level module
EXTRAS = {"torch": "rl", "stable_baselines3": "rl", "sb3_contrib": "rl", "pettingzoo": "multi", "ray": "ray",
          "uvicorn": "web", "starlette": "web"}


def _unavailable(sub, name: str, err: ModuleNotFoundError) -> None:
    """Register a command whose optional dependency is missing: it explains how to install it."""
    extra = EXTRAS.get((err.name or "").split(".")[0])
    hint = f"pip install 'yacht-arena[{extra}]'" if extra else f"install the missing package {err.name!r}"
    p = sub.add_parser(name, help=f"(unavailable: needs {err.name}; {hint})", add_help=False)
    p.add_argument("rest", nargs=argparse.REMAINDER)
    p.set_defaults(missing=f"this command needs {err.name!r}, which is not installed; {hint}")


def version() -> str:
    """The installed distribution's version (pyproject.toml's), or a note that it is run from a source tree."""
    try:
        return importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return "(not installed: run from a source tree)"


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole parser, or with `only` a command's name the parser of that one command (the others' modules,
    uvicorn's among them, are then not imported)."""
    parser = Parser(prog="yacht", description="Yacht arena: rules, environments, solver, "
                                     "agents and tournaments for the dice game Yacht.")
    parser.add_argument("--version", action="version", version=f"yacht-arena {version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS if only is None else (only,):
        try:
            module = _module(name)
        except ModuleNotFoundError as err:
            if err.name and err.name.split(".")[0] in ("yacht_env", "agents", "tournaments", "yacht_arena"):
                raise
            _unavailable(sub, name, err)
            continue
        module.add_parser(sub)
    return parser


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    # `yacht COMMAND ...` needs only that command's parser; anything else (help, --version, a typo) the whole one
    parser = build_parser(argv[0] if argv and argv[0] in COMMANDS else None)
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return 2
    if getattr(args, "missing", None):
        print(f"yacht {args.command}: error: {args.missing}", file=sys.stderr)
        return 2
    stdout = sys.stdout
    sys.stdout = InertOutput(stdout)     # text from configs, files, bots and people stays inert on the terminal
    try:
        return int(_module(args.command).run(args) or 0)
    except USER_ERRORS as e:
        print(f"yacht {args.command}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:           # a command may say how to go on (as `yacht tournament` does)
        print(f"yacht {args.command}: interrupted" + (f"; {e}" if str(e) else ""), file=sys.stderr)
        return 130
    except ModuleNotFoundError as err:
        if (err.name or "").split(".")[0] not in EXTRAS:
            raise
        print(f"yacht {args.command}: error: this needs {err.name!r}, which is not installed; "
              f"pip install 'yacht-arena[{EXTRAS[err.name.split('.')[0]]}]'", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into `head` and the like
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    finally:
        if isinstance(sys.stdout, InertOutput):
            sys.stdout = stdout


if __name__ == "__main__":
    sys.exit(main())
