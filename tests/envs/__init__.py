"""Tests of yacht_env.envs: Yacht-v0, YachtVs-v0, vector envs, observations, records (of every env, the
integrations' too), rendering, the step threads' numba internals, Yacht-v0 under Gymnasium's and SB3's tools."""
