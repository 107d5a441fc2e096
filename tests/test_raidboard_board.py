"""The raid board's data against the rules notes, typed by hand (raidboard §3.1-3.3, §11.2).

``TABLE`` is the 40-space board of raidboard §3.1 (SEED THE BOARD order, names and notes; the
project's kind and region encoding), typed here from the notes and never imported from the
code. It is compared with the code's board data and compiled arrays, and then every one of the
40 spaces gets a forced landing: the d6 faces are scripted so a pawn lands exactly there, and
what happens is checked against what the notes say that *kind* of space does (§6, §7), with
the kind taken from ``TABLE``. Every landing runs on the kernel's own code (loaded as plain
Python) and on the reference engine (the ``engine`` fixture of ``test_raidboard_rules``).

``DEFAULTS`` types the DEFAULT value of every raid board rule from raidboard §11.2 (and the
section it cites); it is compared with ``Rules()``, with the ``Option`` defaults and with the
compiled rules vector.
"""
import pytest

from tests.test_raidboard_rules import engine, run_turn  # noqa: F401  (fixture)
from vikingsim.games import raidboard
from vikingsim.games.raidboard import rules as RB

# raidboard §3.1, one row per space: (index, name, kind, region); "-" = no region.
TABLE = [
    (0, "Vikings Start", "start", "-"),
    (1, "Denmark", "territory", "Scandinavia"),
    (2, "Norway", "territory", "Scandinavia"),
    (3, "Norwegian Sea", "sea", "-"),
    (4, "Sweden", "territory", "Scandinavia"),
    (5, "Iceland", "territory", "North"),
    (6, "Greenland", "territory", "North"),
    (7, "Atlantic Ocean", "sea", "-"),
    (8, "Vinland", "territory", "North"),
    (9, "Winds of Thor", "exploration", "-"),
    (10, "Scotland", "territory", "Isles"),
    (11, "Orkney", "territory", "Isles"),
    (12, "Monasteries", "raid-only", "-"),
    (13, "Ireland", "territory", "Isles"),
    (14, "Finns", "raid-only", "-"),
    (15, "Western Routes", "territory", "Trade"),
    (16, "North Sea", "sea", "-"),
    (17, "York", "territory", "Brits"),
    (18, "Danelaw", "territory", "Brits"),
    (19, "Reconquest", "lost", "-"),
    (20, "East Anglia", "territory", "Brits"),
    (21, "Central Routes", "territory", "Trade"),
    (22, "Frisia", "territory", "Francia"),
    (23, "Normandy", "territory", "Francia"),
    (24, "Piracy", "raid-only", "-"),
    (25, "Brittany", "territory", "Francia"),
    (26, "Spain", "raid-only", "-"),
    (27, "Mediterranean", "sea", "-"),
    (28, "Balts", "raid-only", "-"),
    (29, "Baltic Sea", "sea", "-"),
    (30, "Slavs", "territory", "Rus"),
    (31, "Eastern Routes", "territory", "Trade"),
    (32, "Kiev", "territory", "Rus"),
    (33, "Novgorod", "territory", "Rus"),
    (34, "Black Sea", "sea", "-"),
    (35, "Byzantium", "raid-only", "East"),
    (36, "Caspian Sea", "sea", "-"),
    (37, "Muslim States", "raid-only", "East"),
    (38, "Persia", "raid-only", "East"),
    (39, "Foreign Service", "mercenary", "-"),
]
KIND = {"start": RB.Space.START, "territory": RB.Space.TERRITORY, "sea": RB.Space.SEA,
        "raid-only": RB.Space.RAID_ONLY, "exploration": RB.Space.EXPLORATION,
        "mercenary": RB.Space.MERCENARY, "lost": RB.Space.LOST}
