"""`mini`: seven boxes of `yacht` (three upper, three of a kind, full house, yacht, chance) with a 35-point
bonus at 12, a rule set the exact solver solves in seconds. The solver's tests and `bench.py solver_digests`
write it to a rules file (`MINI`) and load that."""

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
