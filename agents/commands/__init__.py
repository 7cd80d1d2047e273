"""`yacht` subcommands that belong to the agents package: evaluate, levels, play."""
