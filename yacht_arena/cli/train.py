"""`yacht train CONFIG`: train a MaskablePPO agent from a YAML config (see configs/train/)."""
from dataclasses import replace

from yacht_env.rules import load, parse_sets, rules_block, rules_hash
from yacht_env.safe_file import check_folder

from agents.training.config import MAX_EVAL_GAMES, load_config, split_sets
from agents.model_file import loadable_network
from agents.training.errors import ModelFileError

from .options import CommandError, add_common, emit_json


def add_parser(sub) -> None:
    p = sub.add_parser("train", help="train a MaskablePPO agent from a config (configs/train/*.yaml)",
                       description="Train a MaskablePPO agent on the batched Yacht env, alone or at one seat of a "
                       "table against opponents (config keys num_players, opponents, reward, seat). Writes "
                       "TensorBoard logs, checkpoints, a learning curve and play-only model files (best.pt, "
                       "final.pt) to the config's out folder; `learned:OUT/best.pt` plays the result. With --rules "
                       "or a rule key in --set the folder is OUT-<rules hash>, so a run under other rules never "
                       "overwrites the config's own. --set KEY=VALUE also sets any training-config key "
                       "(--set eval_every=20000 --set ppo.n_steps=16 --set device=cuda).")
    p.add_argument("config", metavar="CONFIG", help="training config (YAML), e.g. configs/train/ppo.yaml")
    p.add_argument("--resume", metavar="CHECKPOINT", default=None,
                   help="continue from a checkpoint (OUT/last.pt or OUT/checkpoints/step_N.pt)")
    p.add_argument("--timesteps", type=int, default=None, metavar="N", help="replace total_timesteps")
    p.add_argument("--evaluate", metavar="MODEL", default=None,
                   help="do not train: evaluate a model file on the config's rules and evaluation seeds")
    p.add_argument("--eval-seed", type=int, default=None, metavar="N",
                   help="replace eval_seed: evaluation game j deals the dice of stream N + j")
    p.add_argument("--games", type=int, default=None, metavar="N",
                   help="with --evaluate: number of games (default: the config's eval_games)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--force", action="store_true",
                   help="start afresh in a folder that holds another run (its curve and best score are replaced), "
                        "or resume although an opponent's or the warm start's model file changed")
    add_common(p, config=True, out="replace the config's out folder",
               set_help="set a training-config key (eval_every=50000, n_envs=32, device=cuda, ppo.n_steps=16, "
                        "league.current=0.5, policy.pi=[64,64]: checked as the config's keys are), else a rule key, "
                        "added to the config's set: (joker=free); repeatable")


def run(args) -> int:
    settings, rule_sets = split_sets(parse_sets(args.overrides))
    changes = {"total_timesteps": args.timesteps, "seed": args.seed, "out": args.out, "eval_seed": args.eval_seed,
               "rules": args.rules, "set": rule_sets or None}
    cfg = load_config(args.config, settings=settings, **changes)
    if (args.rules is not None or rule_sets) and args.out is None:
        cfg = replace(cfg, out=f"{cfg.out}-{rules_hash(cfg.ruleset)[:8]}")
    if args.games is not None and (args.evaluate is None or not 1 <= args.games <= MAX_EVAL_GAMES):
        raise CommandError(f"--games needs --evaluate and a whole number from 1 to {MAX_EVAL_GAMES:,}")
    if args.evaluate:
        result = _evaluate(cfg, args.evaluate, args.games or cfg.eval_games)
        wrote = None                                     # an evaluation writes no files
    else:
        too_big = loadable_network(cfg.ruleset, cfg.to_dict())
        if too_big:                                         # every network trained is one `learned:` loads
            raise CommandError(f"{args.config}: policy: {too_big}; make the layers (policy.pi, policy.vf) smaller")
        check_folder(cfg.out_dir, "out folder")           # one line, before anything is built or written
        result = _train(cfg, args)
        wrote = str(cfg.out_dir)
    if args.json:
        emit_json({**result.summary(), "rules": rules_block(cfg.ruleset, cfg.set), "out": wrote})
    else:
        print(result.line())
        print(f"wrote the run to {wrote}/ (best.pt, final.pt, last.pt, curve.png, run.json, tb/)" if wrote
              else "wrote no files")
    return 0


def _train(cfg, args):
    if cfg.algo == "bc":
        if args.resume:
            raise CommandError("--resume works with algo 'ppo' only; a bc run is short: run it again")
        from agents.training.imitate import imitate   # torch (the rl extra): only when this command runs
        return imitate(cfg, progress=not args.no_progress, force=args.force).evaluation
    from agents.training.run import train   # torch (the rl extra): only when this command runs
    return train(cfg, resume=args.resume, progress=not args.no_progress, force=args.force).evaluation


def _evaluate(cfg, path, games: int):
    # torch (the rl extra): only when this command runs
    from agents.training.checkpoint import load_checkpoint
    from agents.training.evaluate import evaluate_model
    doc = load_checkpoint(path)
    rules = cfg.ruleset
    if load(doc["rules"]) != rules:
        raise ModelFileError(f"{path} was trained on rules {doc['rules']['name']!r}, not on the config's "
                             f"{rules.name!r} (with its overrides)")
    return evaluate_model(doc, rules, games, cfg.eval_seed)
