"""`yacht_env.integrations.sb3` under the short name the README documents: importing this module gives that
one (the same module object, so its classes and functions are the same objects)."""
import sys

from .integrations import sb3

sys.modules[__name__] = sb3
