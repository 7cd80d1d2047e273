"""Tests of `yacht serve` (tournaments/web): the tables and the browser front end."""
