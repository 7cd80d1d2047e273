"""Tests of yacht_env.solver: the exact solver, its cache, advice, the strong agent's plans, playing to win."""
