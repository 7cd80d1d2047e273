"""Tests of yacht_env.envs (and the integrations built on them): Yacht-v0, YachtVs-v0, vector envs,
observations, records, rendering, the step threads' numba internals, PettingZoo."""
