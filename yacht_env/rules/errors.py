"""The error raised for a bad rule file or override."""
from ..config import ConfigError


class RuleError(ConfigError):
    """A rule file or override that cannot be used: `RuleError(source, key, problem)` names the file
    (or `--set`), the key and what is allowed."""
