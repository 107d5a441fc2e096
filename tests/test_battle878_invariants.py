"""battle878 invariants over many random battles, every policy and many option combos.

``battle878.invariants.invariants`` (also ``GAME.invariants``) checks that units are conserved
(start + joined = alive + dead + fled + retreated + left), every battle has exactly one known
outcome, counts are never negative, wins match who is left standing, truncation and the
Fort/Settlement stay in bounds; ``test_invariants_catch_broken_battles`` shows each check fires.
"""
import numpy as np
import pytest

from vikingsim.core.runner import simulate
from vikingsim.games.battle878 import GAME
from vikingsim.games.battle878.invariants import invariants
from vikingsim.games.battle878.rules import OUTCOME_KEYS, Outcome, Unit

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
    assert invariants(r.setup, r.out) == []
    s = r.summary
    assert abs(sum(s[f"p_{k}"] for k in OUTCOME_KEYS) - 1.0) < 1e-12
    # Valhalla flag equals the death count rule (SEED §6.2)
    df = r.frame
    assert ((df["dead_norsemen"] + df["dead_berserkers"] >= 8) == df["valhalla_glory"]).all()
    assert df["game_id"].tolist()[:3] == [0, 1, 2]
    assert (df["truncated"] == (df["outcome"] == "truncated")).all()


def _broken(change):
    """Invariant messages after ``change(out, setup)`` breaks sound arrays of 400 battles."""
    r = simulate(GAME, 400, seed=3, options={"fort": 1, "epic_card": "traitors"},
                 policies=["retreat", "random"], threads=1)
    out = {k: v.copy() for k, v in r.out.items()}
    assert invariants(r.setup, out) == []
    change(out, r.setup)
    return " / ".join(invariants(r.setup, out))


def _first(out, outcome):
    return int(np.nonzero(out["outcome"] == outcome)[0][0])


@pytest.mark.parametrize("change, message", [
    (lambda o, s: o["dead"].__setitem__((0, Unit.NORSEMEN), o["dead"][0, Unit.NORSEMEN] + 1),
     "not conserved"),
    (lambda o, s: o["fled"].__setitem__((1, Unit.THEGN), -1), "negative fled"),
    (lambda o, s: o["outcome"].__setitem__(2, 9), "unknown outcome"),
    (lambda o, s: o["outcome"].__setitem__(_first(o, Outcome.VIKINGS_WIN), Outcome.ENGLISH_WIN),
     "english_win but the survivors"),
    (lambda o, s: o["outcome"].__setitem__(_first(o, Outcome.VIKINGS_WIN), Outcome.TRUNCATED),
     "truncated before max_rolls"),
    (lambda o, s: o["structure"].__setitem__(0, 2), "Fort/Settlement Hits outside"),
    (lambda o, s: (o["traitor"].__setitem__(0, 2), o["epic"].__setitem__(0, 0)),
     "without the Traitors card"),
])
def test_invariants_catch_broken_battles(change, message):
    assert message in _broken(change)
