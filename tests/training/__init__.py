"""Tests of agents.training: configs, features, rewards, runs, behaviour cloning, the shipped models."""
