"""battle878 restricted play (issue 20 §2): every policy takes ``forbid`` (elements joined by
'+'), the side is denied that option and plays otherwise as before. Forced dice run the
reference and the kernel's own code (``tests/test_battle878_rules.py``'s ``play``); the
compiled kernel must equal the reference with forbids, and forbidding what a side never uses
changes nothing bit for bit."""

import numpy as np
import pytest

from vikingsim.core.errors import InputError
from vikingsim.core.runner import simulate
from vikingsim.games.battle878 import GAME, make_setup
from vikingsim.games.battle878.policies import ELEMENT_NAMES, PolicyParam, compile_policies
from vikingsim.games.battle878.rules import Outcome
from tests.test_battle878_rules import ENGINES, d, play

# Vikings 2 N + 2 B roll first, one roll: every battle die shows Command (5): no Hit, no Flee.
ALL_COMMANDS = d(5, 5, 5, 5)
ARMIES = dict(norsemen=2, berserkers=2, first_roller="attacker", max_rolls=1)
RP = dict(ARMIES, runes_prayer=True)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("forbid, runes_dice", [("", 2), ("runes", 0), ("prayer", 2)])
def test_forbidden_runes_are_not_rolled(engine, forbid, runes_dice):
    # greedy Vikings roll one Runes die per faction present (SEED §4.1): two, both Runes
    # faces (1), so no Conversion reaches the English card; forbid=runes: none, and the
    # script holds no die for them; forbid=prayer is an English choice: nothing changes.
    pol = f"greedy(forbid={forbid})" if forbid else "greedy"
    b = play(engine, ALL_COMMANDS + d(*[1] * runes_dice), policies=(pol, "default"), **RP)
    assert b.script_left == 0 and b.outcome == Outcome.TRUNCATED
    assert b.effects["runes_rolled"] == runes_dice


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("forbid, prayer_dice", [("", 2), ("prayer", 0)])
def test_forbidden_prayer_is_not_rolled(engine, forbid, prayer_dice):
    # English 2 H + 2 T roll first (first_roller=attacker, English attack); greedy English
    # roll one Prayer die per faction: Faith (6) each. Battle dice all Command.
    pol = f"greedy(forbid={forbid})" if forbid else "greedy"
    b = play(engine, ALL_COMMANDS + d(*[6] * prayer_dice), policies=("default", pol),
             runes_prayer=True, attacker="english", housecarls=2, thegns=2,
             first_roller="attacker", max_rolls=1)
    assert b.script_left == 0 and b.effects["prayer_rolled"] == prayer_dice


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("forbid, outcome, converted", [
    ("", Outcome.GODS_PEACE, 0),                     # costliest first: God's Peace
    ("gods_peace", Outcome.TRUNCATED, 1),            # then Convert takes the two Conversions
    ("gods_peace+convert", Outcome.TRUNCATED, 0),    # nothing left to buy
])
def test_forbidden_prayer_effects_are_skipped_in_order(engine, forbid, outcome, converted):
    # greedy Vikings' two Runes dice both show Conversion (5): both go on the English card
    # (SEED §4.4 note). With gods_peace_cost = convert_cost = 2, greedy English (spending after
    # the rolling Vikings) buy God's Peace (SEED §4.4) before anything else; denied it, they
    # Convert a Norseman into a Thegn (878 §6.7); denied both, the Conversions stay.
    pol = f"greedy(forbid={forbid})" if forbid else "greedy"
    b = play(engine, ALL_COMMANDS + d(5, 5), policies=("greedy", pol), gods_peace_cost=2,
             **RP)
    assert b.script_left == 0 and b.outcome == outcome
    assert b.effects["convert"] == converted and b.left["N"] == converted


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("pol, pol_draws", [
    ("retreat(threshold=2.0)", []), ("random(retreat_chance=0.9)", [0.1])])
@pytest.mark.parametrize("forbid", [False, True])
def test_forbidden_retreat_keeps_the_units_and_the_coin(engine, pol, pol_draws, forbid):
    # the roll of tests/test_battle878_policies.py: 4 Commands, a retreat would take all four
    # units out (Vikings retreated). Forbidden: no unit moves; the random policy still draws
    # its coin (the policy stream stays aligned with the unrestricted run).
    if forbid:
        pol = pol.replace(")", ", forbid=retreat)")
    b = play(engine, ALL_COMMANDS, pol=pol_draws, policies=(pol, "default"), **ARMIES)
    assert b.script_left == 0
    assert sum(b.retreated.values()) == (0 if forbid else 4)
    assert b.outcome == (Outcome.TRUNCATED if forbid else Outcome.VIKINGS_RETREAT)


