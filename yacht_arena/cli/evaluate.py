"""`yacht evaluate AGENT`: one agent's solitaire score distribution.

Game i uses the dice seed `game_seed(seed, i)`, so every agent evaluated with the same seed sees the
same dice. Batched agents play all games at once (`agents.evaluation`). An agent that records faults
(an external bot: a timeout, a crash, garbage or an illegal move) has them reported: its fallback moves
are counted in the scores, and the text and `--json` say how many games they touched. `--out DIR`
writes every game as a record (`tournaments.gamelog`) to `DIR/games.jsonl` with `DIR/evaluate.json`, which
`yacht analyze DIR` and `yacht show DIR GAME` read. The run records the content hash of every file
it depends on (`files`: a model file, a bot's script, a rules file; `agents.provenance`); a folder that
holds another run (another agent, seed or rules, or one of those files changed since) is not written
over without `--force`.
"""
import sys
from pathlib import Path

from agents.evaluation import fault_count, fault_note, fault_summary, recorded_faults, solitaire, summarize
from agents.base import check_playable
from agents.human import HumanQuit
from agents.provenance import changed, check_replace, digests, rules_files, spec_files
from agents.registry import list_specs, make_agent
from tournaments import gamelog
from yacht_env.config import ConfigError, check_memory
from yacht_env.rules import rules_label
from yacht_env.safe_file import ensure_folder, folder_lock, is_temporary

from .faults import FAULT_EXIT_HELP, add_fault_option, gate, headline
from .options import CommandError, add_common, emit_json, rules_block_from_args, rules_from_args

MAX_GAMES = 10_000_000
LOCK = "evaluate.lock"
OUT_FILES = (gamelog.GAMES, gamelog.EVALUATION_META, LOCK)   # what an --out folder holds
GAME_BYTES = 2 << 10            # memory a game's figures take while they are summarised (measured ~1 KiB)
LOGGED_GAME_BYTES = 16 << 10    # ... with its move log kept for --out (measured ~8 KiB)

