"""Saved rolls (`saved_rolls`: unused rolls carried to a sheet's later turns, up to a cap), checked against a
bookkeeping written here: what each turn may roll, what scoring leaves saved, one game at a time and batched,
and the dice keys of long turns."""
import numpy as np
import pytest

from yacht_env import Game, IllegalMove
from yacht_env.core.dice_source import SeededDice, game_seeds
from yacht_env.core.engine import ROLL_OFF, ROLLS_USED, State
from yacht_env.rules import RuleError, load

HOLDS = 31


class Ledger:
    """The saved-rolls rule from its text: a turn rolls `rolls_per_turn` times plus its sheet's saved rolls;
    scoring leaves the sheet the rolls the turn did not use, at most the cap."""

    def __init__(self, rolls_per_turn, cap, sheets):
        self.per_turn, self.cap = rolls_per_turn, cap
        self.saved = [0] * sheets
        self.used = 0

    def budget(self, sheet):
        return self.per_turn + self.saved[sheet]

    def rolled(self):
        self.used += 1

    def scored(self, sheet):
        self.saved[sheet] = min(self.cap, self.budget(sheet) - self.used)
        self.used = 0


def play_random(game, rng, ledger, save_bias):
    """Play `game` to its end with random legal moves (scoring early with probability `save_bias` per
    decision), checking every mask and count against `ledger`; returns the largest budget seen."""
    most = 0
    while not game.is_over:
        sheet = game.current_sheet
        assert game.rolls_left == ledger.budget(sheet) and game.saved_rolls == ledger.saved[sheet]
        most = max(most, ledger.budget(sheet))
        game.roll()
        ledger.rolled()
        while True:
            mask = game.legal_mask()
            can_roll = ledger.used < ledger.budget(sheet)
            assert bool(mask[:HOLDS].all()) == can_roll and bool(mask[:HOLDS].any()) == can_roll
            assert game.rolls_left == ledger.budget(sheet) - ledger.used
            boxes = np.flatnonzero(mask[HOLDS:]) + HOLDS
            if can_roll and rng.random() > save_bias:
                game.apply(int(rng.integers(HOLDS)))
                ledger.rolled()
                continue
            if not can_roll:
                with pytest.raises(IllegalMove, match=r"no rolls left \(limit 3 per turn"):
                    game.roll(hold=1)
            game.apply(int(rng.choice(boxes)))
            ledger.scored(sheet)
            break
    return most


@pytest.mark.parametrize("cap,players,seed", [(1, 1, 0), (4, 2, 3), (40, 3, 9)])
def test_games_keep_the_books_of_saved_rolls(cap, players, seed):
    rules = load("yatzy", saved_rolls=cap)
    game = Game(rules, num_players=players, seed=seed)
    most = play_random(game, np.random.default_rng(seed), Ledger(3, cap, players), save_bias=0.6)
    assert most > 3 and all(s <= cap for s in (game.saved_rolls_of(k) for k in range(players)))
    assert rules.to_dict()["saved_rolls"] == cap and load(rules.to_dict()).saved_rolls == cap


def test_without_saved_rolls_every_turn_has_its_three():
    game = Game("yatzy", seed=4)
    most = play_random(game, np.random.default_rng(4), Ledger(3, 0, 1), save_bias=0.9)
    assert most == 3 and game.saved_rolls == 0 and "saved_rolls" not in load("yatzy").to_dict()


def test_a_long_turn_keys_its_dice_past_the_roll_off_number():
    """Roll k of a turn draws from key k, past the roll-off dice's own key one more."""
    rules = load("yacht", saved_rolls=40, rolls_per_turn=1)
    game = Game(rules, seed=77)
    game.set_sheet(0, [-1] * 13, saved=12)
    assert game.rolls_left == 13
    dice = SeededDice(77)
    game.roll()
    for used in range(1, 13):
        held = game.dice[0]
        key = used if used < ROLL_OFF else used + 1
        assert game.roll(hold=1) == tuple(sorted([held] + dice.draw(0, 0, key, 4)))
    assert game.rolls_left == 0
    game.score("chance")
    assert game.saved_rolls == 0 and game.rolls_left == 1


def test_batched_tables_play_the_games_of_single_games():
    rules, n = load("yatzy", saved_rolls=3), 8
    seeds = game_seeds(21, last=np.arange(n))
    state = State(rules, n, 2)
    state.reset(seeds)
    games = [Game(rules, 2, seed=int(s)) for s in seeds]
    rng = np.random.default_rng(2)
    for _ in range(10_000):
        rows = np.flatnonzero(~state.over())
        if not len(rows):
            break
        assert list(state.rolls_left(rows)) == [games[i].rolls_left for i in rows]
        starting = rows[state.ints[rows, ROLLS_USED] == 0]
        state.roll(starting)
        for i in starting:
            games[i].roll()
        masks = state.masks(rows)
        acts = np.array([int(rng.choice(np.flatnonzero(m[HOLDS:])) + HOLDS) if rng.random() < 0.4 or not m[0]
                         else int(rng.integers(HOLDS)) for m in masks])
        for j, i in enumerate(rows):
            assert (masks[j] == games[i].legal_mask()).all() and tuple(state.dice[i]) == games[i].dice
            games[i].apply(int(acts[j]))
        assert (state.play(rows, acts) >= 0).all()
    assert all(g.is_over for g in games)
    assert [list(t) for t in state.totals] == [g.sheet_totals() for g in games]
    assert list(state.saved(np.arange(n))) == [g.saved_rolls for g in games]


def test_undo_gives_back_the_saved_rolls_and_positions_check_them():
    game = Game(load("yatzy", saved_rolls=2), seed=1)
    game.roll()
    game.score("chance")
    assert game.saved_rolls == 2 and game.rolls_left == 5
    game.undo()
    assert game.saved_rolls == 0 and game.rolls_left == 2
    with pytest.raises(ValueError, match=r"saved rolls must be 0..2"):
        game.set_sheet(0, [-1] * 15, saved=3)
    state = State(load("yatzy", saved_rolls=2), 1)
    state.reset([5])
    state.set_scores(0, 0, [-1] * 15, saved=2)
    state.put_rolls([0], [0], [5])
    assert list(state.rolls_left([0])) == [0]
    with pytest.raises(ValueError, match=r"roll numbers 1..5"):
        state.put_rolls([0], [0], [6])


@pytest.mark.parametrize("value,allowed", [(-1, "0"), (41, "40"), ("two", "whole number"), (2.5, "whole number"),
                                           (True, "whole number")])
def test_bad_saved_rolls_are_refused_naming_the_key(value, allowed):
    with pytest.raises(RuleError, match="saved_rolls") as e:
        load("yatzy", saved_rolls=value)
    assert allowed in str(e.value)