FORBIDS = [
    ({"runes_prayer": True}, ("greedy(forbid=ragnarok+omens_of_victory)",
                              "greedy(forbid=defend_the_faith+faith_in_victory)")),
    ({"runes_prayer": True, "epic_card": "traitors"},
     ("random(forbid=runes+retreat)", "random(forbid=convert)")),
    ({"runes_prayer": True, "fyrd": 3}, ("smart(forbid=battle_rage)", "smart(forbid=prayer)")),
    ({}, ("retreat(forbid=retreat)", "retreat(threshold=0.9)")),
]


@pytest.mark.parametrize("options, policies", FORBIDS)
def test_kernel_matches_reference_with_forbids(options, policies):
    fast = simulate(GAME, 1500, seed=21, options=options, policies=list(policies), threads=1)
    slow = simulate(GAME, 1500, seed=21, options=options, policies=list(policies), threads=1,
                    reference=True)
    for key in fast.out:
        np.testing.assert_array_equal(fast.out[key], slow.out[key], err_msg=key)


@pytest.mark.parametrize("options, plain, restricted", [
    ({"runes_prayer": True}, ("greedy", "greedy"),
     ("greedy(forbid=prayer+gods_peace)", "greedy(forbid=runes+battle_rage+retreat)")),
    ({"runes_prayer": True}, ("default", "smart"), ("default(forbid=runes+retreat)", "smart")),
    ({"runes_prayer": True}, ("random", "random"),
     ("random(forbid=convert+gods_peace+faith_in_victory)", "random(forbid=omens_of_victory)")),
    ({}, ("retreat", "default"), ("retreat", "default(forbid=retreat)")),
])
def test_forbidding_what_a_side_never_uses_changes_nothing(options, plain, restricted):
    # each forbidden element is the other side's choice (runes for the English, convert for
    # the Vikings, ...) or one the policy never makes (greedy, default and smart never
    # retreat; default never rolls Runes)
    a = simulate(GAME, 4000, seed=5, options=options, policies=list(plain), threads=1)
    b = simulate(GAME, 4000, seed=5, options=options, policies=list(restricted), threads=1)
    for key in a.out:
        np.testing.assert_array_equal(a.out[key], b.out[key], err_msg=key)


def test_a_forbidden_element_changes_the_battles():
    o = {"runes_prayer": True}
    a = simulate(GAME, 20_000, seed=5, options=o, policies=["greedy", "greedy"], threads=1)
    b = simulate(GAME, 20_000, seed=5, options=o, policies=["greedy", "greedy(forbid=prayer)"],
                 threads=1)
    assert a.summary["mean_prayer_rolled"] > 0 and b.summary["mean_prayer_rolled"] == 0
    assert b.summary["policies"][1] == "greedy(forbid=prayer)"


def test_elements_follow_the_setup():
    assert GAME.elements(make_setup({}, ["default", "default"])) == ("retreat",)
    full = GAME.elements(make_setup({"runes_prayer": True}, ["default", "default"]))
    assert full == ELEMENT_NAMES
    some = GAME.elements(make_setup({"runes_prayer": True, "reserve_berserkers": 0,
                                     "gods_peace_exit": False}, ["default", "default"]))
    assert "battle_rage" not in some and "gods_peace" not in some and "runes" in some
    _, params = compile_policies(["greedy(forbid=runes+retreat)", "smart"])
    assert params[0, PolicyParam.FORBID] == 0b11 and params[1, PolicyParam.FORBID] == 0


@pytest.mark.parametrize("options, text, match", [
    ({}, "greedy(forbid=runes)", "valid: retreat$"),             # no Runes without the option
    ({"runes_prayer": True}, "smart(forbid=runez)", "unknown element 'runez'"),
    ({"runes_prayer": True, "gods_peace_exit": False}, "greedy(forbid=gods_peace)",
     "unknown element 'gods_peace'"),
])
def test_unknown_elements_are_refused(options, text, match):
    with pytest.raises(InputError, match=match):
        make_setup(options, [text, "default"])


def test_unknown_element_is_one_line_and_exit_2(cli):
    p = cli("simulate", "battle878", "-n", "10", "--policy", "greedy(forbid=nope)", "default")
    assert p.returncode == 2
    assert len(p.stderr.strip().splitlines()) == 1 and "nope" in p.stderr
    assert "Traceback" not in p.stderr
