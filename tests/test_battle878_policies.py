"""battle878 policies as data (878 §5, ``policies.POLICY_TYPES``): parameters given as
``name(key=value)`` or a TOML file change the battles the way their help says, in every engine
(forced dice through ``tests/test_battle878_rules.py``'s ``play``), and are recorded by label."""
import numpy as np
import pytest

from vikingsim.core.errors import InputError
from vikingsim.core.runner import simulate
from vikingsim.games.battle878 import GAME, make_setup
from vikingsim.games.battle878.policies import (
    Cautious, PolicyKind, PolicyParam, Random, Retreat, Smart, compile_policies)
from vikingsim.games.battle878.rules import Outcome
from tests.test_battle878_rules import ENGINES, d, play

# Vikings 2 N + 2 B attack 3 H + 4 T and roll first: all four dice Command (5), no Hit, no
# Flee. Strength (dice x Hit chance x units, POLICIES 'retreat'): Vikings (2 x 3/6 + 2 x 4/6)
# x 4 = 28/3 = 9.33; English (2 x 3/6 + 3 x 2/6) x 7 = 14. Ratio 2/3: the Vikings retreat
# exactly when threshold > 2/3, and then the 4 Commands take out both Berserkers and both
# Norsemen (most valuable first): the Vikings have retreated (878 §2.3, §5).
ALL_COMMANDS = d(5, 5, 5, 5)
ARMIES = dict(norsemen=2, berserkers=2, first_roller="attacker", max_rolls=1)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("threshold, retreats", [(None, False), (0.66, False), (0.67, True),
                                                 (2.0, True)])
def test_retreat_threshold_decides_the_command_retreat(engine, threshold, retreats):
    pol = "retreat" if threshold is None else f"retreat(threshold={threshold})"   # default 0.5
    b = play(engine, ALL_COMMANDS, policies=(pol, "default"), **ARMIES)
    assert b.script_left == 0
    if retreats:
        assert b.outcome == Outcome.VIKINGS_RETREAT
        assert b.retreated["B"] == 2 and b.retreated["N"] == 2
    else:
        assert b.outcome == Outcome.TRUNCATED and sum(b.retreated.values()) == 0


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("threshold, retreats", [(0.45, False), (0.55, True)])
def test_retreat_strength_counts_the_fort_dice(engine, threshold, retreats):
    # English attack 1 N + 1 B with a Fort (SEED §1.4); the Vikings defend and roll first,
    # 2 N + 2 B dice with the Fort's (878 §4.4), all Commands. Strength: Vikings (2 x 3/6 +
    # 2 x 4/6) x (2 units + the Fort) = 7 (3.5 without the Fort's dice), English 14: ratio
    # 1/2, so threshold 0.45 stays and 0.55 retreats both units (the Fort stays: no end yet).
    b = play(engine, ALL_COMMANDS, policies=(f"retreat(threshold={threshold})", "default"),
             attacker="english",
             norsemen=1, berserkers=1, fort=1, max_rolls=1)
    assert b.script_left == 0 and b.outcome == Outcome.TRUNCATED and b.struct == 1
    assert (b.retreated["N"], b.retreated["B"]) == ((1, 1) if retreats else (0, 0))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("chance, retreats", [(None, False), (0.3, False), (0.31, True)])
def test_random_retreat_chance_is_the_coin_on_a_roll_with_commands(engine, chance, retreats):
    # random Vikings, same roll: one policy draw (0.3) against retreat_chance (default 0.2);
    # u < chance retreats. No Hits were rolled, so no target draw.
    pol = "random" if chance is None else f"random(retreat_chance={chance})"
    b = play(engine, ALL_COMMANDS, pol=[0.3], policies=(pol, "default"), **ARMIES)
    assert b.script_left == 0
    assert (b.outcome == Outcome.VIKINGS_RETREAT) == retreats
    assert sum(b.retreated.values()) == (4 if retreats else 0)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("margin, runes_dice", [(None, 2), (2, 1), (3, 0)])
def test_smart_runes_margin_stops_feeding_the_prayer_card(engine, margin, runes_dice):
    # Same roll with Runes and Prayer (SEED §4): each Viking faction (Norsemen, then
    # Berserkers) may roll a Runes die; smart Vikings do while the Prayer card's Conversions
    # < gods_peace_cost (3) - runes_margin. Every Runes die shows Conversion (5: RRRRCC) and
    # goes on the English card. Margin 1 (default): 0 < 2, then 1 < 2: two dice; margin 2:
    # 0 < 1, then 1 < 1 fails: one die; margin 3: 0 < 0 fails: none.
    pol = "smart" if margin is None else f"smart(runes_margin={margin})"
    b = play(engine, ALL_COMMANDS + d(*[5] * runes_dice), policies=(pol, "default"),
             runes_prayer=True, **ARMIES)
    assert b.script_left == 0 and b.outcome == Outcome.TRUNCATED
    assert b.effects["runes_rolled"] == runes_dice


