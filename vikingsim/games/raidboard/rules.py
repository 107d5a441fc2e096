"""Raid board rules (seed 001; notes ``raidboard.md``): board data, IntEnums and the frozen
``Rules`` whose defaults are the notes' DEFAULT readings, compiled to arrays for the kernels."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import IntEnum

import numpy as np

from vikingsim.core.errors import InputError


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


class R(IntEnum):
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
    N = 17


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
N_SPACES = len(BOARD)
#: Regions that can form a kingdom (§3.4): every region but East.
KINGDOM_REGIONS = tuple(r for r in Region if r not in (Region.EAST, Region.NONE))

VARIANTS = ("circular", "ends-of-earth")


@dataclass(frozen=True)
class Rules:
    """One complete reading of the raid board; defaults are the notes' DEFAULT readings (§11.2)."""

    variant: str = "circular"                  # §9 SEED variant: "circular" | "ends-of-earth"
    start_gold: int = 20                       # §4.1 SEED
    target_gold: int = 100                     # §8.1 SEED
    max_rounds: int = 10_000                   # §8.3 DEFAULT guard: capped games are truncated
    raid_fail_max: int = 4                     # §7.2 SEED: a 2d6 raid roll <= this destroys the fleet
    raid_capture_min: int = 9                  # §7.4 SEED
    gold_floor: int = 0                        # §7.2/§12.2 DEFAULT: losses never push gold below
    miss_turn_skips_income: bool = True        # §5.1/§12.5 DEFAULT
    sea_resolves_new_space: bool = True        # §6.4/§12.4 DEFAULT
    exploration_resolves_sea: bool = True      # §6.5 DEFAULT
    mercenary_stops_on_destruction: bool = True  # §6.7 DEFAULT
    mercenary_raids: int = 2                   # §6.7 SEED: raid rolls on Foreign Service
    north_opponent_settlement_raidable: bool = True  # §6.3/§12.1 DEFAULT
    settlement_supply: int = 0                 # §2.2 DEFAULT: 0 = unlimited markers per player
    income_dice_per_settlement: int = 1        # §5.2 SEED: 1d6 per settlement
    income_dice_per_kingdom: int = 2           # §5.2 SEED: 2d6 per kingdom
    first_seat: int = 0                        # §4.2 DEFAULT: seat 0 moves first

    def __post_init__(self):
        if self.variant not in VARIANTS:
            raise InputError(f"variant={self.variant!r}: must be one of {', '.join(VARIANTS)}")
        if not 2 <= self.raid_fail_max < self.raid_capture_min <= 13:
            raise InputError("need 2 <= raid_fail_max < raid_capture_min <= 13 "
                             f"(13 = no capture), got {self.raid_fail_max}, {self.raid_capture_min}")
        if self.gold_floor > 0 or self.gold_floor > self.start_gold:
            raise InputError(f"gold_floor must be <= 0 and <= start_gold, got {self.gold_floor}")
        if self.target_gold <= self.start_gold:
            raise InputError(f"target_gold must exceed start_gold ({self.start_gold}), "
                             f"got {self.target_gold}")

    def compile(self) -> "CompiledRules":
        ri = np.zeros(R.N, np.int64)
        ri[R.START_GOLD] = self.start_gold
        ri[R.TARGET_GOLD] = self.target_gold
        ri[R.MAX_ROUNDS] = self.max_rounds
        ri[R.RAID_FAIL_MAX] = self.raid_fail_max
        ri[R.RAID_CAPTURE_MIN] = self.raid_capture_min
        ri[R.GOLD_FLOOR] = self.gold_floor
        ri[R.ENDS_OF_EARTH] = self.variant == "ends-of-earth"
        ri[R.MISS_TURN_SKIPS_INCOME] = self.miss_turn_skips_income
        ri[R.SEA_RESOLVES_NEW_SPACE] = self.sea_resolves_new_space
        ri[R.EXPLORATION_RESOLVES_SEA] = self.exploration_resolves_sea
        ri[R.MERCENARY_STOPS_ON_DESTRUCTION] = self.mercenary_stops_on_destruction
        ri[R.MERCENARY_RAIDS] = self.mercenary_raids
        ri[R.NORTH_OPPONENT_RAIDABLE] = self.north_opponent_settlement_raidable
        ri[R.SETTLEMENT_SUPPLY] = self.settlement_supply
        ri[R.INCOME_DICE_PER_SETTLEMENT] = self.income_dice_per_settlement
        ri[R.INCOME_DICE_PER_KINGDOM] = self.income_dice_per_kingdom
        ri[R.FIRST_SEAT] = self.first_seat
        return CompiledRules(ri=ri, kind=BOARD_KIND.copy(), region=BOARD_REGION.copy(),
                             region_spaces=REGION_SPACES.copy(), seas=SEA_SPACES.copy())

    def asdict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class CompiledRules:
    """What kernels receive: arrays only.

    ri : int64[R.N]            rule scalars, indexed by ``R``
    kind : int8[40]            ``Space`` of each track index
    region : int8[40]          ``Region`` of each track index
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
