"""Raid board policies as data (raidboard §10): registered dataclasses with declared
parameters, chosen as ``name(key=value)`` or a TOML file, on the API and the command line."""
import json

import numpy as np
import pytest

from vikingsim.core import policies
from vikingsim.core.runner import simulate
from vikingsim.core.testing import plain_module
from vikingsim.games.raidboard import GAME
from vikingsim.games.raidboard.policies import POLICY_TYPES, Lookahead, compile_policies
from vikingsim.games.raidboard.rules import Rules

K = plain_module("vikingsim.games.raidboard.kernel")


def test_every_policy_is_registered_with_declared_parameters():
    assert set(GAME.policy_types) == set(GAME.policies) == set(POLICY_TYPES)
    opts = policies.param_options(Lookahead)
    assert list(opts) == ["settle_value", "miss_cost", "forbid"]
    for o in (opts["settle_value"], opts["miss_cost"]):
        assert o.kind == "float" and o.help and "§10.4" in o.help and (o.lo, o.hi) == (0, 1000)
    # §10.4: settle_value = 12 Gold, miss_cost = 6 Gold (assumptions)
    assert (opts["settle_value"].default, opts["miss_cost"].default) == (12.0, 6.0)
    # §10.5: every scripted policy takes forbid (restricted play), "" = nothing forbidden;
    # the search players (§10.6) take none: restricted play is asked of scripted policies
    for name, cls in POLICY_TYPES.items():
        if name in ("flatmc", "ismcts"):
            assert "forbid" not in policies.param_options(cls)
            continue
        o = policies.param_options(cls)["forbid"]
        assert o.kind == "str" and o.default == "" and "§10.5" in o.help
    assert list(policies.param_options(POLICY_TYPES["greedy"])) == ["forbid"]


def test_settle_value_changes_the_exploration_choice():
    # §10.4 with settle_value = 0 (miss_cost 6): raid = 232/36 - 6/36 * (7 + 6) = 4.278 Gold.
    # Norwegian Sea(3) reaches Sweden (raid), Iceland, Greenland (empty North: 0), Atlantic
    # (5/6 raid), Vinland (0): 1.83 raid. Black Sea(34) reaches Byzantium (raid), Caspian
    # (5/6 raid), Muslim States, Persia (raid each), Foreign Service (two raids): 5.83 raid,
    # the most of the seven seas (Mediterranean and Baltic 4.83, Caspian 5, North Sea 4,
    # Atlantic 3.83). At the default 12, Norwegian Sea wins (test_lookahead_picks_best...).
    c = Rules().compile()
    own = np.full(40, -1, np.int64)
    for label, want in (("lookahead", 3), ("lookahead(settle_value=0)", 34)):
        kinds, params = compile_policies([label])
        got = K._choose_exploration(c.ri, c.kind, c.region, c.seas, own, 9, 1, 0, kinds[0],
                                    params[0], None)
        assert got == want, label


@pytest.mark.parametrize("param", ["settle_value=0", "miss_cost=100"])
def test_each_parameter_changes_games(param):
    base = simulate("raidboard", 3000, seed=4, players=4, policies="lookahead")
    alt = simulate("raidboard", 3000, seed=4, players=4, policies=f"lookahead({param})")
    assert not np.array_equal(base.out["gold"], alt.out["gold"])
    ref = simulate("raidboard", 200, seed=4, players=4, policies=f"lookahead({param})",
                   reference=True)
    for key in ref.out:
        np.testing.assert_array_equal(ref.out[key], alt.out[key][:200], err_msg=key)


def test_labels_are_canonical_and_defaults_read_as_the_name():
    r = simulate("raidboard", 500, seed=2, players=2,
                 policies=["lookahead(settle_value=10)", "lookahead(settle_value=12)"])
    assert r.summary["policies"] == ["lookahead(settle_value=10.0)", "lookahead"]
    assert r.manifest["policies"] == r.summary["policies"]
    plain = simulate("raidboard", 500, seed=2, players=2, policies="lookahead")
    same = simulate("raidboard", 500, seed=2, players=2,
                    policies="lookahead(settle_value=12, miss_cost=6)")
    np.testing.assert_array_equal(plain.out["gold"], same.out["gold"])


def test_a_toml_policy_file_equals_the_inline_text(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text('name = "lookahead"\nsettle_value = 10\n')
    a = simulate("raidboard", 1000, seed=3, players=3, policies=str(path))
    b = simulate("raidboard", 1000, seed=3, players=3, policies="lookahead(settle_value=10)")
    assert a.summary["policies"] == ["lookahead(settle_value=10.0)"] * 3
    for key in a.out:
        np.testing.assert_array_equal(a.out[key], b.out[key], err_msg=key)


def test_cli_takes_a_parameterised_policy_and_a_toml_file(tmp_path, cli):
    path = tmp_path / "p.toml"
    path.write_text('name = "lookahead"\nsettle_value = 10\n')
    outs = []
    for pol in ("lookahead(settle_value=10)", str(path)):
        p = cli("simulate", "raidboard", "-n", "500", "--seed", "7", "--json", "--policy", pol)
        assert p.returncode == 0, p.stderr
        outs.append(json.loads(p.stdout))
    assert outs[0]["policies"] == outs[1]["policies"] == ["lookahead(settle_value=10.0)"] * 4
    assert outs[0]["win_rate"] == outs[1]["win_rate"]


@pytest.mark.parametrize("pol, needle", [
    ("lookahead(settle_value=-1)", "settle_value='-1': must be a number in [0.0, 1000.0]"),
    ("lookahead(settle_value=abc)", "settle_value='abc'"),
    ("lookahead(bogus=1)", "no parameter 'bogus'; parameters: settle_value, miss_cost"),
    ("greedy(x=1)", "policy greedy has no parameter 'x'"),
    ("lookahead(settle_value)", "is not key=value"),
    ("missing.toml", "cannot read policy file"),
])
def test_cli_bad_policy_parameter_is_one_line_exit_2(pol, needle, cli):
    p = cli("simulate", "raidboard", "-n", "10", "--policy", pol)
    assert p.returncode == 2 and p.stdout == ""
    assert len(p.stderr.strip().splitlines()) == 1 and needle in p.stderr, p.stderr
