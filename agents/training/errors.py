"""Training errors that need no torch to name (the CLI imports them on every run)."""
from yacht_env.config import ConfigError


class ModelFileError(ConfigError):
    """A file that is not a model saved by `yacht train`, or does not fit the rules (a user error)."""
