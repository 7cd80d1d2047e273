"""The `yacht` command line: one subcommand per module, each with add_parser(sub) and run(args)."""
import argparse
import importlib
import os
import sys

from yacht_env.cli_common import USER_ERRORS

# name -> module with `add_parser(subparsers)` and `run(args) -> int`; loaded on demand.
COMMANDS = {
    "odds": "yacht_env.commands.odds",
    "rules": "yacht_env.commands.rules_cmd",
    "solve": "yacht_env.commands.solve",
    "advise": "yacht_env.commands.advise",
    "tournament": "tournaments.commands.tournament_cmd",
    "report": "tournaments.commands.report_cmd",
    "train": "agents.training.command",
    "evaluate": "agents.commands.evaluate",
    "levels": "agents.commands.levels",
    "play": "agents.commands.play",
}


def _module(name):
    return importlib.import_module(COMMANDS[name])


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="yacht", description="Yacht arena: rules, environments, solver, "
                                     "agents and tournaments for the dice game Yacht.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        _module(name).add_parser(sub)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return 2
    try:
        return int(_module(args.command).run(args) or 0)
    except USER_ERRORS as e:
        print(f"yacht {args.command}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"yacht {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into `head` and the like
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
