"""`mini`: seven boxes of `yacht` (three upper, three of a kind, full house, yacht, chance) with a 35-point
bonus at 12, a rule set the exact solver solves in seconds. The solver's tests and `bench.py solver_digests`
write it to a rules file (`MINI`) and load that. `six_mini` (`SIX_MINI`): its six-dice sibling, six boxes
(three upper with a 35-point bonus at 18, one pair, chance, a 100-point Maxi Yatzy), also solved in seconds."""

MINI = """\
extends: yacht
name: mini
boxes:
  - {id: ones, kind: upper, face: 1}
  - {id: twos, kind: upper, face: 2}
  - {id: threes, kind: upper, face: 3}
  - {id: three_of_a_kind, kind: of_a_kind, count: 3, points: sum}
  - {id: full_house, kind: full_house, points: 25}
  - {id: yacht, kind: yacht, points: 50}
  - {id: chance, kind: chance}
upper_bonus: {threshold: 12, points: 35}
"""

SIX_MINI = """\
name: six_mini
description: six dice, six boxes, for tests
dice: 6
boxes:
  - {id: ones, kind: upper, face: 1}
  - {id: twos, kind: upper, face: 2}
  - {id: threes, kind: upper, face: 3}
  - {id: one_pair, kind: pairs, count: 1, points: matching}
  - {id: chance, kind: chance}
  - {id: maxi_yatzy, kind: yacht, points: 100}
upper_bonus: {threshold: 18, points: 35}
extra_yacht_bonus: 0
joker: none
"""