def add_parser(sub):
    specs = "; ".join(p for p, _ in list_specs())
    p = sub.add_parser("evaluate", help="solitaire score distribution of one agent",
                       description=f"Play N one-player games and report the score distribution. Agent specs: {specs}. "
                                   f"Exit status: {FAULT_EXIT_HELP}.")
    p.add_argument("agent", metavar="AGENT", help="agent spec, e.g. normal or learned:models/ppo-yacht.pt")
    p.add_argument("--games", type=int, default=1000, help=f"games to play, 1 to {MAX_GAMES:,} (default: 1000)")
    add_common(p, out="write every game to DIR/games.jsonl and the run to DIR/evaluate.json (for yacht analyze)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_fault_option(p)
    p.add_argument("--force", action="store_true",
                   help="with --out: replace the run the folder holds although it is another one (another agent, "
                        "seed or rules, or a model file, bot script or rules file that changed since)")

def run(args) -> int:
    """Nothing is created before the games are played. With --out, the folder is checked before they start
    and locked while the files are written, checked again under the lock (another run may have written
    it meanwhile: it is refused, naming the one that holds the lock or the run the folder holds)."""
    if not 1 <= args.games <= MAX_GAMES:
        raise CommandError(f"--games must be from 1 to {MAX_GAMES:,}, got {args.games}")
    check_memory("command line", "--games", args.games * (LOGGED_GAME_BYTES if args.out else GAME_BYTES),
                 f"{args.games:,} games" + (" with their move logs (--out)" if args.out else ""))
    rules = rules_from_args(args)
    try:
        rules.check_players(1)
    except ValueError as e:
        raise CommandError(f"yacht evaluate plays one-player games: {e} (a tournament plays such tables)") from None
    out = Path(args.out) if args.out else None
    if out is not None and out.exists() and (not out.is_dir() or any(
            p.name not in OUT_FILES and not is_temporary(p.name) for p in out.iterdir())):
        raise CommandError(f"--out {out}: exists and holds other files; give an empty or new folder")
    files = digests(spec_files([args.agent]) + rules_files(args.rules))
    if out is not None:
        check_replace(out / gamelog.EVALUATION_META, _identity(args), files, args.force)
    agent = make_agent(args.agent)
    try:
        check_playable({args.agent: agent}, rules, 1)
    except ConfigError:
        agent.close()
        raise
    return _evaluate(args, rules, out, files, agent)


def _identity(args) -> dict:
    """What makes an --out folder's run the same run (`agents.provenance.check_replace`)."""
    return {"agent": args.agent, "seed": args.seed, "rules": rules_block_from_args(args)}


def _evaluate(args, rules, out, files, agent) -> int:
    before, first = fault_count(agent), getattr(agent, "games", 0) + 1
    try:
        run_ = solitaire(agent, rules, args.games, args.seed, progress=not (args.no_progress or args.json),
                         desc=args.agent, logs=out is not None)
    except HumanQuit as e:
        raise CommandError(f"{args.agent}: {e}; the human agent reads moves from a terminal (or one command per "
                           f"line from a pipe)") from None
    finally:
        agent.close()
    moved = changed(files)
    if moved:      # changed under the run: its games may mix two agents under one name
        raise CommandError(f"{moved[0]} while the games were played; nothing is reported or written: run again")
    faults = recorded_faults(agent, before, first)
    doc = summarize(args.agent, rules, run_)
    doc["rules"] = rules_block_from_args(args)
    doc["seed"] = args.seed
    doc["faults"] = fault_summary(faults)
    doc["fault_gate"] = gate({args.agent: {"games": args.games, "faulted": doc["faults"]["games"],
                                           "kinds": doc["faults"]["by_kind"]}}, args.max_fault_rate)
    doc["files"] = files
    if out is not None:
        ensure_folder(out, "--out folder")
        with folder_lock(out / LOCK, "yacht evaluate"):
            check_replace(out / gamelog.EVALUATION_META, _identity(args), files, args.force)
            _write(out, args, rules, run_, faults, doc)
        doc["out"] = str(out)
    note = fault_note(args.agent, doc["faults"], args.games)
    if note:
        print(f"yacht evaluate: warning: {note}", file=sys.stderr)
    if args.json:
        emit_json(doc)
        return doc["fault_gate"]["exit"]
    _print(doc, args)
    return doc["fault_gate"]["exit"]

def _write(out: Path, args, rules, run_, faults, doc) -> None:
    by_game = {}
    for f in faults:
        by_game.setdefault(f["game"], {"error": f"{f['kind']}: {f['cause']}", "move": f["move"]})
    records = (gamelog.game_record(f"g{i}", 0, i, 0, int(run_["seeds"][i]), [args.agent], [0], [int(run_["totals"][i])],
                                   [1], [run_["boxes"][i].tolist()], [int(run_["upper_bonus"][i])],
                                   [int(run_["extra_bonus"][i])], [by_game.get(i)], run_["logs"][i])
               for i in range(len(run_["totals"])))
    meta = {"agent": args.agent, "games": len(run_["totals"]), "seed": args.seed, "rules": doc["rules"],
            "resolved_rules": rules.to_dict(), "files": doc["files"]}
    try:
        gamelog.write_evaluation(out, records, meta)
    except OSError as e:
        raise CommandError(f"--out {out}: cannot write ({e.strerror})") from None

def _print(doc, args) -> None:
    lo, hi = doc["ci95"]
    q = doc["quantiles"]
    first = headline(doc["fault_gate"])
    if first:
        print(first)
    print(f"{doc['agent']} under {rules_label(doc['rules'])}: {doc['games']} games, seed {args.seed}")
    f = doc["faults"]
    made_of = (f" -- not the bot's own: {f['games']} of {doc['games']} games include fallback moves" if f["count"]
               else "")
    print(f"  mean {doc['mean']:.1f}  (95% CI {lo:.1f}..{hi:.1f})  sd {doc['std']:.1f}  median {doc['median']:.0f}"
          + made_of)
    print("  quantiles " + "  ".join(f"{k} {v:.0f}" for k, v in q.items()))
    print(f"  upper bonus in {100 * doc['p_upper_bonus']:.1f}% of games")
    lines = {**doc["per_box_mean"], "upper bonus": doc["upper_bonus_mean"],
             "extra-Yacht bonus": doc["extra_bonus_mean"]}
    width = max(len(k) for k in lines)
    for box, mean in lines.items():
        print(f"  {box:<{width}}  {mean:6.2f}")
    print(f"  {'total':<{width}}  {doc['mean']:6.2f}" + (" (with fallback moves)" if f["count"] else ""))
    if doc["faults"]["count"]:
        print(f"  faults: {doc['faults']['count']} in {doc['faults']['games']} games (fallback moves counted)")
    if "out" in doc:
        print(f"  wrote {doc['out']}/games.jsonl and {doc['out']}/evaluate.json")
