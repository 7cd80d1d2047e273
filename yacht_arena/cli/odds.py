"""`yacht odds`: seed 000's odds table and its two turn facts, computed exactly; under saved rolls
(`--rolls N`) also for the longer turns the saved rolls allow."""
from yacht_env.core.odds import chance_only_points, chase_one_number_dice, combination_odds

from .options import CommandError, add_common, emit_json, rules_block_from_args, rules_from_args

LABELS = {"three_of_a_kind": "Three of a Kind or better", "four_of_a_kind": "Four of a Kind or better",
          "five_of_a_kind": "Five of a Kind or better"}


def add_parser(sub):
    p = sub.add_parser("odds", help="exact odds of each combination by the 1st/2nd/3rd roll")
    p.add_argument("--rolls", type=int, metavar="N", help="odds by each roll up to the N-th (default: the rules' "
                   "rolls per turn; more only under saved rolls, up to rolls per turn + saved_rolls)")
    add_common(p, seed=False)


def _pct(p: float) -> str:
    return f"{100 * p:.2f}%" if p < 0.01 else f"{100 * p:.1f}%"


def run(args):
    rules = rules_from_args(args)
    n, most = rules.rolls_per_turn if args.rolls is None else args.rolls, rules.most_rolls
    if not 1 <= n <= most:
        saved = f"{rules.rolls_per_turn} a turn and {rules.saved_rolls} saved" if rules.saved_rolls else \
            f"{rules.rolls_per_turn} a turn, none saved"
        raise CommandError(f"--rolls: must be 1 to {most} under {rules.name!r} ({saved}), got {n}")
    odds = combination_odds(rules, n)
    dice = chase_one_number_dice(rules, rolls=n)
    chance = chance_only_points(rules, rolls=n)
    if args.json:
        emit_json({"rules": rules_block_from_args(args), "rolls": n, "odds": odds, "chase_one_number_dice": dice,
                   "chance_only_points": chance})
        return 0
    heads = ["First roll"] + [f"By roll {k}" for k in range(2, n + 1)]
    print(f"Odds under {rules.name!r}, holding optimally for one combination:")
    print(f"{'Combination':<28}" + "".join(f"{h:>12}" for h in heads))
    for box, ps in odds.items():
        label = LABELS.get(box, box.replace("_", " ").title())
        print(f"{label:<28}" + "".join(f"{_pct(p):>12}" for p in ps))
    turn = "A whole turn" if n == rules.rolls_per_turn else f"A turn of {n} rolls"
    print(f"{turn} chasing one number ends with {dice:.2f} dice showing it on average.")
    print(f"{turn} played only for Chance scores {chance:.2f} points on average.")
    if rules.saved_rolls and n < most:
        print(f"With saved rolls a turn may roll up to {most} times: add --rolls {most} to see those turns.")
    return 0
