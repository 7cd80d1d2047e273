"""Every numeric agent-spec value is checked against the range its agent can represent: an extreme, tiny,
negative, infinite or NaN value is refused with one message naming the parameter, or the agent plays with
it; nothing crashes later in a kernel (`strong?goal=target&score=1e308` once overflowed an int64)."""
import pytest

from agents.base import play_game
from agents.registry import AGENTS, AgentSpecError, make_agent
from agents.strong import MAX_TARGET
from yacht_env.core.game import Game

EXTREMES = ["1e308", "-1e308", "1e19", "-1e19", "9007199254740993", "1e-320", "-0", "nan", "inf", "-inf"]
PLAYED = ("random", "greedy", "strong")          # agents built and played here when a value is accepted
ARGUMENT = {"learned": "/no/such/model.pt", "external": "python3 -c pass"}
# level's targets are checked against the dial's reach, found per rule set (slow on a fresh cache): only the
# values refused before any search are tried
LEVEL = ["nan", "inf", "-inf", "-1e308"]


def cases():
    for name, entry in AGENTS.items():
        for param, check in entry.params.items():
            if getattr(check, "text", False):
                continue
            for value in LEVEL if name == "level" else EXTREMES:
                yield name, param, value


def spec_of(name: str, param: str, value: str) -> str:
    extra = "goal=target&" if param == "score" else ""
    arg = f":{ARGUMENT[name]}" if name in ARGUMENT else ""
    return f"{name}?{extra}{param}={value}{arg}"


@pytest.mark.parametrize("name, param, value", list(cases()))
def test_an_extreme_spec_value_is_refused_or_played(name, param, value):
    spec = spec_of(name, param, value)
    try:
        agent = make_agent(spec)
    except AgentSpecError as e:
        assert "\n" not in str(e) and (param in str(e) or name in ARGUMENT), str(e)
        return
    try:
        assert name in PLAYED or name == "external", f"{spec} was accepted"
        if param == "score":       # a target the kernels hold as int64 (playing would build score distributions)
            assert 0 <= agent.target <= MAX_TARGET
        elif name in PLAYED:
            record = play_game(Game("yacht", 1, seed=1), [agent])
            assert record is not None
    finally:
        close = getattr(agent, "close", None)
        if close:
            close()


@pytest.mark.parametrize("value, ok", [("0", True), (str(MAX_TARGET), True), (str(MAX_TARGET + 1), False),
                                       ("-1", False), ("-0.5", False), ("1e308", False), ("nan", False)])
def test_the_target_score_range(value, ok):
    spec = f"strong?goal=target&score={value}"
    if ok:
        assert make_agent(spec).target >= 0
    else:
        with pytest.raises(AgentSpecError, match=f"score: must be a final score from 0 to {MAX_TARGET:,} points"):
            make_agent(spec)
