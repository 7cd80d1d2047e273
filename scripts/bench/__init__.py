"""Benchmark subcommands of ``scripts/bench.py``: one module per subcommand."""
