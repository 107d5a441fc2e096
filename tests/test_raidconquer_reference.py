"""Kernel = reference, bit for bit, over policies, player counts and options (JIT off = on:
tests/test_contract_jit.py; notes ``raidconquer.md`` §14: both engines follow the Simulation protocol)."""
from __future__ import annotations

import numpy as np
import pytest

from vikingsim.core.runner import simulate
from vikingsim.games import raidconquer as rc

KEEPERS = ["hints(keep_in_winter=2)", "raider(keep_in_winter=5)", "random",
           "burier(keep_in_winter=1)"]
CASES = [
    (4, ["hints"], {}),
    (4, ["raider", "earl", "hints", "random"], {"first_seat": 2}),
    (5, ["burier", "attacker", "big-money", "random", "earl"], {}),
    (2, ["random", "burier"], {"acquire_payment": "exact", "chaotic_party": "all_choosers",
                               "pillage_treasures": True}),
    # the earlier readings of §13.2, §13.3, §13.5, §13.12-§13.14 (issue 18), 2 and 4 players
    (2, ["earl", "hints(sacrifice_max_cost=5)"], {
        "defend_includes_base_power": True, "score_cards_in_play": True,
        "acquire_payment": "at_least", "earl_marker_resets": True,
        "two_player_alliances": True, "sacrifice_any_card": False}),
    (4, ["burier", "earl", "hints(sacrifice_max_cost=4)", "random"], {
        "defend_includes_base_power": True, "score_cards_in_play": True,
        "acquire_payment": "at_least", "earl_marker_resets": True}),
    (2, ["earl", "burier(sacrifice_max_cost=0)"], {"first_seat": 1}),
    (3, ["attacker", "attacker", "raider"],
     {"card_defense_counts": "always", "defend_includes_base_power": True,
      "base_power_per_raider": False, "failed_raid_tie": "rightmost",
      "final_tie": "seat_order", "attack_character_replaces": False,
      "score_cards_in_play": True, "rotate_characters": True, "character_offset": 2,
      "end_condition": "epic", "setup_hand_is_round1_hand": False,
      "earl_marker_resets": False, "acquire_refills_row": False,
      "shipbuild_longboat_counts": False}),
    (4, ["hints", "earl"] * 2, {"start_card": "lagertha:Berserker", "rotate_characters": True}),
    (4, ["random"], {"end_condition": "lightning", "ragnar_base_attack": 4,
                     "floki_base_defense": 8, "hand_size": 6, "winter_rounds": 2}),
    # §7.2, §13.8: cards kept back in Winter, the Draw fills the hand up to hand_size
    (4, KEEPERS, {"play_all_cards": False}),
    (3, ["hints(keep_in_winter=2)", "earl(keep_in_winter=3)", "random"],
     {"play_all_cards": False, "winter_rounds": 7, "hand_size": 6,
      "setup_hand_is_round1_hand": False}),
]


@pytest.mark.parametrize("players, policies, options", CASES)
def test_kernel_equals_reference(players, policies, options):
    a = simulate("raidconquer", 150, seed=11, players=players, policies=policies,
                 options=options)
    b = simulate("raidconquer", 150, seed=11, players=players, policies=policies,
                 options=options, reference=True)
    for key in a.out:
        np.testing.assert_array_equal(a.out[key], b.out[key], err_msg=key)


def test_keeping_cards_changes_the_games():
    """The keep_in_winter path is exercised: the same seats with play_all_cards = true (the
    policy then keeps nothing) play other games; keep_in_winter = 0 with play_all_cards =
    false plays exactly the DEFAULT games (nothing is kept, the Draw tops up from 0)."""
    kw = dict(seed=11, players=4)
    keep = simulate("raidconquer", 150, policies=KEEPERS, options={"play_all_cards": False},
                    **kw)
    every = simulate("raidconquer", 150, policies=KEEPERS, options={}, **kw)
    assert any(not np.array_equal(keep.out[k], every.out[k]) for k in keep.out)
    plain = ["hints", "raider", "random", "burier"]
    a = simulate("raidconquer", 150, policies=plain, options={"play_all_cards": False}, **kw)
    b = simulate("raidconquer", 150, policies=plain, options={}, **kw)
    for key in a.out:
        np.testing.assert_array_equal(a.out[key], b.out[key], err_msg=key)


def test_frame_has_character_and_policy_per_seat():
    r = rc.simulate(200, players=4, policies=["raider", "earl", "hints", "hints"], seed=2,
                    rotate_characters=True)
    f = r.frame
    assert list(f["character_0"].cat.categories) == list(rc.CHARACTERS)
    assert (f["policy_1"] == "earl").all()
    # rotation: game g seats character (i + g) mod 5 at seat i
    assert (f["character_0"].cat.codes.to_numpy() == np.arange(200) % 5).all()
    s = r.summary
    assert set(s["win_rate_by_character"]) == set(rc.CHARACTERS)
    assert s["win_rate_by_policy"]["hints"]["seats"] == 400
    assert sum(s["win_rate"]) + s["p_truncated"] == pytest.approx(1.0)
