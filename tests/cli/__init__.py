"""Tests of the `yacht` command line (tournaments/cli): shared options, advise, analyze/show, text output."""
