"""Rule sets as data: load a preset or a YAML file, with overrides."""
from .boxes import Box
from .errors import RuleError
from .load import (command_args, load, parse_sets, presets, read_rules, rules_block, rules_hash, rules_label,
                   solitaire_rules)
from .ruleset import RuleSet

__all__ = ["Box", "RuleError", "RuleSet", "command_args", "load", "parse_sets", "presets", "read_rules",
           "rules_block", "rules_hash", "rules_label", "solitaire_rules"]
