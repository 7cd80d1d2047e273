"""Agent specs: syntax, parameters, lazy imports, and a clear message for each mistake."""
import re

import pytest

from agents.registry import AGENTS, AgentSpecError, list_specs, make_agent, parse_spec


def test_parse_spec():
    assert parse_spec("normal") == ("normal", {}, "")
    assert parse_spec("strong?strength=0.3") == ("strong", {"strength": "0.3"}, "")
    assert parse_spec("external?timeout=2:python bot.py --x=1?y") == ("external", {"timeout": "2"},
                                                                       "python bot.py --x=1?y")
    assert parse_spec("learned:runs/a:b.pt") == ("learned", {}, "runs/a:b.pt")


def test_params_reach_the_agent():
    assert make_agent("strong?strength=0.25").strength == 0.25
    assert make_agent("level?pct=90").target.key == "pct=90"
    assert make_agent("normal").target.key == "win=0.3" and make_agent("easy").target.key == "win=0.2@normal"


def test_every_listed_spec_has_help():
    assert [p.split("?")[0].split(":")[0] for p, _ in list_specs()] == list(AGENTS)
    assert all(h for _, h in list_specs())


# one refused input and its message a row: alike in shape to the other such tables, by design
@pytest.mark.parametrize("spec, message", [
    ("", "an agent spec must be a non-empty string"),
    ("nobody", "unknown agent 'nobody' in spec 'nobody'; known: random, greedy, easy, normal, strong, level"),
    ("random?skill=1", "unknown parameter 'skill' for random (allowed: none)"),
    ("strong?level=1", "unknown parameter 'level' for strong (allowed: strength, goal, score)"),
    ("strong?strength", "parameter 'strength' is not KEY=VALUE"),
    ("strong?strength=1&strength=0", "parameter 'strength' is given twice"),
    ("strong?strength=high", "strength: 'high' is not a number"),
    ("strong?strength=1.5", "strength: must be in [0, 1] (1 = optimal, 0 = random-like), got 1.5"),
    ("normal?skill=0.5", "normal takes no 'skill': the skill knob was replaced by the strength dial"),
    ("greedy:fast", "greedy takes no ':' argument"),
    ("learned", "learned needs an argument, as learned:PATH"),
    ("learned:", "nothing after ':'"),
    # the strength dial and the levels (agents.levels)
    ("easy?skill=0.5", "easy takes no 'skill': the skill knob was replaced by the strength dial: write "
                       "strong?strength=S"),
    ("strong?skill=1", "strong takes no 'skill'"),
    ("normal?strength=0.5", "normal takes no 'strength': it is a point on the strength dial, found for each rule "
                            "set; for a setting of your own write strong?strength=S"),
    ("strong?strength=nan", "strength: must be in [0, 1]"),
    ("strong?strength=-0.1", "strength: must be in [0, 1]"),
    ("level", "level takes exactly one target"),
    ("level?pct=90&win=0.3", "level takes exactly one target"),
    ("level?win=inf", "win: must be a finite number"),
    ("level?pct=0", "target pct=0: a percentage of the optimal expected score is in (0, 100]"),
])
def test_bad_specs(spec, message):
    with pytest.raises(AgentSpecError, match=re.escape(message)):
        make_agent(spec)


def test_strong_is_lazy_and_explains_when_missing():
    try:
        import agents.strong  # noqa: F401
    except ImportError:
        with pytest.raises(AgentSpecError, match="agent 'strong' is not available"):
            make_agent("strong")
    else:
        assert make_agent("strong").name == "strong"
        assert make_agent("strong?strength=0.5").name == "strong~0.5"
