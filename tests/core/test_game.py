"""The game model: turn flow, illegal moves, undo, seats, teams, columns, ties."""
import numpy as np
import pytest

from yacht_env import Game, IllegalMove
from yacht_env.core.dice_source import ScriptedDice, SeededDice


def snapshot(g):
    return (g.turn, g.phase, g.dice, g.rolls_used, len(g.log),
            [(s.scores.tolist(), s.upper.tolist(), s.upper_bonus.tolist(), s.extra_bonus.tolist()) for s in g.sheets])


def first_legal(g):
    return int(np.flatnonzero(g.legal_mask())[0])


def test_turn_flow_and_roll_limit():
    g = Game("yacht", 1, seed=1)
    assert g.phase == "roll" and g.legal_mask().sum() == 0
    g.roll()
    assert len(g.dice) == 5 and list(g.dice) == sorted(g.dice) and g.rolls_left == 2
    g.roll(hold=[0, 1])
    g.roll(hold=0b111)
    assert g.rolls_left == 0 and g.legal_mask()[:31].sum() == 0
    with pytest.raises(IllegalMove, match="no rolls left .*limit 3"):
        g.roll()
    g.score("chance")
    assert g.phase == "roll" and g.turn == 1


@pytest.mark.parametrize("move,message", [
    (lambda g: g.score("chance"), "roll the dice first"),
    (lambda g: g.roll(hold=[0]), "first roll of a turn rolls all five"),
    (lambda g: g.undo(), "nothing to undo"),
])
def test_illegal_at_turn_start(move, message):
    g = Game("yacht", 1, seed=1)
    before = snapshot(g)
    with pytest.raises(IllegalMove, match=message):
        move(g)
    assert snapshot(g) == before


@pytest.mark.parametrize("move,message", [
    (lambda g: g.score("nope"), "no box 'nope'.*boxes: ones"),
    (lambda g: g.score(99), "box index 99"),
    (lambda g: g.score("chance", column=1), "column 1"),
    (lambda g: g.roll(hold=31), "holding all five dice means scoring"),
    (lambda g: g.apply(500), "action 500 is not in 0..43"),
    (lambda g: g.score("ones"), "'ones' is already filled; legal boxes:"),
])
def test_illegal_mid_turn_leaves_state(move, message):
    g = Game("yacht", 1, seed=2)
    g.roll()
    g.score("ones")
    g.roll()
    before = snapshot(g)
    with pytest.raises(IllegalMove, match=message):
        move(g)
    assert snapshot(g) == before


def test_undo_gives_same_dice_back_until_next_roll():
    g = Game("yacht", 2, seed=3)
    g.roll()
    dice, before = g.dice, snapshot(g)
    g.score("chance")
    g.undo()
    assert g.dice == dice and snapshot(g) == before
    g.score("ones")
    g.roll()  # the next person rolls
    with pytest.raises(IllegalMove, match="nothing to undo"):
        g.undo()


def test_same_seed_same_game_and_dice_shared_by_holds():
    a, b = Game("yacht", 2, seed=11), Game("yacht", 2, seed=11)
    for g in (a, b):
        g.roll()
        g.roll(hold=0b00011)
    assert a.dice == b.dice
    assert SeededDice(5).draw(0, 3, 1, 4) == SeededDice(5).draw(0, 3, 1, 4)
    assert SeededDice(5).draw(0, 3, 1, 5)[:3] == SeededDice(5).draw(0, 3, 1, 3)


def test_turn_order_rotates_and_rematch_passes_first_turn():
    g = Game("yacht", 3, seed=0)
    seats = []
    for _ in range(6):
        seats.append(g.current_seat)
        g.roll()
        g.apply(first_legal(g) if g.rolls_left == 0 else 31 + int(np.flatnonzero(g.legal_mask()[31:])[0]))
    assert seats == [0, 1, 2, 0, 1, 2]
    r = g.rematch()
    assert r.first_seat == 1 and r.current_seat == 1 and r.num_players == 3


def test_player_count_and_team_checks():
    with pytest.raises(ValueError, match="allow 1 to 8 players, got 9"):
        Game("yacht", 9)
    with pytest.raises(ValueError, match="allow 1 to 6 players, got 7"):
        Game("kirakuken", 7)
    with pytest.raises(ValueError, match="cannot split into 2 teams"):
        Game("classic", 5, teams=2)


def play_out(g, rng):
    while not g.is_over:
        if g.phase == "roll":
            g.roll()
        else:
            g.apply(int(rng.choice(np.flatnonzero(g.legal_mask()))))
    return g


def test_team_game_shares_sheets_and_alternates_teams():
    g = Game("classic", 4, seed=5, teams=2)
    assert g.num_sheets == 2
    rolled_by = []
    while not g.is_over:
        if g.phase == "roll":
            rolled_by.append((g.current_seat, g.current_sheet))
            g.roll()
        else:
            g.apply(31 + int(np.flatnonzero(g.legal_mask()[31:])[0]))
    assert len(rolled_by) == 2 * 12
    assert rolled_by[:4] == [(0, 0), (1, 1), (2, 0), (3, 1)]
    t = g.totals()
    assert t[0] == t[2] == g.sheets[0].total and t[1] == t[3] == g.sheets[1].total
    w = g.winners()
    assert w in ([0, 2], [1, 3], [0, 1, 2, 3])


def test_columns_make_longer_games():
    g = play_out(Game("yacht", 2, seed=9, columns=2), np.random.default_rng(0))
    assert g.turn == 2 * 26 and g.num_actions == 31 + 26
    assert all(s.full for s in g.sheets)


def test_two_roll_limit():
    g = Game("classic", 1, seed=1, rolls_per_turn=2)
    g.roll()
    g.roll()
    with pytest.raises(IllegalMove, match="limit 2"):
        g.roll()


def tied_game(tiebreak):
    # both players roll five 1s every turn and score boxes in the same order -> tied
    faces = [1] * (5 * 12 * 2) + [6, 6, 6, 6, 6, 1, 1, 1, 1, 1]
    g = Game("classic", 2, dice=ScriptedDice(faces), tiebreak=tiebreak)
    for _ in range(24):
        g.roll()
        g.apply(31 + int(np.flatnonzero(g.legal_mask()[31:])[0]))
    return g


def test_ties_share_the_win():
    g = tied_game("share")
    assert g.is_over and g.totals()[0] == g.totals()[1] and g.winners() == [0, 1]
    assert g.sheet_ranks() == [1, 1]


def test_sudden_death_roll_off():
    g = tied_game("sudden_death")
    assert g.winners() == [0] and g.tiebreak() == {0: [30], 1: [5]} and g.sheet_ranks() == [1, 2]
