"""Ravenfeast ratings and unit profiles against hand-typed tables (rules notes ravenfeast.md §2.2,
§6.2, §8.3, §11.2, §12.2, §7.2).

Every expected number below was typed by hand from the rules notes, not computed from the code:
the kernels' rating helpers (``rules.melee_rating`` / ``rules.armor_rating``), the tables they
compile (duel setup, warband ``melt`` / ``armt``) and the references' own readings
(``duel.reference.modified_melee`` / ``modified_armor``, the warband reference's roster) are all
checked against the same grid, so a misreading shared by kernel and reference fails here.
"""
from __future__ import annotations

import pytest

from vikingsim.games.ravenfeast import duel_setup
from vikingsim.games.ravenfeast.duel import reference as dref
from vikingsim.games.ravenfeast.profiles import PROFILES, Stat, compile_profile
from vikingsim.games.ravenfeast.rules import Rules, Stance, armor_rating, melee_rating
from vikingsim.games.ravenfeast.warband import reference as wref
from vikingsim.games.ravenfeast.warband.rules import FigCol, WarbandRules, compile_setup
from vikingsim.games.ravenfeast.warbands import make_warband

T, F = True, False

# Melee (§6.2, §8.3, §2.2): -1 uphill/obstacle; -1 engaged by several enemies unless in a shield
# wall; clamped to 0..5.
# (melee, outnumbered, wall, uphill, expected)
MELEE_GRID = [
    (5, F, F, F, 5), (5, T, F, F, 4), (5, F, T, F, 5), (5, T, T, F, 5),
    (5, F, F, T, 4), (5, T, F, T, 3), (5, F, T, T, 4), (5, T, T, T, 4),
    (4, F, F, F, 4), (4, T, F, F, 3), (4, F, T, F, 4), (4, T, T, F, 4),
    (4, F, F, T, 3), (4, T, F, T, 2), (4, F, T, T, 3), (4, T, T, T, 3),
    (2, F, F, F, 2), (2, T, F, F, 1), (2, F, T, F, 2), (2, T, T, F, 2),
    (2, F, F, T, 1), (2, T, F, T, 0), (2, F, T, T, 1), (2, T, T, T, 1),
    (1, F, F, F, 1), (1, T, F, F, 0), (1, F, T, F, 1), (1, T, T, F, 1),
    (1, F, F, T, 0), (1, T, F, T, 0), (1, F, T, T, 0), (1, T, T, T, 0),   # 1-1-1 clamps to 0
]

# Armor (§6.2, §8.3, §2.2): shield wall +2, max 5, no bonus against the rear; rear -1; Mighty
# attacker -1; clamped to 0..5. The wall cap before Mighty (DEFAULT) or after it.
# (armor, wall, rear, mighty, expected before_mighty, expected after_mighty)
ARMOR_GRID = [
    (5, F, F, F, 5, 5), (5, T, F, F, 5, 5), (5, F, T, F, 4, 4), (5, T, T, F, 4, 4),
    (5, F, F, T, 4, 4), (5, T, F, T, 4, 5), (5, F, T, T, 3, 3), (5, T, T, T, 3, 3),
    (4, F, F, F, 4, 4), (4, T, F, F, 5, 5), (4, F, T, F, 3, 3), (4, T, T, F, 3, 3),
    (4, F, F, T, 3, 3), (4, T, F, T, 4, 5), (4, F, T, T, 2, 2), (4, T, T, T, 2, 2),
    (3, F, F, F, 3, 3), (3, T, F, F, 5, 5), (3, F, T, F, 2, 2), (3, T, T, F, 2, 2),
    (3, F, F, T, 2, 2), (3, T, F, T, 4, 4), (3, F, T, T, 1, 1), (3, T, T, T, 1, 1),
    (2, F, F, F, 2, 2), (2, T, F, F, 4, 4), (2, F, T, F, 1, 1), (2, T, T, F, 1, 1),
    (2, F, F, T, 1, 1), (2, T, F, T, 3, 3), (2, F, T, T, 0, 0), (2, T, T, T, 0, 0),
    (1, F, F, F, 1, 1), (1, T, F, F, 3, 3), (1, F, T, F, 0, 0), (1, T, T, F, 0, 0),
    (1, F, F, T, 0, 0), (1, T, F, T, 2, 2), (1, F, T, T, 0, 0), (1, T, T, T, 0, 0),
]

