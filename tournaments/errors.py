"""Errors of a tournament run that are not bad input: the command line prints them as one line, exit status 2."""


class RunError(Exception):
    """A run cannot go on (the process playing games failed outside any agent call)."""
