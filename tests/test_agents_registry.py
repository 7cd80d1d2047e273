"""Agent specs: syntax, parameters, lazy imports, and a clear message for each mistake."""
import pytest

from agents.registry import AGENTS, AgentSpecError, list_specs, make_agent, parse_spec


def test_parse_spec():
    assert parse_spec("normal") == ("normal", {}, "")
    assert parse_spec("easy?skill=0.3") == ("easy", {"skill": "0.3"}, "")
    assert parse_spec("external?timeout=2:python bot.py --x=1?y") == ("external", {"timeout": "2"},
                                                                       "python bot.py --x=1?y")
    assert parse_spec("learned:runs/a:b.pt") == ("learned", {}, "runs/a:b.pt")


def test_params_reach_the_agent():
    assert make_agent("easy?skill=0.25").skill == 0.25
    assert make_agent("normal").skill == 1.0
    assert make_agent("easy").skill == 0.7


def test_every_listed_spec_has_help():
    assert [p.split("?")[0].split(":")[0] for p, _ in list_specs()] == list(AGENTS)
    assert all(h for _, h in list_specs())


@pytest.mark.parametrize("spec, message", [
    ("", "an agent spec must be a non-empty string"),
    ("nobody", "unknown agent 'nobody' in spec 'nobody'; known: random, greedy, easy, normal, strong"),
    ("random?skill=1", "unknown parameter 'skill' for random (allowed: none)"),
    ("easy?level=1", "unknown parameter 'level' for easy (allowed: skill)"),
    ("easy?skill", "parameter 'skill' is not KEY=VALUE"),
    ("easy?skill=1&skill=0", "parameter 'skill' is given twice"),
    ("easy?skill=high", "skill: 'high' is not a number"),
    ("normal?skill=1.5", "skill: skill must be in [0, 1], got 1.5"),
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
        mixed = make_agent("strong?skill=0.5")
        assert mixed.skill == 0.5 and mixed.weaker.name == "normal"
