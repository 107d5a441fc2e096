"""The compiled raid board kernel against the plain-Python reference, bit for bit (style
rule 11.2), and seeds that differ give different games. Thread count, scheduling chunk and
prefix are checked for every game by tests/test_registry.py, JIT off by test_contract_jit.py."""
import numpy as np
import pytest

from vikingsim.core.runner import simulate


def _same(a, b):
    for key in a.out:
        np.testing.assert_array_equal(a.out[key], b.out[key], err_msg=key)


@pytest.mark.parametrize("players, policies, options", [
    (4, ["greedy"], {}),
    (2, ["random"], {}),
    (3, ["lookahead", "greedy", "random"], {}),
    (6, ["greedy", "lookahead"] * 3, {"variant": "ends-of-earth"}),
    (8, ["random"], {"variant": "ends-of-earth"}),
    (5, ["lookahead"], {"sea_resolves_new_space": False, "gold_floor": -50,
                        "miss_turn_skips_income": False}),
    (4, ["greedy", "random", "lookahead", "greedy"],
     {"settlement_supply": 2, "north_opponent_settlement_raidable": False, "first_seat": 2,
      "mercenary_stops_on_destruction": False, "exploration_resolves_sea": False}),
    (3, ["greedy"], {"max_rounds": 3}),                            # truncation path
    (4, ["greedy", "lookahead"] * 2, {"seat_gold_step": 3}),      # §4.4 designer variant
])
def test_kernel_matches_reference_bit_for_bit(players, policies, options):
    # 5,000 games span two RNG blocks (4,096 each) so the block seeding is covered too.
    kw = dict(n=5000, seed=11, players=players, policies=policies, options=options, threads=2)
    _same(simulate("raidboard", **kw), simulate("raidboard", reference=True, **kw))


def test_different_seeds_differ():
    a, b = (simulate("raidboard", n=2000, seed=s) for s in (1, 2))
    assert not np.array_equal(a.out["gold"], b.out["gold"])


def test_policies_share_dice_stream_common_random_numbers():
    # Seats' policies only act on Exploration/Lost; games where no seat ever made a choice
    # must be identical under greedy and random (dice stream shared, policy stream separate).
    a = simulate("raidboard", n=3000, seed=3, policies="greedy", players=2)
    b = simulate("raidboard", n=3000, seed=3, policies="random", players=2)
    same = (a.out["winner"] == b.out["winner"]).mean()
    assert 0.3 < same < 1.0
