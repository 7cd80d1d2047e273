"""Yacht: rules engine, game model and Gymnasium environments."""
from .game import Game, IllegalMove
from .rules import RuleError, RuleSet, load

__all__ = ["Game", "IllegalMove", "RuleError", "RuleSet", "load"]
