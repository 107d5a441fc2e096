"""Core pieces of the game contract: rules declared once (core.options.rule/options_of),
policies as data (core.policies) and the rules hash from the declared rules version."""
from dataclasses import dataclass, replace

import pytest

from vikingsim.core import policies as P
from vikingsim.core.errors import InputError
from vikingsim.core.options import field_names, options_of, rule
from vikingsim.core.results import rules_hash


@dataclass(frozen=True)
class _Rules:
    gold: int = rule(20, "Gold at the start", section="§4.1", lo=0, hi=100)
    track: str = rule("circular", "track", choices=("circular", "flat"))
    loose: bool = rule(True, "a flag")
    ratio: float = rule(0.5, "a ratio", lo=0.0, hi=1.0, name="the_ratio")
    hidden: int = rule(7, "a constant", option=False)
    plain: int = 3


def test_options_derive_from_rule_fields_with_one_default():
    opts = {o.name: o for o in options_of(_Rules)}
    assert list(opts) == ["gold", "track", "loose", "the_ratio"]
    assert (opts["gold"].kind, opts["gold"].default, opts["gold"].lo, opts["gold"].hi) == \
        ("int", 20, 0, 100)
    assert opts["gold"].help == "Gold at the start (§4.1)"
    assert opts["track"].kind == "choice" and opts["track"].choices == ("circular", "flat")
    assert opts["loose"].kind == "bool" and opts["the_ratio"].kind == "float"
    assert field_names(_Rules)["the_ratio"] == "ratio"
    assert all(o.default == getattr(_Rules(), field_names(_Rules)[o.name])
               for o in opts.values())


@dataclass(frozen=True)
class _Look:
    settle_value: float = rule(12.0, "value of a settlement", lo=0.0, hi=1000.0)
    depth: int = 2


def test_policy_texts_parse_validate_and_label():
    reg = {"look": _Look}
    assert P.parse("look") == ("look", {})
    assert P.parse(" look( settle_value = 10 , depth=3 ) ") == \
        ("look", {"settle_value": "10", "depth": "3"})
    p = P.build("g", reg, "look(settle_value=10)")
    assert p == _Look(settle_value=10.0) and P.label("look", p) == "look(settle_value=10.0)"
    assert P.label("look", P.build("g", reg, "look()")) == "look"
    for bad, match in [("look(nope=1)", "no parameter 'nope'"), ("walk", "unknown policy"),
                       ("look(settle_value=-1)", "settle_value"), ("look(depth)", "key=value"),
                       ("look(depth=1, depth=2)", "given twice"), ("", "must be a name")]:
        with pytest.raises(InputError, match=match):
            P.build("g", reg, bad)


def test_policy_from_a_toml_file(tmp_path):
    f = tmp_path / "p.toml"
    f.write_text('name = "look"\nsettle_value = 9\ndepth = 4\n')
    assert P.build("g", {"look": _Look}, str(f)) == _Look(settle_value=9.0, depth=4)
    f.write_text('settle_value = 9\n')
    with pytest.raises(InputError, match="needs name"):
        P.parse(str(f))
    with pytest.raises(InputError, match="cannot read policy file"):
        P.parse(str(tmp_path / "missing.toml"))


def test_rules_hash_follows_version_and_options_not_source_bytes():
    h = rules_hash("raidboard", {"a": 1}, "1")
    assert h == rules_hash("raidboard", {"a": 1}, "1")
    assert h != rules_hash("raidboard", {"a": 1}, "2") != rules_hash("raidboard", {"a": 2}, "1")


def test_unknown_or_parameterless_policy_texts_are_refused():
    from vikingsim.core.runner import resolve_policies
    from vikingsim.games import get

    spec = replace(get("raidboard"), policy_types={})
    with pytest.raises(InputError, match="takes no parameters"):
        resolve_policies(spec, ["greedy(x=1)"], 2)
    with pytest.raises(InputError, match="unknown policy 'nope'"):
        resolve_policies(spec, ["nope(x=1)"], 2)
