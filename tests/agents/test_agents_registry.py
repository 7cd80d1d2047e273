"""Agent specs: syntax, parameters, lazy imports, and a clear message for each mistake."""
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
])
def test_bad_specs(spec, message):
    with pytest.raises(AgentSpecError) as e:
        make_agent(spec)
    assert message in str(e.value)


def test_strong_is_lazy_and_explains_when_missing():
    try:
        import agents.strong  # noqa: F401
    except ImportError:
        with pytest.raises(AgentSpecError, match="agent 'strong' is not available"):
            make_agent("strong")
    else:
        assert make_agent("strong").name == "strong"
        assert make_agent("strong?strength=0.5").name == "strong~0.5"