def test_parameters_reach_the_compiled_policies():
    kinds, params = compile_policies(["retreat(threshold=0.6)",
                                      "random(retreat_chance=0.1, die_chance=0.9)"])
    assert list(kinds) == [PolicyKind.RETREAT, PolicyKind.RANDOM]
    assert params[0, PolicyParam.RETREAT_ODDS] == 0.6
    assert params[1, PolicyParam.RETREAT_CHANCE] == 0.1
    assert params[1, PolicyParam.DIE_CHANCE] == 0.9
    assert params[1, PolicyParam.REROLL_CHANCE] == 0.5            # its default
    # cautious is smart Vikings with runes_margin 2 (POLICIES help); smart English bad_odds 1
    kinds, params = compile_policies(["cautious", "smart"])
    assert params[0, PolicyParam.RUNES_MARGIN] == 2 and params[1, PolicyParam.BAD_ODDS] == 1.0
    assert make_setup({}, ["cautious", "smart(bad_odds=0.5)"]).policies == (
        Cautious(), Smart(bad_odds=0.5))


def test_a_parameter_changes_the_games_and_is_recorded_by_label():
    base = simulate(GAME, 20_000, seed=8, policies=["retreat", "retreat"], threads=1)
    bold = simulate(GAME, 20_000, seed=8, policies=["retreat(threshold=2.0)", "retreat"],
                    threads=1)
    assert bold.summary["policies"] == ["retreat(threshold=2.0)", "retreat"]
    assert bold.manifest["policies"][0] == "retreat(threshold=2.0)"
    assert bold.summary["p_vikings_retreat"] > base.summary["p_vikings_retreat"]
    # threshold 0: own strength is never below 0 x the enemy's, so never a retreat: exactly
    # the default policy's battles (the retreat policy draws nothing from the policy stream)
    never = simulate(GAME, 20_000, seed=8, policies=["retreat(threshold=0)"] * 2, threads=1)
    default = simulate(GAME, 20_000, seed=8, threads=1)
    for key in default.out:
        np.testing.assert_array_equal(never.out[key], default.out[key], err_msg=key)


@pytest.mark.parametrize("options, policies", [
    ({}, ("retreat(threshold=0.9)", "retreat(threshold=0.3)")),
    ({"runes_prayer": True, "epic_card": "traitors"},
     ("random(retreat_chance=0.6, die_chance=0.9, reroll_chance=0.1)", "random(die_chance=0.2)")),
    ({"runes_prayer": True, "fyrd": 3}, ("smart(runes_margin=0)", "smart(bad_odds=2.0)")),
    ({"runes_prayer": True, "norsemen": 10}, ("cautious(runes_margin=3)", "prayer_smart")),
])
def test_kernel_matches_reference_with_parameters(options, policies):
    fast = simulate(GAME, 1500, seed=12, options=options, policies=list(policies), threads=1)
    slow = simulate(GAME, 1500, seed=12, options=options, policies=list(policies), threads=1,
                    reference=True)
    for key in fast.out:
        np.testing.assert_array_equal(fast.out[key], slow.out[key], err_msg=key)


def test_policy_from_a_toml_file(tmp_path):
    f = tmp_path / "bold.toml"
    f.write_text('name = "retreat"\nthreshold = 0.7\n')
    r = simulate(GAME, 100, seed=1, policies=[str(f), "default"], threads=1)
    assert r.summary["policies"][0] == "retreat(threshold=0.7)"
    assert r.setup.policies[0] == Retreat(threshold=0.7)


@pytest.mark.parametrize("text, match", [
    ("retreat(nope=1)", "no parameter 'nope'"),
    ("random(retreat_chance=1.5)", "retreat_chance"),
    ("default(threshold=1)", "no parameter"),
])
def test_bad_policy_parameters_are_refused(text, match):
    with pytest.raises(InputError, match=match):
        simulate(GAME, 10, policies=[text, "default"])
    assert Random().retreat_chance == 0.2 and Retreat().threshold == 0.5   # POLICIES help
