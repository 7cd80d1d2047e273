"""Tests of yacht_env.rules: rule sets as validated data, their scoring and the joker rule."""
