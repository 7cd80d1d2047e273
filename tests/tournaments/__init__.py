"""Tests of tournaments: formats, runs, matches, the store, statistics, reports."""
