"""Tests of `yacht serve` (yacht_arena/web): the tables and the browser front end."""
