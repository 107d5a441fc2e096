"""Ravenfeast profiles and rule readings as data (rules notes ravenfeast.md §11-§13)."""
from dataclasses import replace

import numpy as np
import pytest

from vikingsim.core.errors import InputError
from vikingsim.games.ravenfeast.profiles import (PREDEFINED, PRICES, PROFILES, Profile, Stat,
                                                 compile_profile, compile_profiles, get_profile,
                                                 price, profile_table, wounds_for)
from vikingsim.games.ravenfeast.rules import Rules

SEED_POINTS = {"jarl": 75, "huskarl": 36, "berserker": 30, "hirdmen": 18, "bondi": 12,
               "thrall": 9}                                        # §11.2 SEED


def test_predefined_types_carry_the_seed_points():
    assert PREDEFINED == tuple(SEED_POINTS)
    for k, pts in SEED_POINTS.items():
        assert PROFILES[k].points == pts


@pytest.mark.parametrize("key", PREDEFINED)
def test_default_price_model_reproduces_the_seed_costs(key):     # §12.3 check
    assert price(PROFILES[key]) == pytest.approx(SEED_POINTS[key])


def test_seed_price_anchors():                                    # §11.3
    base = Profile("x", 0, attacks=1, melee=0, armor=0, morale=0)
    assert price(replace(base, melee=4)) - price(base) == 8           # Melee 4 = 8 per attack
    assert price(replace(base, missile=3, weapon="bow")) - price(base) == 9
    assert price(replace(base, move=8)) - price(base) == 2
    assert price(replace(base, mighty=True)) - price(base) == 5
    assert price(replace(base, fearless=True)) - price(base) == 15
    assert price(PROFILES["bondi_archer"]) == 21                     # §12.2 option


def test_tough_is_seed_and_ratings_are_marked_assumed():
    assert PROFILES["jarl"].tough == 3 and PROFILES["huskarl"].tough == 2   # §7.2 SEED
    for k in PREDEFINED:
        assert {"melee", "armor", "morale", "attacks"} <= set(PROFILES[k].assumed)


def test_wounds_for_readings():
    assert [wounds_for(t) for t in (0, 1, 2, 3)] == [1, 1, 2, 3]
    assert [wounds_for(t, "extra_wounds") for t in (0, 1, 2, 3)] == [1, 2, 3, 4]
    with pytest.raises(InputError):
        wounds_for(2, "bonus")


def test_compile_profile_row_and_overrides():
    row = compile_profile("Jarl")
    assert row.dtype == np.int64 and row.shape == (len(Stat),)
    assert (row[Stat.ATTACKS], row[Stat.MELEE], row[Stat.ARMOR], row[Stat.WOUNDS]) == (2, 5, 4, 3)
    assert row[Stat.MIGHTY] == 1 and row[Stat.LEADER] == 1 and row[Stat.FATED] == 0
    row = compile_profile("jarl", {"armor": 3, "mighty": False, "wounds": 5, "fated": True})
    assert (row[Stat.ARMOR], row[Stat.MIGHTY], row[Stat.WOUNDS], row[Stat.FATED]) == (3, 0, 5, 1)
    assert compile_profile("huskarl", {"tough": 4})[Stat.WOUNDS] == 4
    assert compile_profile("bondi_archer")[Stat.RANGE] == 18
    rows = compile_profiles(["jarl", "thrall"], [None, {"melee": 1}])
    assert rows.shape == (2, len(Stat)) and rows[1, Stat.MELEE] == 1


def test_bad_profiles_and_overrides_raise():
    with pytest.raises(InputError, match="unknown unit type"):
        get_profile("troll")
    with pytest.raises(InputError, match="unknown profile override"):
        compile_profile("jarl", {"strength": 3})
    with pytest.raises(InputError):
        compile_profile("jarl", {"melee": 6})
    with pytest.raises(InputError):
        compile_profile("jarl", {"wounds": 0})


def test_rules_validate_their_readings():
    with pytest.raises(InputError):
        Rules(tough_reading="bonus")
    with pytest.raises(InputError):
        Rules(free_attack_trigger="any")
    with pytest.raises(InputError):
        Rules(max_turns=0)
    with pytest.raises(InputError):
        replace(Rules(), shield_wall_cap="never")


def test_profile_table_lists_model_and_seed_points():
    df = profile_table()
    assert set(PREDEFINED) <= set(df["key"])
    six = df[df["key"].isin(PREDEFINED)]
    np.testing.assert_allclose(six["model_points"], six["points"])
    assert PRICES.melee_per_level_per_attack == 2
