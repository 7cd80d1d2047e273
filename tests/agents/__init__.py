"""Tests of agents: the registry, the levels, lookahead, learned, external and human agents, the move
analysis, provenance."""
