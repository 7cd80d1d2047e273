"""`yacht tournament`: a round robin, gauntlet or Swiss with duplicate dice, resumable, with a report in the
output folder."""
import os
import sys

from yacht_env.rules import parse_sets

from tournaments.config import MAX_GAMES, load_config, presets
from tournaments.executors import EXECUTORS
from tournaments.report import forfeit_counts, terminal_table
from tournaments.run import default_out, run_tournament
from .faults import FAULT_EXIT_HELP, add_fault_option, gate, headline
from .options import add_common, emit_json


def add_parser(sub):
    p = sub.add_parser("tournament", help="tournament between agents: round robin, gauntlet or Swiss "
                                          "(duplicate dice, resumable)",
                       description="Play every table of the config's format (round robin, gauntlet or Swiss) and "
                                   "write report.md, results.json and histograms to the output folder. Rerun the "
                                   "same command to resume. "
                                   f"A tournament schedules at most {MAX_GAMES:,} games. Exit status: "
                                   f"{FAULT_EXIT_HELP}.")
    p.add_argument("config", nargs="?", default=None, metavar="CONFIG",
                   help=f"a preset ({', '.join(presets())}; default: default) or a tournament YAML named with a "
                        "path or a .yaml suffix")
    p.add_argument("--games", type=int, default=None, metavar="N", help="deals per table (replaces the config's)")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1, metavar="W",
                   help="worker processes (default: one per CPU)")
    p.add_argument("--executor", choices=EXECUTORS, default="local",
                   help="local process pool (default) or ray")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--no-analysis", action="store_true", help="leave the move analysis out of the report")
    add_fault_option(p)
    p.add_argument("--force", action="store_true",
                   help="resume even though a model file or bot script an entrant uses changed since the run began "
                        "(the remaining games are played with the new file)")
    add_common(p, config=True, out="tournament folder (default: runs/<name>-<config hash>; the hash covers the rules, "
                                   "so other rules or overrides get another folder); rerun to resume")


def run(args):
    config = load_config(args.config, games=args.games, seed=args.seed, rules=args.rules,
                         set=parse_sets(args.overrides))
    folder = args.out if args.out is not None else default_out(config)
    try:
        res = run_tournament(config, out=folder, workers=args.workers, executor=args.executor,
                             progress=not (args.quiet or args.json), analysis=not args.no_analysis,
                             notify=lambda line: print(line, file=sys.stderr, flush=True), force=args.force)
    except KeyboardInterrupt:
        raise KeyboardInterrupt(f"the games played are kept in {folder}; rerun the same command to resume") from None
    faults = gate(forfeit_counts(res), args.max_fault_rate)
    if args.json:
        emit_json({**res, "rules": config.rules_block, "fault_gate": faults})
        return faults["exit"]
    first = headline(faults)
    if first:
        print(first)
    print(terminal_table(res))
    run_ = res["run"]
    rate = f", {run_['games_per_second']:.1f} games/s" if run_["games_per_second"] else ""
    kept = f", {run_['games_kept']:,} kept from an earlier run" if run_["games_kept"] else ""
    print(f"{res['tournament']['games_played']:,} games: {run_['games_run']:,} played now in {run_['seconds']:.1f} s"
          f"{rate}{kept}; report: {run_['folder']}/report.md")
    return faults["exit"]
