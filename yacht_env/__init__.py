"""Yacht: rules engine, game model and Gymnasium environments."""
from .game import Game, IllegalMove
from .registration import register_envs
from .rules import RuleError, RuleSet, load

register_envs()

__all__ = ["Game", "IllegalMove", "RuleError", "RuleSet", "load"]
