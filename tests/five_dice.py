"""The presets of five dice: the ones the environments and the solver-backed agents play. Six-dice `maxi`
is refused by both with one message (tests/core/test_six_dice.py, tests/cli/test_six_dice_apps.py)."""
from yacht_env.rules import load, presets


def five_dice_presets() -> list[str]:
    return [p for p in presets() if load(p).dice == 5]