REGION = {"-": RB.Region.NONE, "Scandinavia": RB.Region.SCANDINAVIA, "North": RB.Region.NORTH,
          "Isles": RB.Region.ISLES, "Brits": RB.Region.BRITS, "Francia": RB.Region.FRANCIA,
          "Rus": RB.Region.RUS, "Trade": RB.Region.TRADE, "East": RB.Region.EAST}
# raidboard §3.3, typed from its table (not derived from TABLE above)
REGION_SPACES = {"Scandinavia": (1, 2, 4), "North": (5, 6, 8), "Isles": (10, 11, 13),
                 "Brits": (17, 18, 20), "Francia": (22, 23, 25), "Rus": (30, 32, 33),
                 "Trade": (15, 21, 31), "East": (35, 37, 38)}
SEAS = (3, 7, 16, 27, 29, 34, 36)                               # raidboard §3.2

# raidboard §11.2 (with the sections it cites): every rule's DEFAULT reading.
DEFAULTS = {
    "variant": "circular",                      # §9.2, SEED variant is an alternative
    "start_gold": 20,                           # §4.1 SEED
    "target_gold": 100,                         # §8.1 SEED
    "max_rounds": 10_000,                       # §8.3 DEFAULT guard
    "raid_fail_max": 4,                         # §7.2 SEED: 4 or less destroys
    "raid_capture_min": 9,                      # §7.4 SEED: 9 or more captures
    "gold_floor": 0,                            # §7.2, §12.2 DEFAULT
    "miss_turn_skips_income": True,             # §5.1, §12.5 DEFAULT
    "sea_resolves_new_space": True,             # §6.4, §12.4 DEFAULT
    "exploration_resolves_sea": True,           # §6.5 DEFAULT
    "mercenary_stops_on_destruction": True,     # §6.7 DEFAULT
    "mercenary_raids": 2,                       # §6.7 SEED: two raid rolls
    "north_opponent_settlement_raidable": True,  # §6.3, §12.1 DEFAULT
    "settlement_supply": 0,                     # §2.2 DEFAULT unlimited (0 encodes it)
    "income_dice_per_settlement": 1,            # §5.2 SEED 1d6
    "income_dice_per_kingdom": 2,               # §5.2 SEED 2d6
    "first_seat": 0,                            # §4.2 DEFAULT
    "seat_gold_step": 0,                        # §4.4 DEFAULT 0 (designer variant off)
}


# ------------------------------------------------------------------- the board data itself

def test_table_is_the_notes_board():
    # §3.2 counts, so a typo in TABLE itself shows up here.
    kinds = [k for _, _, k, _ in TABLE]
    assert [i for i, *_ in TABLE] == list(range(40))
    assert {k: kinds.count(k) for k in KIND} == {"start": 1, "territory": 21, "sea": 7,
                                                 "raid-only": 8, "exploration": 1,
                                                 "mercenary": 1, "lost": 1}
    assert tuple(i for i, _, k, _ in TABLE if k == "sea") == SEAS
    for reg, spaces in REGION_SPACES.items():
        assert tuple(i for i, _, _, r in TABLE if r == reg) == spaces, reg


def test_code_board_equals_the_table():
    assert len(RB.BOARD) == RB.N_SPACES == 40
    # §3.1-3.3: spaces 0..39; 21 territories take settlements; three territories a region
    assert (RB.LAST_SPACE, RB.MAX_SETTLEMENTS, RB.TERRITORIES_PER_REGION) == (39, 21, 3)
    assert (RB.RAID_ROLL_MIN, RB.RAID_ROLL_MAX, RB.NEVER_CAPTURE) == (2, 12, 13)   # §7.1 2d6
    for (i, name, kind, region), (c_name, c_kind, c_region) in zip(TABLE, RB.BOARD):
        assert (c_name, c_kind, c_region) == (name, KIND[kind], REGION[region]), (i, name)
    assert RB.SPACE_NAMES == tuple(name for _, name, _, _ in TABLE)


