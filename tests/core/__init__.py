"""Tests of yacht_env.core: the game model, the engine and batched play, odds."""
