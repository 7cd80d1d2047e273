"""Generalisation across rules: train one network on some rule knobs, test it on held-out ones, against `strong`.

    python scripts/generalise.py --out runs/generalise                       # the defaults below
    python scripts/generalise.py --out runs/generalise --train "" --train rolls_per_turn=2 \\
        --test upper_bonus=false --test rolls_per_turn=4 --steps 1000000 --games 2000

Each `--train` / `--test` is a rule set: the `--rules` preset with `key=value[,key=value]` knobs (`""`: the
preset as it is). For each kind of model (`--kinds`: `knobs`, the policy sees the rule knobs, the env option
`rule_obs="knobs"`; `plain`, it does not) the script trains one model with `yacht train` over the `--train`
rule sets (config keys `rule_variants` and `rule_knobs`, envs shared equally; `--warm-start` starts both
from a model file, `models/ppo-yacht.pt` by default), one training process at a time, on `--torch-threads`
threads. Then every model (and each `--also` agent spec, e.g. the shipped model) plays `--games` fresh
solitaire games under every rule set, and `strong` (the solver's exact optimum for each rule set: `yacht
solve --rules R --set ...` first, a minute or less each) plays the same dice. The table gives, per rule
set, strong's mean and each model's mean and its difference from strong on the same dice (paired), with
normal 95% intervals. A model plays rule sets it was not trained on as `learned?insist=1:PATH`.

Writes to `--out DIR`: `configs/KIND.yaml` and the runs (`KIND/`), `results.csv` (one row per rule set and
agent) and `results.json` (the same with the command and the settings), and prints the table and where.
"""
import argparse
import csv
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


from agents.training.threads import set_torch_threads  # first: the OpenMP settings come before torch loads

from agents.evaluation import solitaire
from agents.model_file import read_model
from agents.registry import make_agent
from agents.stats import mean_ci
from agents.training.config import load_config
from agents.training.run import train
from yacht_env.config import ConfigError
from yacht_env.core.actions import num_actions
from yacht_env.envs.obs import obs_size
from yacht_env.rules import RuleError, load, parse_sets

TRAIN = ("", "rolls_per_turn=2")
TEST = ("upper_bonus=false", "rolls_per_turn=4", "extra_yacht_bonus=false")
WARM = "models/ppo-yacht.pt"
EVAL_SEED = 7_000_000      # fresh dice: neither the training streams nor `yacht train`'s evaluation seeds


def knobs_of(spec: str) -> dict:
    """`key=value[,key=value]` -> rule overrides ({} for "")."""
    return parse_sets([p for p in spec.split(",") if p.strip()])


def label(spec: str) -> str:
    return spec or "as the preset"


def check_inputs(args, also: dict) -> None:
    """Every rule set loads and has the box layout of the first (ValueError naming it otherwise), the warm-start
    file is a model file, and every `--also` spec makes an agent that plays every rule set: all before anything
    trains."""
    sets = args.train + args.test
    first = load(args.rules, **knobs_of(sets[0]))
    for spec in sets:
        rules = load(args.rules, **knobs_of(spec))
        if (obs_size(rules), num_actions(rules)) != (obs_size(first), num_actions(first)):
            raise ValueError(f"rule set {label(spec)!r} has another box layout than {label(sets[0])!r} (observation "
                             f"{obs_size(rules)} and {num_actions(rules)} actions, not {obs_size(first)} and "
                             f"{num_actions(first)}); one network plays rule sets of one layout")
    if args.warm_start:
        read_model(args.warm_start)
    for spec in also.values():
        agent = make_agent(spec)
        try:
            for rules_spec in sets:
                agent.prepare(load(args.rules, **knobs_of(rules_spec)), 1)
        finally:
            agent.close()


def config_of(args, kind: str) -> dict:
    """The `yacht train` config of one model kind (a plain mapping, written as YAML)."""
    return {
        "name": kind, "rules": args.rules, "seed": args.seed, "total_timesteps": args.steps, "n_envs": args.n_envs,
        "reward_scale": 0.02, "distinct_holds": True, "dice_onehot": True, "rule_knobs": kind == "knobs",
        "rule_variants": [knobs_of(s) for s in args.train],
        "warm_start": str(Path(args.warm_start).resolve()) if args.warm_start else None,
        "ppo": {"learning_rate": args.learning_rate, "n_steps": 32, "batch_size": 1024, "n_epochs": 4},
        "policy": {"pi": [256, 256], "vf": [256, 256], "activation": "relu"},
        "eval_every": args.steps, "eval_games": 500, "checkpoint_every": args.steps,
        "torch_threads": args.torch_threads, "out": str(Path(args.out).resolve() / "{name}")}


def train_models(args) -> dict:
    """{kind: model file}, training each kind in turn (an existing final.pt is kept, with --reuse)."""
    import yaml    # PyYAML: only to write the configs
    models = {}
    for kind in args.kinds:
        final = Path(args.out) / kind / "final.pt"
        if args.reuse and final.is_file():
            models[kind] = final
            continue
        path = Path(args.out) / "configs" / f"{kind}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(yaml.safe_dump(config_of(args, kind), sort_keys=False))
        t0 = time.time()
        train(load_config(path), progress=not args.quiet, force=True)
        print(f"trained {kind} in {time.time() - t0:.0f} s: {final}", file=sys.stderr)
        models[kind] = final
    return models


