"""The presets of five dice: the ones the solver-backed agents play; six-dice `maxi` is refused by them with one
message (tests/core/test_six_dice.py, tests/cli/test_six_dice_apps.py). The environments' preset loops take these
too, and play `maxi` in tests/envs/test_env_six_dice.py."""
from yacht_env.rules import load, presets


def five_dice_presets() -> list[str]:
    return [p for p in presets() if load(p).dice == 5]
