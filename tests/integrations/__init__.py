"""Tests of yacht_env.integrations: the PettingZoo AEC env and the SB3 VecEnvs (their API, seeds, errors;
the games they play are checked against the other envs in tests/envs/test_env_records.py)."""
