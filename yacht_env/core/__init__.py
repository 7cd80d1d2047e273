"""The game engine: dice, kernels, the engine's arrays, the transition `Game`, the lockstep runner."""
