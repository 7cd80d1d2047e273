"""`yacht odds`: seed 000's odds table and its two turn facts, computed exactly."""
from yacht_env.core.odds import chance_only_points, chase_one_number_dice, combination_odds

from .options import add_common, emit_json, rules_block_from_args, rules_from_args

LABELS = {"three_of_a_kind": "Three of a Kind or better", "four_of_a_kind": "Four of a Kind or better",
          "five_of_a_kind": "Five of a Kind or better"}


def add_parser(sub):
    p = sub.add_parser("odds", help="exact odds of each combination by the 1st/2nd/3rd roll")
    add_common(p, seed=False)


def _pct(p: float) -> str:
    return f"{100 * p:.2f}%" if p < 0.01 else f"{100 * p:.1f}%"


def run(args):
    rules = rules_from_args(args)
    odds = combination_odds(rules)
    dice = chase_one_number_dice(rules)
    chance = chance_only_points(rules)
    if args.json:
        emit_json({"rules": rules_block_from_args(args), "odds": odds, "chase_one_number_dice": dice,
                   "chance_only_points": chance})
        return 0
    n = rules.rolls_per_turn
    heads = ["First roll"] + [f"By roll {k}" for k in range(2, n + 1)]
    print(f"Odds under {rules.name!r}, holding optimally for one combination:")
    print(f"{'Combination':<28}" + "".join(f"{h:>12}" for h in heads))
    for box, ps in odds.items():
        label = LABELS.get(box, box.replace("_", " ").title())
        print(f"{label:<28}" + "".join(f"{_pct(p):>12}" for p in ps))
    print(f"A whole turn chasing one number ends with {dice:.2f} dice showing it on average.")
    print(f"A turn played only for Chance scores {chance:.2f} points on average.")
    return 0