def test_compiled_board_equals_the_table():
    c = RB.Rules().compile()
    assert [int(k) for k in c.kind] == [int(KIND[k]) for _, _, k, _ in TABLE]
    assert [int(r) for r in c.region] == [int(REGION[r]) for *_, r in TABLE]
    assert tuple(int(s) for s in c.seas) == SEAS
    assert c.region_spaces.shape == (8, 3)
    for reg, spaces in REGION_SPACES.items():
        assert tuple(int(s) for s in c.region_spaces[int(REGION[reg])]) == spaces, reg
    # §3.3/§3.4: every region but East can form a kingdom
    assert set(RB.KINGDOM_REGIONS) == {REGION[r] for r in REGION_SPACES if r != "East"}


# ------------------------------------------------------------------- the DEFAULT readings

def test_rules_defaults_equal_the_notes():
    assert RB.Rules().asdict() == DEFAULTS                       # also: no field untyped here


def test_option_defaults_equal_the_notes():
    assert {o.name: o.default for o in raidboard.OPTIONS} == DEFAULTS
    assert raidboard.GAME.default_policy == "greedy"             # §10, §11.2
    assert raidboard.GAME.players == (2, 8, 4)                   # §4.3, §11.2: 2..8, 4


def test_compiled_defaults_equal_the_notes():
    ri = RB.Rules().compile().ri
    S = RB.RuleSlot
    assert len(ri) == RB.N_RULE_SLOTS == len(S)
    assert ri[S.START_GOLD] == 20 and ri[S.TARGET_GOLD] == 100 and ri[S.MAX_ROUNDS] == 10_000
    assert ri[S.RAID_FAIL_MAX] == 4 and ri[S.RAID_CAPTURE_MIN] == 9 and ri[S.GOLD_FLOOR] == 0
    assert ri[S.ENDS_OF_EARTH] == 0 and ri[S.MERCENARY_RAIDS] == 2 and ri[S.FIRST_SEAT] == 0
    assert ri[S.INCOME_DICE_PER_SETTLEMENT] == 1 and ri[S.INCOME_DICE_PER_KINGDOM] == 2
    assert ri[S.SETTLEMENT_SUPPLY] == 0 and ri[S.SEAT_GOLD_STEP] == 0
    for slot in (S.MISS_TURN_SKIPS_INCOME, S.SEA_RESOLVES_NEW_SPACE, S.EXPLORATION_RESOLVES_SEA,
                 S.MERCENARY_STOPS_ON_DESTRUCTION, S.NORTH_OPPONENT_RAIDABLE):
        assert ri[slot] == 1, slot.name


# ------------------------------------------------------------------- a landing on every space
# The mover is seat 0 of two, 20 Gold, no settlement (so no income dice); it stands one space
# behind the target and rolls a 1 (space 0 is reached from 39 by wrapping, §5.3).

def _land(engine, space, faces, **kw):
    return run_turn(engine, [1, *faces], pos=[(space - 1) % 40, 0], **kw)


def _spaces(*kinds, regions=None):
    return [i for i, _, k, r in TABLE if k in kinds and (regions is None or r in regions)]


TERRITORIES = _spaces("territory", regions=set(REGION_SPACES) - {"North"})
NORTH = _spaces("territory", regions={"North"})
RAID_ONLY = _spaces("raid-only")
NAME = {i: name for i, name, _, _ in TABLE}


def _ids(spaces):
    return [f"{i}-{NAME[i]}" for i in spaces]


# raid roll (two faces) -> (Gold after, settlement placed?) from 20 Gold, §7.2-7.4
RAIDS = [((2, 3), 25, False),      # 5: plunder only (§7.3)
         ((4, 4), 28, False),      # 8: plunder only, one below capture (§7.4)
         ((4, 5), 29, True),       # 9: plunder and capture (§7.4)
         ((6, 6), 32, True)]       # 12


