"""The error raised for a bad rule file or override."""


class RuleError(ValueError):
    """A rule file or override that cannot be used: names the file, the key and what is allowed."""

    def __init__(self, source: str, key: str, problem: str):
        self.source, self.key, self.problem = source, key, problem
        super().__init__(f"{source}: {key}: {problem}")
