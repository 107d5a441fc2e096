"""battle878 invariants over many random battles, every policy and many option combos.

Units are conserved (start + joined = alive + dead + fled + retreated + left), every battle
has exactly one outcome, counts are never negative, wins match who is left standing.
"""
import numpy as np
import pytest

from vikingsim.core.runner import simulate
from vikingsim.games.battle878 import GAME
from vikingsim.games.battle878.rules import Outcome

COMBOS = [
    {},
    {"fort": 1, "ragnar": True, "northumbria": True, "fyrd": 2},
    {"settlement": 1, "attacker": "english", "raven_banner": True},
    {"runes_prayer": True, "fyrd_card": True, "epic_deck": 3},
    {"runes_prayer": True, "epic_card": "traitors", "arm_ring": True},
    {"epic_card": "reinforcements", "edmunds_faith": True, "military_reform": True},
    {"epic_card": "foul_weather", "linen_clothes": "both", "command_moves_fyrd": True,
     "fyrd": 3},
    {"epic_card": "single_combat", "christians_wrath": True, "lagertha": True},
    {"epic_card": "epic_battle", "adj_norsemen": 3, "adj_thegns": 2, "runes_prayer": True},
    {"epic_card": "disorganized_combat", "berserker_flee_faces": 2, "fort": 1},
]
POLICIES = [("default", "default"), ("greedy", "greedy"), ("smart", "smart"),
            ("retreat", "retreat"), ("random", "random"), ("runes_smart", "prayer_smart"),
            ("cautious", "greedy")]


@pytest.mark.parametrize("options", COMBOS)
@pytest.mark.parametrize("policies", POLICIES)
def test_invariants(options, policies):
    r = simulate(GAME, 6000, seed=17, options=options, policies=list(policies), threads=1)
    o = r.out
    start = r.setup.start[None, :]
    total_in = start + o["joined"].astype(np.int64)
    total_out = (o["alive"].astype(np.int64) + o["dead"] + o["fled"] + o["retreated"]
                 + o["left"])
    np.testing.assert_array_equal(total_in, total_out)
    for key in ("alive", "dead", "fled", "retreated", "joined", "left", "effects"):
        assert (o[key] >= 0).all(), key
    assert ((o["outcome"] >= 0) & (o["outcome"] <= int(Outcome.TRUNCATED))).all()
    s = r.summary
    total = sum(s[f"p_{k}"] for k in ("vikings_win", "english_win", "both_eliminated",
                                       "gods_peace", "vikings_retreat", "english_retreat",
                                       "truncated"))
    assert abs(total - 1.0) < 1e-12
    owners = np.array([0, 0, 1, 1, 1, 0])
    alive = o["alive"].astype(np.int64)
    trait = o["traitor"]
    own = np.tile(owners, (len(trait), 1))
    rows = np.nonzero(trait >= 0)[0]
    own[rows, trait[rows]] = 1 - own[rows, trait[rows]]
    v_alive = (alive * (own == 0)).sum(1) + o["structure"]
    e_alive = (alive * (own == 1)).sum(1)
    out = o["outcome"]
    assert (v_alive[out == Outcome.VIKINGS_WIN] > 0).all()
    assert (e_alive[out == Outcome.VIKINGS_WIN] == 0).all()
    assert (v_alive[out == Outcome.ENGLISH_WIN] == 0).all()
    assert (e_alive[out == Outcome.ENGLISH_WIN] > 0).all()
    assert (v_alive[out == Outcome.BOTH_ELIMINATED] == 0).all()
    assert (e_alive[out == Outcome.BOTH_ELIMINATED] == 0).all()
    assert (v_alive[out == Outcome.GODS_PEACE] > 0).all()
    assert (o["structure"] >= 0).all()
    # Valhalla flag equals the death count rule (SEED §6.2)
    df = r.frame
    assert ((df["dead_norsemen"] + df["dead_berserkers"] >= 8) == df["valhalla_glory"]).all()
    assert df["game_id"].tolist()[:3] == [0, 1, 2]
