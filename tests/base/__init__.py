"""Tests of yacht_env's base layer and the tree as a whole: the config layer, safe file access, numba's
cache, the memory check, the layering and the packaging."""