# Variants of the readings, typed by hand: (rules kwargs, armor, wall, rear, mighty, expected).
ARMOR_VARIANTS = [
    ({"rating_clamp": False}, 1, F, T, T, -1),         # 1 - 1 - 1, no clamp
    ({"rating_clamp": False}, 1, T, T, T, -1),         # the rear blow gets no wall bonus
    ({"rating_clamp": False}, 5, T, F, F, 5),          # the wall's own max 5 still holds
    ({"mighty_armor_mod": 2}, 3, F, F, T, 1),
    ({"mighty_armor_mod": 2}, 4, T, F, T, 3),          # min(6, 5) - 2
    ({"mighty_armor_mod": 2, "shield_wall_cap": "after_mighty"}, 4, T, F, T, 4),  # min(4, 5)
    ({"mighty_armor_mod": 0}, 4, T, F, T, 5),          # Mighty worth nothing: wall 5
    ({"shield_wall_armor_max": 6}, 5, T, F, F, 5),     # min(7, 6) = 6, clamped to 5 (§2.2)
    ({"shield_wall_armor_max": 6}, 4, T, F, F, 5),     # 6, clamped to 5
    ({"shield_wall_armor_max": 6, "rating_clamp": False}, 5, T, F, F, 6),   # no clamp: 6
    ({"shield_wall_armor_max": 6}, 5, T, F, T, 5),     # min(7, 6) - 1 = 5
]
MELEE_VARIANTS = [
    ({"rating_clamp": False}, 1, T, F, T, -1),         # 1 - 1 - 1, no clamp
    ({"rating_clamp": False}, 5, F, T, F, 5),
]


def _stance(out=F, wall=F, uphill=F, rear=F):
    return Stance(rear=rear, shield_wall=wall, outnumbered=out, uphill=uphill)


@pytest.mark.parametrize("melee, out, wall, uphill, want", MELEE_GRID)
def test_melee_grid_kernel_helper_and_reference(melee, out, wall, uphill, want):
    r = Rules()
    assert melee_rating(melee, _stance(out, wall, uphill), r) == want
    assert dref.modified_melee(melee, r, outnumbered=out, wall=wall, uphill=uphill) == want


@pytest.mark.parametrize("armor, wall, rear, mighty, before, after", ARMOR_GRID)
def test_armor_grid_kernel_helper_and_reference(armor, wall, rear, mighty, before, after):
    for cap, want in (("before_mighty", before), ("after_mighty", after)):
        r = Rules(shield_wall_cap=cap)
        assert armor_rating(armor, _stance(wall=wall, rear=rear), mighty, r) == want, cap
        assert dref.modified_armor(armor, r, wall=wall, rear=rear, mighty=mighty) == want, cap


@pytest.mark.parametrize("kw, armor, wall, rear, mighty, want", ARMOR_VARIANTS)
def test_armor_reading_variants(kw, armor, wall, rear, mighty, want):
    r = Rules(**kw)
    assert armor_rating(armor, _stance(wall=wall, rear=rear), mighty, r) == want
    assert dref.modified_armor(armor, r, wall=wall, rear=rear, mighty=mighty) == want


@pytest.mark.parametrize("kw, melee, out, wall, uphill, want", MELEE_VARIANTS)
def test_melee_reading_variants(kw, melee, out, wall, uphill, want):
    r = Rules(**kw)
    assert melee_rating(melee, _stance(out, wall, uphill), r) == want
    assert dref.modified_melee(melee, r, outnumbered=out, wall=wall, uphill=uphill) == want


@pytest.mark.parametrize("cap", ["before_mighty", "after_mighty"])
def test_duel_setup_and_its_reference_follow_the_grid(cap):
    """The duel kernel's numbers (``DuelSetup.melee``/``armor``) and the duel reference's
    duellists, for figure A in every stance of the grid (B is Mighty or not)."""
    for armor, wall, rear, mighty, before, after in ARMOR_GRID:
        opts = {"a": "hirdmen", "b": "hirdmen", "a_armor": armor, "a_shield_wall": wall,
                "a_rear": rear, "b_mighty": "true" if mighty else "false",
                "shield_wall_cap": cap}
        s = duel_setup(opts)
        want = before if cap == "before_mighty" else after
        assert s.armor[0] == want and dref.duellists(s)[0].armor == want, opts
    for melee, out, wall, uphill, want in MELEE_GRID:
        opts = {"a": "hirdmen", "a_melee": melee, "a_outnumbered": out, "a_shield_wall": wall,
                "a_uphill": uphill, "shield_wall_cap": cap}
        s = duel_setup(opts)
        assert s.melee[0] == want and dref.duellists(s)[0].melee == want, opts


@pytest.mark.parametrize("cap", ["before_mighty", "after_mighty"])
def test_warband_tables_and_reference_roster_follow_the_grid(cap):
    """The warband kernel's compiled tables (melt: [outnumbered + 2*wall]; armt: [wall + 2*rear
    + 4*Mighty attacker]) and the warband reference's ratings, one figure per Armor/Melee."""
    ratings = [(5, 5), (4, 4), (3, 3), (2, 2), (1, 1)]          # (armor, melee) per figure
    band = make_warband("grid", [("hirdmen", 1, {"armor": a, "melee": m}) for a, m in ratings])
    s = compile_setup(band, "hirdmen", Rules(shield_wall_cap=cap), WarbandRules())
    rated = wref.roster(s)[0]
    for armor, wall, rear, mighty, before, after in ARMOR_GRID:
        i = [a for a, _ in ratings].index(armor)
        want = before if cap == "before_mighty" else after
        assert s.armt[0, i, wall + 2 * rear + 4 * mighty] == want
        assert rated[i].armor_vs[wall, rear, mighty] == want
    for melee, out, wall, uphill, want in MELEE_GRID:
        if uphill:
            continue                                    # no terrain in the warband kernel
        i = [m for _, m in ratings].index(melee)
        assert s.melt[0, i, out + 2 * wall] == want
        assert rated[i].melee_in[out, wall] == want


