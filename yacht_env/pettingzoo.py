"""`yacht_env.integrations.pettingzoo` under the short name the README documents: importing this module gives that
one (the same module object, so its classes and functions are the same objects)."""
import sys

from .integrations import pettingzoo

sys.modules[__name__] = pettingzoo
