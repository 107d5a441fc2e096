"""Raid board rules (seed 001; notes ``raidboard.md``): the board data and its named sizes, the
``Space``/``Region``/``RuleSlot`` enums, and the frozen ``Rules`` (every rule declared once with
``core.options.rule``; defaults are the notes' DEFAULT readings), compiled to arrays for the
kernels."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import IntEnum

import numpy as np

from vikingsim.core.errors import InputError
from vikingsim.core.options import rule


class Space(IntEnum):
    """Kinds of space (raidboard §3.1); values index kernel tables."""

    START = 0
    TERRITORY = 1
    SEA = 2
    RAID_ONLY = 3
    EXPLORATION = 4
    MERCENARY = 5
    LOST = 6


class Region(IntEnum):
    """Regions (raidboard §3.3); NONE for spaces outside any region."""

    SCANDINAVIA = 0
    NORTH = 1
    ISLES = 2
    BRITS = 3
    FRANCIA = 4
    RUS = 5
    TRADE = 6
    EAST = 7
    NONE = 8


class RuleSlot(IntEnum):
    """Slots of the compiled integer rules vector ``ri`` (one per rule, see ``Rules``)."""

    START_GOLD = 0
    TARGET_GOLD = 1
    MAX_ROUNDS = 2
    RAID_FAIL_MAX = 3
    RAID_CAPTURE_MIN = 4
    GOLD_FLOOR = 5
    ENDS_OF_EARTH = 6
    MISS_TURN_SKIPS_INCOME = 7
    SEA_RESOLVES_NEW_SPACE = 8
    EXPLORATION_RESOLVES_SEA = 9
    MERCENARY_STOPS_ON_DESTRUCTION = 10
    NORTH_OPPONENT_RAIDABLE = 11
    SETTLEMENT_SUPPLY = 12
    INCOME_DICE_PER_SETTLEMENT = 13
    INCOME_DICE_PER_KINGDOM = 14
    FIRST_SEAT = 15
    MERCENARY_RAIDS = 16
    SEAT_GOLD_STEP = 17


#: Length of the compiled rules vector ``ri``.
N_RULE_SLOTS = len(RuleSlot)


_S, _R = Space, Region
#: raidboard §3.1: (name, kind, region) in clockwise order from the start (SEED THE BOARD).
BOARD = (
    ("Vikings Start", _S.START, _R.NONE),
    ("Denmark", _S.TERRITORY, _R.SCANDINAVIA),
    ("Norway", _S.TERRITORY, _R.SCANDINAVIA),
    ("Norwegian Sea", _S.SEA, _R.NONE),
    ("Sweden", _S.TERRITORY, _R.SCANDINAVIA),
    ("Iceland", _S.TERRITORY, _R.NORTH),
    ("Greenland", _S.TERRITORY, _R.NORTH),
    ("Atlantic Ocean", _S.SEA, _R.NONE),
    ("Vinland", _S.TERRITORY, _R.NORTH),
    ("Winds of Thor", _S.EXPLORATION, _R.NONE),
    ("Scotland", _S.TERRITORY, _R.ISLES),
    ("Orkney", _S.TERRITORY, _R.ISLES),
    ("Monasteries", _S.RAID_ONLY, _R.NONE),
    ("Ireland", _S.TERRITORY, _R.ISLES),
    ("Finns", _S.RAID_ONLY, _R.NONE),
    ("Western Routes", _S.TERRITORY, _R.TRADE),
    ("North Sea", _S.SEA, _R.NONE),
    ("York", _S.TERRITORY, _R.BRITS),
    ("Danelaw", _S.TERRITORY, _R.BRITS),
    ("Reconquest", _S.LOST, _R.NONE),
    ("East Anglia", _S.TERRITORY, _R.BRITS),
    ("Central Routes", _S.TERRITORY, _R.TRADE),
    ("Frisia", _S.TERRITORY, _R.FRANCIA),
    ("Normandy", _S.TERRITORY, _R.FRANCIA),
    ("Piracy", _S.RAID_ONLY, _R.NONE),
    ("Brittany", _S.TERRITORY, _R.FRANCIA),
    ("Spain", _S.RAID_ONLY, _R.NONE),
    ("Mediterranean", _S.SEA, _R.NONE),
    ("Balts", _S.RAID_ONLY, _R.NONE),
    ("Baltic Sea", _S.SEA, _R.NONE),
    ("Slavs", _S.TERRITORY, _R.RUS),
    ("Eastern Routes", _S.TERRITORY, _R.TRADE),
    ("Kiev", _S.TERRITORY, _R.RUS),
    ("Novgorod", _S.TERRITORY, _R.RUS),
    ("Black Sea", _S.SEA, _R.NONE),
    ("Byzantium", _S.RAID_ONLY, _R.EAST),   # §3.5: East is raid-only, never settled
    ("Caspian Sea", _S.SEA, _R.NONE),
    ("Muslim States", _S.RAID_ONLY, _R.EAST),
    ("Persia", _S.RAID_ONLY, _R.EAST),
    ("Foreign Service", _S.MERCENARY, _R.NONE),
)
N_SPACES = len(BOARD)                     # §3.1: 40 spaces, indices 0..39
LAST_SPACE = N_SPACES - 1                 # Foreign Service, the end of the track (§9)
#: Regions that can form a kingdom (§3.4): every region but East.
KINGDOM_REGIONS = tuple(r for r in Region if r not in (Region.EAST, Region.NONE))
TERRITORIES_PER_REGION = 3                # §3.3: a kingdom is all three (§3.4)
RAID_ROLL_MIN, RAID_ROLL_MAX = 2, 12      # §7.1: a 2d6 total
NEVER_CAPTURE = RAID_ROLL_MAX + 1         # raid_capture_min that no roll reaches
MAX_PLAYERS = 8                           # §4.3 assumption: --players 2..8
MAX_SETTLEMENTS = sum(1 for _, k, r in BOARD if k == Space.TERRITORY and r != Region.EAST)

VARIANTS = ("circular", "ends-of-earth")


@dataclass(frozen=True)
class Rules:
    """One complete reading of the raid board, each rule declared once: its default is the
    notes' DEFAULT reading (§11.2), and the ``vikingsim`` options are derived from these
    fields (``core.options.options_of``)."""

    variant: str = rule("circular", "track: circular (§5.3) or ends-of-earth (§9)",
                        section="§9", choices=VARIANTS)
    start_gold: int = rule(20, "Gold each player starts with", section="§4.1", lo=0,
                           hi=10_000)
    target_gold: int = rule(100, "Gold that wins", section="§8.1", lo=1, hi=100_000)
    max_rounds: int = rule(10_000, "safety cap; capped games are truncated", section="§8.3",
                           lo=1, hi=1_000_000)
    raid_fail_max: int = rule(4, "2d6 raid roll at or under this destroys the fleet",
                              section="§7.2", lo=RAID_ROLL_MIN, hi=RAID_ROLL_MAX)
    raid_capture_min: int = rule(9, "2d6 raid roll at or over this captures (§7.4; 13 = never)",
                                 section="§7.4", lo=RAID_ROLL_MIN + 1, hi=NEVER_CAPTURE)
    gold_floor: int = rule(0, "losses never take Gold below this (§12.2; negative = debt)",
                           section="§12.2", lo=-100_000, hi=0)
    miss_turn_skips_income: bool = rule(True, "a missed turn skips income too",
                                        section="§5.1, §12.5")
    sea_resolves_new_space: bool = rule(True, "resolve the space a sea move reaches",
                                        section="§6.4")
    exploration_resolves_sea: bool = rule(True, "roll the sea die after Exploration",
                                          section="§6.5")
    mercenary_stops_on_destruction: bool = rule(
        True, "no second Mercenary raid after a destroyed fleet", section="§6.7")
    mercenary_raids: int = rule(2, "raid rolls on Foreign Service", section="§6.7", lo=1,
                                hi=10)
    north_opponent_settlement_raidable: bool = rule(
        True, "an opponent's North settlement can be raided and captured", section="§12.1")
    settlement_supply: int = rule(0, "settlement markers per player, 0 = unlimited",
                                  section="§2.2", lo=0, hi=MAX_SETTLEMENTS)
    income_dice_per_settlement: int = rule(1, "d6 of income per settlement", section="§5.2",
                                           lo=0, hi=10)
    income_dice_per_kingdom: int = rule(2, "d6 of income per kingdom", section="§5.2", lo=0,
                                        hi=10)
    first_seat: int = rule(0, "seat that moves first", section="§4.2", lo=0,
                           hi=MAX_PLAYERS - 1)
    seat_gold_step: int = rule(0, "designer variant: the k-th player in turn order (k = 0 "
                               "for first_seat) starts with k times this much extra Gold "
                               "(0 = the printed rules)", section="§4.4", lo=0,
                               hi=1_000)

    def __post_init__(self):
        if self.variant not in VARIANTS:
            raise InputError(f"variant={self.variant!r}: must be one of {', '.join(VARIANTS)}")
        if not RAID_ROLL_MIN <= self.raid_fail_max < self.raid_capture_min <= NEVER_CAPTURE:
            raise InputError(f"need {RAID_ROLL_MIN} <= raid_fail_max < raid_capture_min <= "
                             f"{NEVER_CAPTURE} ({NEVER_CAPTURE} = no capture), got "
                             f"{self.raid_fail_max}, {self.raid_capture_min}")
        if self.gold_floor > 0 or self.gold_floor > self.start_gold:
            raise InputError(f"gold_floor must be <= 0 and <= start_gold, got {self.gold_floor}")
        if self.target_gold <= self.start_gold:
            raise InputError(f"target_gold must exceed start_gold ({self.start_gold}), "
                             f"got {self.target_gold}")

    def compile(self) -> "CompiledRules":
        S = RuleSlot
        ri = np.zeros(N_RULE_SLOTS, np.int64)
        ri[S.START_GOLD] = self.start_gold
        ri[S.TARGET_GOLD] = self.target_gold
        ri[S.MAX_ROUNDS] = self.max_rounds
        ri[S.RAID_FAIL_MAX] = self.raid_fail_max
        ri[S.RAID_CAPTURE_MIN] = self.raid_capture_min
        ri[S.GOLD_FLOOR] = self.gold_floor
        ri[S.ENDS_OF_EARTH] = self.variant == "ends-of-earth"
        ri[S.MISS_TURN_SKIPS_INCOME] = self.miss_turn_skips_income
        ri[S.SEA_RESOLVES_NEW_SPACE] = self.sea_resolves_new_space
        ri[S.EXPLORATION_RESOLVES_SEA] = self.exploration_resolves_sea
        ri[S.MERCENARY_STOPS_ON_DESTRUCTION] = self.mercenary_stops_on_destruction
        ri[S.MERCENARY_RAIDS] = self.mercenary_raids
        ri[S.NORTH_OPPONENT_RAIDABLE] = self.north_opponent_settlement_raidable
        ri[S.SETTLEMENT_SUPPLY] = self.settlement_supply
        ri[S.INCOME_DICE_PER_SETTLEMENT] = self.income_dice_per_settlement
        ri[S.INCOME_DICE_PER_KINGDOM] = self.income_dice_per_kingdom
        ri[S.FIRST_SEAT] = self.first_seat
        ri[S.SEAT_GOLD_STEP] = self.seat_gold_step
        return CompiledRules(ri=ri, kind=BOARD_KIND.copy(), region=BOARD_REGION.copy(),
                             region_spaces=REGION_SPACES.copy(), seas=SEA_SPACES.copy())

    def asdict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class CompiledRules:
    """What kernels receive: arrays only.

    ri : int64[N_RULE_SLOTS]   rule scalars, indexed by ``RuleSlot``
    kind : int8[N_SPACES]      ``Space`` of each track index
    region : int8[N_SPACES]    ``Region`` of each track index
    region_spaces : int8[8,3]  territories of each region (row = Region value; East unused)
    seas : int8[7]             track indices of the sea spaces, ascending
    """

    ri: np.ndarray
    kind: np.ndarray
    region: np.ndarray
    region_spaces: np.ndarray
    seas: np.ndarray


BOARD_KIND = np.array([k for _, k, _ in BOARD], np.int8)
BOARD_REGION = np.array([r for _, _, r in BOARD], np.int8)
REGION_SPACES = np.array([[i for i, (_, _, r) in enumerate(BOARD) if r == reg]
                          for reg in Region if reg != Region.NONE], np.int8)
SEA_SPACES = np.array([i for i, (_, k, _) in enumerate(BOARD) if k == Space.SEA], np.int8)
SPACE_NAMES = tuple(name for name, _, _ in BOARD)
