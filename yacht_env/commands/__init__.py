"""`yacht` subcommands that need only the rules engine."""
