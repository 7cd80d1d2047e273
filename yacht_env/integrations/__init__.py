"""Adapters to other frameworks: Stable-Baselines3 VecEnvs and the PettingZoo AEC env."""