@pytest.mark.parametrize("space", TERRITORIES, ids=_ids(TERRITORIES))
@pytest.mark.parametrize("roll, gold, captured", RAIDS, ids=["5", "8", "9", "12"])
def test_landing_on_an_empty_territory_raids_with_capture(engine, space, roll, gold, captured):
    s = _land(engine, space, roll)                                      # §6.1
    assert (s["pos"][0], s["gold"][0], s["dice_left"]) == (space, gold, 0)
    assert s["owner"] == ({space: 0} if captured else {})
    assert not s["miss"][0] and not s["won"]


@pytest.mark.parametrize("space", TERRITORIES + NORTH, ids=_ids(TERRITORIES + NORTH))
def test_landing_on_an_opponents_territory(engine, space):
    # §6.1, §6.3 (North held by an opponent is raided too, §12.1 DEFAULT): 8 keeps seat 1's
    # settlement, 9 replaces it with seat 0's.
    s = _land(engine, space, (4, 4), owner={space: 1})
    assert s["gold"][0] == 28 and s["owner"] == {space: 1}
    s = _land(engine, space, (4, 5), owner={space: 1})
    assert s["gold"][0] == 29 and s["owner"] == {space: 0}


@pytest.mark.parametrize("space", TERRITORIES + NORTH, ids=_ids(TERRITORIES + NORTH))
def test_landing_on_your_own_settlement(engine, space):
    # income 1d6 = 3 for the one settlement (§5.2), move 1, own settlement +1d6 = 4 (§6.2):
    # no raid roll, 20 + 3 + 4 = 27.
    s = run_turn(engine, [3, 1, 4], pos=[(space - 1) % 40, 0], owner={space: 0})
    assert (s["pos"][0], s["gold"][0], s["dice_left"], s["owner"]) == (space, 27, 0, {space: 0})


@pytest.mark.parametrize("space", TERRITORIES + RAID_ONLY, ids=_ids(TERRITORIES + RAID_ONLY))
def test_a_raid_roll_of_4_destroys_the_fleet(engine, space):
    # raid 1+3 = 4 (§7.2): lose 2d6 = 2+3, back to Vikings Start, miss the next turn.
    s = _land(engine, space, (1, 3, 2, 3))
    assert (s["pos"][0], s["gold"][0], s["miss"][0], s["lost"][0]) == (0, 15, True, 1)
    assert s["owner"] == {} and s["dice_left"] == 0


@pytest.mark.parametrize("space", NORTH, ids=_ids(NORTH))
def test_landing_on_an_empty_north_territory_settles(engine, space):
    s = _land(engine, space, ())                                        # §6.3: no roll
    assert (s["pos"][0], s["gold"][0], s["owner"], s["dice_left"]) == (space, 20, {space: 0}, 0)


@pytest.mark.parametrize("space", RAID_ONLY, ids=_ids(RAID_ONLY))
@pytest.mark.parametrize("roll, gold, _captured", RAIDS, ids=["5", "8", "9", "12"])
def test_landing_on_a_raid_only_space_never_settles(engine, space, roll, gold, _captured):
    s = _land(engine, space, roll)                                      # §6.6, §3.5 East
    assert (s["pos"][0], s["gold"][0], s["owner"], s["dice_left"]) == (space, gold, {}, 0)


def _next_landing_faces(space):
    """Dice for the space a sea roll of 1 reaches, and the Gold after it (from TABLE)."""
    _, _, kind, region = TABLE[space]
    if kind == "territory" and region == "North":
        return (), 20, {space: 0}                                       # §6.3
    if kind == "territory":
        return (3, 3), 26, {}                                           # §6.1 raid 6
    if kind == "raid-only":
        return (3, 3), 26, {}                                           # §6.6 raid 6
    raise AssertionError(f"no script for a sea followed by {kind}")


