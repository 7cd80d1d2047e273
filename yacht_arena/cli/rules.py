"""`yacht rules`: list the presets, or show one rule set after overrides."""
from yacht_env.rules import presets

from .options import add_common, emit_json, rules_block_from_args, rules_from_args


def add_parser(sub):
    p = sub.add_parser("rules", help="list rule presets or show one (with --rules/--set)")
    add_common(p, seed=False)
    p.add_argument("--list", action="store_true", help="list the preset names")


def run(args):
    if args.list:
        if args.json:
            emit_json({"presets": presets()})
        else:
            print("\n".join(presets()))
        return 0
    rules = rules_from_args(args)
    doc = rules.to_dict()
    if args.json:
        emit_json({**doc, "rules": rules_block_from_args(args)})
        return 0
    print(f"{rules.name}: {rules.description}")
    for b in rules.boxes_spec:
        what = f"face {b.face}" if b.upper else f"{b.kind} -> {b.points}"
        print(f"  {b.id:<16} {what}")
    for k in ("upper_bonus", "extra_yacht_bonus", "joker", "rolls_per_turn", "columns", "teams", "tiebreak",
              "players"):
        print(f"  {k}: {doc[k]}")
    if rules.forced_order:
        print("  forced_order: True (boxes filled top to bottom)")
    if rules.saved_rolls:
        print(f"  saved_rolls: {rules.saved_rolls} (unused rolls carried to later turns, at most this many)")
    return 0