def measure(args, agents: dict) -> list[dict]:
    """One row per rule set and agent: means and paired differences from `strong` on the same dice."""
    rows = []
    for split, specs in (("train", args.train), ("held out", args.test)):
        for spec in specs:
            rules = load(args.rules, **knobs_of(spec))
            strong = solitaire(make_agent("strong"), rules, args.games, EVAL_SEED, progress=False)["totals"]
            s_mean, s_ci, _ = mean_ci(strong)
            rows.append({"rules": label(spec), "split": split, "agent": "strong", "games": args.games,
                         "mean": s_mean, "ci_lo": s_ci[0], "ci_hi": s_ci[1], "minus_strong": 0.0,
                         "minus_lo": 0.0, "minus_hi": 0.0})
            for name, spec_agent in agents.items():
                totals = solitaire(make_agent(spec_agent), rules, args.games, EVAL_SEED, progress=False)["totals"]
                mean, ci, _ = mean_ci(totals)
                d, d_ci, _ = mean_ci(totals - strong)
                rows.append({"rules": label(spec), "split": split, "agent": name, "games": args.games,
                             "mean": mean, "ci_lo": ci[0], "ci_hi": ci[1], "minus_strong": d,
                             "minus_lo": d_ci[0], "minus_hi": d_ci[1]})
    return [{k: round(v, 2) if isinstance(v, float) else v for k, v in r.items()} for r in rows]


def table(rows: list[dict], names: list[str]) -> str:
    """The rows as a Markdown table: one line per rule set, strong's mean, then per agent mean and minus strong."""
    head = "| rules | split | strong | " + " | ".join(f"{n} | {n} − strong" for n in names) + " |"
    lines = [head, "|" + "---|" * (3 + 2 * len(names))]
    by = {(r["rules"], r["agent"]): r for r in rows}
    for r in rows:
        if r["agent"] != "strong":
            continue
        cells = [r["rules"], r["split"], f"{r['mean']:.1f} [{r['ci_lo']:.1f}, {r['ci_hi']:.1f}]"]
        for n in names:
            a = by[(r["rules"], n)]
            cells += [f"{a['mean']:.1f} [{a['ci_lo']:.1f}, {a['ci_hi']:.1f}]",
                      f"{a['minus_strong']:+.1f} [{a['minus_lo']:+.1f}, {a['minus_hi']:+.1f}]"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, help="folder for the configs, runs, results.csv and results.json")
    p.add_argument("--rules", default="yacht", help="the preset the knobs change (default: yacht)")
    p.add_argument("--train", action="append", help=f"a training rule set, key=value[,key=value] (repeatable; "
                                                    f"default: {' and '.join(repr(s) for s in TRAIN)})")
    p.add_argument("--test", action="append", help=f"a held-out rule set (repeatable; default: {', '.join(TEST)})")
    p.add_argument("--kinds", default="knobs,plain", help="models to train: knobs, plain or both (default)")
    p.add_argument("--also", action="append", default=[], metavar="NAME=SPEC",
                   help="another agent to measure, e.g. shipped=learned?insist=1:models/ppo-yacht.pt")
    p.add_argument("--steps", type=int, default=1_000_000, help="env steps per model (default 1,000,000)")
    p.add_argument("--n-envs", type=int, default=256)
    p.add_argument("--learning-rate", type=float, default=1e-4)
    p.add_argument("--warm-start", default=WARM, help=f"model file both start from ('' for none; default {WARM})")
    p.add_argument("--games", type=int, default=2000, help="games per rule set and agent (default 2000)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--torch-threads", type=int, default=1)
    p.add_argument("--reuse", action="store_true", help="keep a kind's final.pt already in --out")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    args = p.parse_args(argv)
    args.train = args.train if args.train is not None else list(TRAIN)
    args.test = args.test if args.test is not None else list(TEST)
    args.kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    try:
        if not args.kinds or any(k not in ("knobs", "plain") for k in args.kinds):
            raise ValueError(f"--kinds: knobs, plain or both, got {','.join(args.kinds)!r}")
        if not 1 <= args.games <= 1_000_000:
            raise ValueError(f"--games must be 1 .. 1,000,000, got {args.games}")
        also = {}
        for item in args.also:
            name, sep, spec = item.partition("=")
            if not sep or not name or name in ("strong", *args.kinds):
                raise ValueError(f"--also takes NAME=SPEC with a new name, got {item!r}")
            also[name] = spec
        check_inputs(args, also)                      # every input is checked before anything trains
        set_torch_threads(args.torch_threads)
        models = train_models(args)
        agents = {k: f"learned?insist=1:{path}" for k, path in models.items()} | also
        rows = measure(args, agents)
    except (ConfigError, RuleError, ValueError, OSError) as e:
        print(f"generalise: error: {e}", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "results.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    settings = {k: v for k, v in vars(args).items() if k != "also"} | {"also": also, "eval_seed": EVAL_SEED}
    (out / "results.json").write_text(json.dumps({"command": " ".join(sys.argv), "settings": settings,
                                                  "rows": rows}, indent=2) + "\n")
    print(table(rows, list(agents)))
    print(f"wrote {out / 'results.csv'} and {out / 'results.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
