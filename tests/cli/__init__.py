"""Tests of the `yacht` command line (yacht_arena/cli): shared options, advise, analyze/show, text output."""
