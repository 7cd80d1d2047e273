"""Hypothesis invariants of the game model over random rule sets, seats and moves."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from yacht_env import Game, IllegalMove
from yacht_env.rules import presets

rule_choices = st.sampled_from(presets())
knobs = st.fixed_dictionaries({}, optional={
    "rolls_per_turn": st.integers(1, 3), "columns": st.integers(1, 2), "joker": st.sampled_from(
        ["none", "forced", "free", "verhoeff", "kirakuken"]), "tiebreak": st.sampled_from(["share", "sudden_death"])})


def _legal_game(name, overrides, players):
    if name in ("classic", "cheerio", "extended", "knizia") and overrides.get("joker", "none") != "none":
        overrides = {**overrides, "extra_yacht_bonus": 100}
    return Game(name, players, **overrides)


@settings(max_examples=40, deadline=None)
@given(rule_choices, knobs, st.integers(1, 4), st.integers(0, 2**32 - 1), st.randoms(use_true_random=False))
def test_random_play_invariants(name, overrides, players, seed, rnd):
    g = _legal_game(name, overrides, players)
    g.seed = seed
    turns = 0
    while not g.is_over:
        if g.phase == "roll":
            g.roll()
            continue
        mask = g.legal_mask()
        assert mask.any(), "a decision always has a legal move"
        legal = np.flatnonzero(mask)
        illegal = np.flatnonzero(mask == 0)
        if len(illegal) and rnd.random() < 0.3:
            before = (g.turn, g.dice, g.rolls_used, [s.scores.tolist() for s in g.sheets], len(g.log))
            try:
                g.apply(int(rnd.choice(list(illegal))))
                raise AssertionError("an illegal action was accepted")
            except IllegalMove:
                pass
            assert before == (g.turn, g.dice, g.rolls_used, [s.scores.tolist() for s in g.sheets], len(g.log))
        action = int(rnd.choice(list(legal)))
        turns += action >= g.num_holds
        g.apply(action)  # a legal move never raises
    assert turns == g.rules.rounds * g.num_sheets
    for sheet in g.sheets:
        boxes = int(sheet.scores.sum())
        assert (sheet.scores >= 0).all()
        assert sheet.total == boxes + int(sheet.upper_bonus.sum()) + int(sheet.extra_bonus.sum())
        for c in range(g.rules.columns):
            upper = sum(int(sheet.scores[c, b]) for b, box in enumerate(g.rules.boxes_spec) if box.upper)
            assert upper == sheet.upper[c]
            assert sheet.upper_bonus[c] == (g.rules.upper_bonus if g.rules.upper_bonus and
                                            upper >= g.rules.upper_bonus_threshold else 0)
    assert g.winners()
