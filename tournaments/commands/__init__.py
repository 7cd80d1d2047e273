"""`yacht` subcommands that belong to the tournament harness."""
