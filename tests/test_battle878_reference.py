"""battle878: the compiled kernel equals the plain-Python reference bit for bit.

Each case runs a few thousand battles (one or two RNG blocks) on both engines with the same
seed and compares every output array exactly; the cases cover every option and policy.
"""
import numpy as np
import pytest

from vikingsim.core.runner import simulate
from vikingsim.games.battle878 import GAME

CASES = [
    ({}, ("default", "default")),
    ({"fort": 1, "ragnar": True, "northumbria": True}, ("default", "default")),
    ({"settlement": 1, "attacker": "english", "fyrd": 3}, ("never", "never")),
    ({"seidr": True, "first_roller": "attacker", "berserker_flee_faces": 1}, ("default", "default")),
    ({"faces": "T=HHHFCB", "max_dice": "N=4,T=2", "lagertha": True}, ("default", "default")),
    ({"edmunds_faith": True}, ("default", "default")),
    ({"edmunds_faith": True, "edmunds_faith_side": "vikings", "ragnar": True}, ("default", "default")),
    ({"military_reform": True}, ("default", "default")),
    ({"military_reform": True, "attacker": "english", "reform_unit": "thegns"}, ("default", "default")),
    ({"raven_banner": True, "fort": 1}, ("default", "default")),
    ({"arm_ring": True, "christians_wrath": True}, ("default", "default")),
    ({"edmunds_martyrdom": True, "attacker": "english", "fyrd_card": True, "epic_deck": 3},
     ("default", "default")),
    ({"christians_wrath": True, "epic_deck": 8}, ("random", "random")),
    ({"epic_card": "disorganized_combat"}, ("default", "default")),
    ({"epic_card": "epic_battle", "adj_norsemen": 2, "adj_thegns": 3}, ("default", "default")),
    ({"epic_card": "faith", "northumbria": True}, ("default", "default")),
    ({"epic_card": "faith", "northumbria": True, "faith_counts_ignored_flee": True},
     ("default", "default")),
    ({"epic_card": "foul_weather", "runes_prayer": True}, ("greedy", "greedy")),
    ({"epic_card": "reinforcements", "fyrd": 2}, ("default", "default")),
    ({"epic_card": "single_combat"}, ("default", "default")),
    ({"epic_card": "traitors"}, ("default", "default")),
    ({"epic_card": "traitors", "attacker": "english", "fort": 1}, ("random", "random")),
    ({"epic_card": "traitors", "attacker": "english", "norsemen": 2, "berserkers": 1,
      "housecarls": 2, "thegns": 6}, ("default", "default")),
    ({"epic_card": "traitors", "attacker": "english", "norsemen": 3, "thegns": 6},
     ("retreat", "random")),
    ({"epic_deck": 8, "christians_wrath": True, "edmunds_martyrdom": True, "attacker": "english",
      "fyrd_card": True}, ("default", "default")),
    ({"berserker_first_hit_scope": "first_casualty", "ragnar": True, "fort": 1},
     ("default", "default")),
    ({"berserker_first_hit_scope": "first_casualty", "epic_card": "foul_weather",
      "attacker": "english", "housecarls": 1, "thegns": 2}, ("default", "default")),
    ({"epic_card": "foul_weather", "runes_prayer": True, "martyrdom_blocks_bank": False},
     ("greedy", "greedy")),
    ({"runes_prayer": True}, ("greedy", "greedy")),
    ({"runes_prayer": True, "fyrd": 4}, ("smart", "smart")),
    ({"runes_prayer": True, "fyrd": 2}, ("runes_smart", "greedy")),
    ({"runes_prayer": True, "fyrd": 2, "runes_dice": 2}, ("greedy", "prayer_smart")),
    ({"runes_prayer": True, "norsemen": 10, "thegns": 6}, ("cautious", "smart")),
    ({"runes_prayer": True, "gods_peace_exit": False}, ("greedy", "greedy")),
    ({"runes_prayer": True, "ragnar": True, "epic_card": "faith"}, ("random", "random")),
    ({"runes_prayer": True, "fort": 1, "northumbria": True}, ("retreat", "greedy")),
    ({}, ("retreat", "retreat")),
    ({"linen_clothes": "both", "fyrd": 3, "command_moves_fyrd": True}, ("retreat", "retreat")),
    ({"linen_clothes": "vikings", "norsemen": 3, "thegns": 8}, ("retreat", "default")),
    ({"max_rolls": 3}, ("default", "default")),
    ({"faces": "N=CCCCCC,B=CCCCCC,H=CCCCCC,T=CCCCCC,F=BBBBBB", "max_rolls": 50},
     ("default", "default")),
    ({"norsemen": 20, "berserkers": 8, "housecarls": 10, "thegns": 12, "fyrd": 5,
      "runes_prayer": True, "epic_deck": 3, "christians_wrath": True, "arm_ring": True,
      "raven_banner": True, "northumbria": True, "ragnar": True, "edmunds_faith": True,
      "military_reform": True, "fort": 1}, ("random", "random")),
]


