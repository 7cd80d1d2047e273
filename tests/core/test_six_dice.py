"""The engine with six dice (Maxi Yatzy): 63 hold actions then the boxes, legal masks, scores and dice streams,
checked against rules written here from the dice alone, one game at a time and batched."""
import numpy as np
import pytest

from tests.rules.golden_scoring import maxi
from yacht_env import Game, IllegalMove
from yacht_env.core import actions
from yacht_env.core.dice import dice_tables
from yacht_env.core.dice_source import SeededDice, game_seeds
from yacht_env.core.engine import ROLLS_USED, State
from yacht_env.core.odds import chance_only_points, combination_odds
from yacht_env.rules import load

HOLDS = 63          # hold patterns 0..62 of six dice; 63 would hold all six: score instead


def expected_mask(game) -> np.ndarray:
    """The legal actions of a Maxi Yatzy position from the rules alone (no joker): every hold while rolls are
    left, every open box of the sheet to move."""
    out = np.zeros(HOLDS + len(game.rules.boxes), np.int8)
    out[:HOLDS] = game.rolls_used < game.rules.rolls_per_turn
    out[HOLDS:] = game.sheets[game.current_sheet].scores[0] < 0
    return out


@pytest.mark.parametrize("seed", [0, 7, 2**40 + 3])
def test_a_random_maxi_game_to_the_end(seed):
    rules = load("maxi")
    game = Game(rules, num_players=2, seed=seed)
    rng = np.random.default_rng(seed)
    assert game.num_actions == HOLDS + 20 and actions.num_holds(rules) == HOLDS
    bonus = {0: 0, 1: 0}
    while not game.is_over:
        assert game.legal_mask().sum() == 0 and game.phase == "roll"
        seat, sheet = game.current_seat, game.current_sheet
        dice = game.roll()
        while True:
            assert len(dice) == 6 and list(dice) == sorted(dice) and all(1 <= d <= 6 for d in dice)
            mask = game.legal_mask()
            assert (mask == expected_mask(game)).all(), (dice, mask)
            assert game.preview() == {(0, b): p for b, p in maxi(list(dice)).items()
                                      if game.sheets[sheet].scores[0, rules.boxes.index(b)] < 0}
            action = int(rng.choice(np.flatnonzero(mask)))
            if action < HOLDS:
                kept = [dice[i] for i in range(6) if action >> i & 1]
                game.apply(action)
                after = list(game.dice)
                for d in kept:                                    # the held dice stay
                    after.remove(d)
                dice = game.dice
                continue
            box = rules.boxes[action - HOLDS]
            upper_before = int(game.sheets[sheet].upper[0])
            points = maxi(list(dice))[box]
            paid = 100 if rules.box(box).upper and upper_before < 84 <= upper_before + points else 0
            bonus[sheet] += paid
            assert game.score(box) == points + paid
            assert game.current_seat != seat or game.is_over
            break
    for s, sheet in enumerate(game.sheets):
        assert (sheet.scores >= 0).all() and sheet.total == int(sheet.scores.sum()) + bonus[s]
    assert game.turn == 40 and game.winners()


def test_holds_and_their_messages():
    game = Game("maxi", seed=1)
    with pytest.raises(IllegalMove, match="rolls all six dice"):
        game.roll(hold=[0])
    game.roll()
    with pytest.raises(IllegalMove, match=r"hold pattern 63 is not 0..62 \(holding all six dice means scoring\)"):
        game.roll(hold=63)
    with pytest.raises(IllegalMove, match="die positions 0..5"):
        game.roll(hold=[6])
    held = game.dice[5]
    assert game.roll(hold=[5])[-1] >= held and held in game.dice
    with pytest.raises(IllegalMove, match="is not in 0..82"):
        game.apply(83)


def test_the_dice_streams_of_five_and_six_dice_agree():
    """A die is keyed by (seed, sheet, turn, roll, k): six dice are the five dice's stream and one more die."""
    for seed in range(20):
        five, six = Game("yatzy", seed=seed), Game("maxi", seed=seed)
        drawn = SeededDice(seed).draw(0, 0, 0, 6)
        assert five.roll() == tuple(sorted(drawn[:5])) and six.roll() == tuple(sorted(drawn))
        kept5, kept6 = [five.dice[i] for i in (0, 2, 4)], [six.dice[i] for i in (0, 2, 4)]
        fresh = SeededDice(seed).draw(0, 0, 1, 3)
        assert five.roll(hold=0b10101) == tuple(sorted(kept5 + fresh[:2]))
        assert six.roll(hold=0b10101) == tuple(sorted(kept6 + fresh))


def test_batched_tables_play_the_games_of_single_games():
    rules, n = load("maxi"), 6
    seeds = game_seeds(11, last=np.arange(n))
    state = State(rules, n, 2)
    state.reset(seeds)
    games = [Game(rules, 2, seed=int(s)) for s in seeds]
    rng = np.random.default_rng(5)
    for _ in range(10_000):
        rows = np.flatnonzero(~state.over())
        if not len(rows):
            break
        starting = rows[state.ints[rows, ROLLS_USED] == 0]
        state.roll(starting)
        for i in starting:
            games[i].roll()
        masks = state.masks(rows)
        acts = np.array([int(rng.choice(np.flatnonzero(m))) for m in masks])
        for j, i in enumerate(rows):
            assert (masks[j] == games[i].legal_mask()).all() and tuple(state.dice[i]) == games[i].dice
            games[i].apply(int(acts[j]))
        assert (state.play(rows, acts) >= 0).all()
    assert all(g.is_over for g in games)
    assert [list(t) for t in state.totals] == [g.sheet_totals() for g in games]


def test_six_dice_positions_names_and_odds():
    rules = load("maxi")
    d = dice_tables(6)
    state = State(rules, 1, 1)
    state.reset([3])
    r = d.index([1, 2, 3, 4, 5, 6])
    state.put_rolls([0], [r], [1])
    assert tuple(state.dice[0]) == (1, 2, 3, 4, 5, 6)
    assert state.preview[0, 0, rules.boxes.index("full_straight")] == 21
    with pytest.raises(ValueError, match="rolls must be 0..461"):
        state.put_rolls([0], [462], [1])
    assert actions.action_name(rules, 0b100001, roll=r) == "hold 1 6"
    assert actions.action_name(rules, HOLDS + 19) == "score maxi_yatzy"
    assert actions.decode(rules, 62) == ("hold", 62) and actions.decode(rules, 63) == ("score", 0, 0)
    assert actions.legal_summary(rules, state.masks([0])[0]).startswith("0-62 (re-roll holding bit-marked dice), ")
    assert actions.held_positions(0b100001) == [0, 5]
    assert chance_only_points(load("maxi", rolls_per_turn=1)) == pytest.approx(21.0)
    odds = combination_odds(rules)
    assert odds["maxi_yatzy"][0] == pytest.approx(6 / 6 ** 6)
    assert odds["full_straight"][0] == pytest.approx(720 / 6 ** 6)
    assert all(a <= b for p in odds.values() for a, b in zip(p, p[1:]))