@pytest.mark.parametrize("space", SEAS, ids=_ids(SEAS))
def test_landing_on_a_sea(engine, space):
    s = _land(engine, space, (6,))                                      # §6.4 Great Storm
    assert (s["pos"][0], s["gold"][0], s["dice_left"]) == (space, 20, 0)
    # sea roll 1: sail one space on and resolve it (§6.4 DEFAULT sea_resolves_new_space)
    faces, gold, owner = _next_landing_faces(space + 1)
    s = _land(engine, space, (1, *faces))
    assert (s["pos"][0], s["gold"][0], s["owner"], s["dice_left"]) == (space + 1, gold, owner, 0)


def test_landing_on_exploration(engine):
    # Winds of Thor (9) → greedy: first sea ahead = North Sea (16) (§6.5, §10.2); its sea roll
    # 6 is a Great Storm, so the fleet stays on 16.
    (space,) = _spaces("exploration")
    first_sea_ahead = min(i for i in SEAS if i > space)
    s = _land(engine, space, (6,))
    assert (s["pos"][0], s["gold"][0], s["dice_left"]) == (first_sea_ahead, 20, 0)


def test_landing_on_mercenary(engine):
    # Foreign Service (39): two raid rolls, 2+3 = 5 and 4+5 = 9, no capture (§6.7).
    (space,) = _spaces("mercenary")
    s = _land(engine, space, (2, 3, 4, 5))
    assert (s["pos"][0], s["gold"][0], s["owner"], s["dice_left"]) == (space, 34, {}, 0)


def test_landing_on_lost(engine):
    # Reconquest (19): seat 1's only settlement (Denmark) is removed (§6.8, §10.3.1).
    (space,) = _spaces("lost")
    s = _land(engine, space, (), owner={1: 1})
    assert (s["pos"][0], s["gold"][0], s["owner"], s["dice_left"]) == (space, 20, {}, 0)


def test_landing_on_start(engine):
    s = _land(engine, 0, (), owner={1: 1})                              # §6.9: no effect
    assert (s["pos"][0], s["gold"][0], s["owner"], s["dice_left"]) == (0, 20, {1: 1}, 0)


KINGDOMS = [r for r in REGION_SPACES if r != "East"]


@pytest.mark.parametrize("region", KINGDOMS)
def test_kingdom_in_every_region(engine, region):
    # The three spaces of §3.3's table make a kingdom (§3.4): income 3 settlement dice + 2
    # kingdom dice = 5 ones (§5.2); then move 1 from Foreign Service to Vikings Start (§6.9).
    # 20 + 5 = 25 and no die left. Any other three territories give no kingdom dice.
    owner = {s: 0 for s in REGION_SPACES[region]}
    s = run_turn(engine, [1] * 6, pos=[39, 0], owner=owner)
    assert (s["gold"][0], s["pos"][0], s["dice_left"]) == (25, 0, 0)
    spread = {REGION_SPACES[r][0]: 0 for r in KINGDOMS[:3]}
    s = run_turn(engine, [1] * 4, pos=[39, 0], owner=spread)
    assert (s["gold"][0], s["pos"][0], s["dice_left"]) == (23, 0, 0)


@pytest.mark.parametrize("missing", [0, 1, 2])
@pytest.mark.parametrize("region", KINGDOMS)
def test_two_territories_of_a_region_are_no_kingdom(engine, region, missing):
    # §3.4: a kingdom is all three territories of a region. Any two of them give their two
    # settlement dice and no kingdom dice (§5.2): 1 + 1; then move 1 from Foreign Service to
    # Vikings Start (§6.9). 20 + 2 = 22 and no die left.
    owner = {sp: 0 for k, sp in enumerate(REGION_SPACES[region]) if k != missing}
    s = run_turn(engine, [1] * 3, pos=[39, 0], owner=owner)
    assert (s["gold"][0], s["pos"][0], s["dice_left"]) == (22, 0, 0)


def test_every_space_has_a_landing_test():
    covered = (set(TERRITORIES) | set(NORTH) | set(RAID_ONLY) | set(SEAS)
               | set(_spaces("exploration", "mercenary", "lost", "start")))
    assert covered == set(range(40))
