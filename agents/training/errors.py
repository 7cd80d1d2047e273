"""Training errors that need no torch to name (the CLI imports them on every run)."""
from ..model_file import ModelFileError

__all__ = ["ModelFileError"]