def test_hero_morale_and_fight_for_honor_jarl_armor_in_both_engines():
    """§13.3 DEFAULT self: a Hero tests on Morale + 1 (max 5); §10.7: Fight for Honor's Jarls
    have Armor 3 (a Mighty Jarl's blow: 3 - 1 = 2)."""
    band = make_warband("h", [("jarl", 1, None), ("hirdmen", 1, {"hero": True}),
                              ("jarl", 1, {"hero": True, "leader": False})])
    s = compile_setup(band, "fight_for_honor", Rules(),
                      WarbandRules(scenario="fight_for_honor", approach_turns=0))
    rated = wref.roster(s)[0]
    # Jarl Morale 5; Hirdman Hero 4 + 1 = 5; Jarl Hero 5 + 1 capped at 5
    assert [int(s.fig[0, i, FigCol.MORALE]) for i in range(3)] == [5, 5, 5]
    assert [r.morale for r in rated] == [5, 5, 5]
    assert s.armt[0, 0, 0] == 3 and rated[0].armor_vs[F, F, F] == 3
    assert s.armt[0, 0, 4] == 2 and rated[0].armor_vs[F, F, T] == 2
    plain = compile_setup(band, "hirdmen", Rules(), WarbandRules())
    assert plain.armt[0, 0, 0] == 4 and wref.roster(plain)[0][0].armor_vs[F, F, F] == 4
    nearby = compile_setup(band, "hirdmen", Rules(), WarbandRules(hero_morale_bonus="nearby"))
    assert int(nearby.fig[0, 1, FigCol.MORALE]) == 4 and wref.roster(nearby)[0][1].morale == 4


# §12.2 DEFAULT profiles, §11.2 SEED points, §7.2 SEED Tough (3)/(2), §12.2 Bondi archer option:
# key: (points, move, missile, weapon, range, attacks, melee, armor, morale, tough,
#       wounds total_wounds, wounds extra_wounds, keywords)
PROFILE_TABLE = {
    "jarl":         (75, 6, 0, "",    0, 2, 5, 4, 5, 3, 3, 4, {"leader", "mighty"}),
    "huskarl":      (36, 6, 0, "",    0, 1, 4, 4, 4, 2, 2, 3, {"mighty"}),
    "berserker":    (30, 6, 0, "",    0, 2, 4, 2, 4, 0, 1, 1, {"mighty"}),
    "hirdmen":      (18, 6, 0, "",    0, 1, 4, 3, 4, 0, 1, 1, set()),
    "bondi":        (12, 6, 0, "",    0, 1, 3, 2, 2, 0, 1, 1, set()),
    "thrall":       (9,  6, 0, "",    0, 1, 2, 1, 2, 0, 1, 1, set()),
    "bondi_archer": (21, 6, 3, "bow", 18, 1, 3, 2, 2, 0, 1, 1, set()),
}
KEYWORDS = ("leader", "hero", "mighty", "fated", "fearless")


def test_every_unit_profile_matches_the_hand_typed_table():
    assert set(PROFILES) == set(PROFILE_TABLE)
    for key, (pts, move, missile, weapon, rng, att, mel, arm, mor, tough, w_total, w_extra,
              kws) in PROFILE_TABLE.items():
        p = PROFILES[key]
        assert (p.points, p.move, p.missile, p.weapon, p.attacks, p.melee, p.armor, p.morale,
                p.tough) == (pts, move, missile, weapon, att, mel, arm, mor, tough), key
        assert {k for k in KEYWORDS if getattr(p, k)} == kws, key
        row = compile_profile(key)
        assert (row[Stat.ATTACKS], row[Stat.MELEE], row[Stat.ARMOR], row[Stat.MORALE],
                row[Stat.WOUNDS], row[Stat.MISSILE], row[Stat.RANGE], row[Stat.MOVE]) == (
                    att, mel, arm, mor, w_total, missile, rng, move), key
        assert compile_profile(key, tough_reading="extra_wounds")[Stat.WOUNDS] == w_extra, key
        flags = {k for k, st in (("leader", Stat.LEADER), ("hero", Stat.HERO),
                                 ("mighty", Stat.MIGHTY), ("fated", Stat.FATED),
                                 ("fearless", Stat.FEARLESS)) if row[st]}
        assert flags == kws, key