@pytest.mark.parametrize("options,policies", CASES)
def test_kernel_matches_reference_bit_for_bit(options, policies):
    n = 3000 if policies == ("default", "default") and len(options) <= 1 else 1500
    fast = simulate(GAME, n, seed=11, options=options, policies=list(policies), threads=1)
    slow = simulate(GAME, n, seed=11, options=options, policies=list(policies), threads=1,
                    reference=True)
    for key in fast.out:
        np.testing.assert_array_equal(fast.out[key], slow.out[key], err_msg=key)


@pytest.mark.parametrize("field, value", [("omens_cost", 2), ("battle_rage_cost", 1),
                                          ("convert_cost", 1), ("reserve_berserkers", 1)])
def test_rules_fields_without_an_option_bit_for_bit(field, value):
    """Rules fields that no option sets (SEED §4.3-4.4 effect costs) reach both engines too."""
    from dataclasses import replace

    from vikingsim.core import rng
    from vikingsim.games.battle878 import allocate, make_setup, play_block, reference_block
    base = make_setup({"runes_prayer": True}, ["greedy", "smart"])
    rules = replace(base.rules, **{field: value})
    setup = replace(base, rules=rules, compiled=rules.compile())
    outs = []
    for run in (play_block, reference_block):
        out = allocate(setup, 1500)
        run(setup, 0, 1500, rng.block_generator(3, rng.STREAM_DICE, 0),
            rng.block_generator(3, rng.STREAM_POLICY, 0), out)
        outs.append(out)
    for key in outs[0]:
        np.testing.assert_array_equal(outs[0][key], outs[1][key], err_msg=key)


def test_thread_count_does_not_change_results():
    a = simulate(GAME, 20_000, seed=5, threads=1, options={"runes_prayer": True},
                 policies=["greedy", "greedy"])
    b = simulate(GAME, 20_000, seed=5, threads=2, options={"runes_prayer": True},
                 policies=["greedy", "greedy"])
    for key in a.out:
        np.testing.assert_array_equal(a.out[key], b.out[key], err_msg=key)


@pytest.mark.parametrize("options", [{}, {"fort": 1, "ragnar": True, "northumbria": True},
                                     {"settlement": 1, "attacker": "english", "fyrd": 2}])
def test_base_hot_path_equals_general_kernel(options):
    """runes_prayer with default policies rolls no Runes/Prayer dice, so it is the base battle
    but runs the general kernel ``_battle`` instead of ``_battle_base``: same arrays."""
    fast = simulate(GAME, 20_000, seed=4, options=options, threads=1)
    general = simulate(GAME, 20_000, seed=4, options={**options, "runes_prayer": True},
                       threads=1)
    for key in fast.out:
        np.testing.assert_array_equal(fast.out[key], general.out[key], err_msg=key)


@pytest.mark.parametrize("options, policies", [
    ({}, "default"),
    ({"runes_prayer": True, "epic_deck": 3, "christians_wrath": True}, "random")])
def test_trace_tells_the_battle_simulate_plays(options, policies):
    """``trace(setup, seed, game_id)`` replays the block's earlier battles first, so it tells
    battle ``game_id`` of the run: same outcome and rolls, in block 0 and in block 1."""
    from vikingsim.games.battle878.rules import Outcome

    n = GAME.block_games + 10
    r = simulate(GAME, n, seed=7, options=options, policies=policies, threads=1)
    for g in (0, 9, GAME.block_games + 4):
        lines = GAME.trace(r.setup, 7, g).splitlines()
        assert lines[0].startswith(f"battle878 game {g} of seed 7")
        outcome, rolls = Outcome(int(r.out["outcome"][g])).name, int(r.out["rolls"][g])
        assert lines[-1].startswith(f"End: {outcome} after {rolls} rolls"), (g, lines[-1])
