"""Tiny Epic Vikings: Ragnarok rules (seed 002; notes ``tevragnarok.md``), a stated abstraction.

Two kinds of input: the **parameter file** (``params.toml`` beside this module, or a user's
copy or a preset, chosen with the ``params`` option) holds every number the rulebook does not
give, each an assumption (§4.3, §4.4); the frozen ``Rules`` holds the readings of ambiguous
rules, each declared once with ``rule(...)`` (defaults = the notes' DEFAULT). ``Rules.compile``
turns both into arrays for the kernel (``CompiledRules``).
"""
from __future__ import annotations

import tomllib
from dataclasses import asdict, dataclass
from enum import IntEnum
from functools import lru_cache
from typing import NamedTuple
from pathlib import Path

import numpy as np

from vikingsim.core.errors import InputError
from vikingsim.core.options import rule

HERE = Path(__file__).parent
#: Named parameter files (§4.4 sensitivity runs); ``default`` is ``params.toml``.
PRESETS = ("default", "giants_flat", "giants_wide", "giants_mean2", "giants_mean4",
           "island_630", "island_654", "board_ring", "board_9", "start_clustered",
           "favor_flat", "favor_steep", "cards_seed7", "cards_narrow", "draft_4", "draft_5",
           "draft_6")

N_RUNES = 3                 # §2.1, §6.5: three gods, one per Rune kind (DEFAULT)
JOKER = 3                   # §3.5 SEED: a Valkyrie card's Rune is a Joker
N_RES = 3                   # §2.2 PUBLIC: Wood, Food, Steel
WOOD, FOOD, STEEL = 0, 1, 2
N_GIANTS = 9                # §3.1 SEED: 9 Giant tokens
MAX_REGIONS = N_GIANTS      # §4.3: one Giant per region, so at most 9 regions
MAX_PLAYERS = 4             # §1.1 PUBLIC: 1-4 players (solo: §3.8, not modelled)
N_VALKYRIES = 3             # §3.6 SEED: 3 per player, one per Rune
N_ERAS = 3                  # §2.1 PUBLIC
MAX_FAVOR_HELD = 3          # §2.5 PUBLIC
SLAY_SETTLERS = 3           # §3.3 SEED: a Valkyrie and 3 Settlers
SLAY_SETTLERS_EINHERJAR = 2  # §3.3 SEED: an Einherjar card needs and sacrifices only 2
STRENGTH_PER_UNIT = 4       # §3.5 SEED: 4 x Valkyries deployed / 4 x Giants slain
VALKYRIE_INFLUENCE = 2      # §3.6 SEED
SETTLER_INFLUENCE, TEMPLE_INFLUENCE, BOAT_INFLUENCE = 1, 4, 2   # §2.4 PUBLIC
CARRY_SETTLER_FOOD, CARRY_TEMPLE_STEEL = 1, 3                   # §3.6 SEED
MAX_DEGREE = 8


class CardKind(IntEnum):
    BASE = 0
    VALKYRIE = 1
    EINHERJAR = 2


class Leader(IntEnum):
    """Leader actions (§2.3, §4.3)."""

    SAIL = 0
    HARVEST = 1
    EXPLORE = 2
    BUILD = 3


class RuneAct(IntEnum):
    """Rune actions (§2.3, §4.3) and the two new ones (§3.5 SEED)."""

    SMITE = 0
    ATTACK = 1
    RAID = 2
    EXCHANGE = 3
    MOVE_GIANT = 4
    RAID_FREE = 5


class RuleSlot(IntEnum):
    """Slots of the compiled integer vector ``ri``."""

    N_REGIONS = 0
    N_DOCKS = 1
    N_CARDS = 2
    DRAFT = 3
    SAIL = 4
    HARVEST = 5
    BOON = 6
    VALK_BONUS = 7
    TEMPLE_WOOD = 8
    EXCHANGE = 9
    FAVOR_BAG = 10
    N_FAVOR = 11
    CAP = 12
    SETTLERS = 13
    BOATS = 14
    TEMPLES = 15
    START_ON_BOARD = 16
    RUNE_ACTION_RUNES = 17
    INVADER_SPECIAL = 18
    INVADER_GROWTH = 19
    VILLAGE_VP = 20
    VALK_CONDITION_ONE_OR_TWO = 21
    GIANT_DRAIN = 22
    LAST_BATTLES_RESOLVE = 23
    STRENGTH_HI = 24
    POOL_SUM = 25
    DRAFT_ERA1 = 26             # cards per hand in Era 1 (DRAFT is Era 1's, kept in step)
    DRAFT_ERA2 = 27
    DRAFT_ERA3 = 28
    FIRST_SEAT = 29             # first player at setup (§4.7)
    OPENER_MOST_RUNES = 30      # Era opener: most Island Runes (1) or rotation (0), §4.7
    LAST_ERA_DRAIN = 31         # Giant drain after Era 3 too (§3.4, §4.7)
    ATTACK_AFTER_DEPLOY = 32    # Attack Settlers right after a Sail deploys (§2.3, §4.7)
    COUNT_ELEMENTS = 33         # the per-seat element counters (issue 20 §1; not a rule)


N_RULE_SLOTS = len(RuleSlot)


# --------------------------------------------------------------------------- parameters

def _ints(key, n=None, lo=0, hi=100):
    def check(v):
        ok = (isinstance(v, list) and all(isinstance(x, int) and not isinstance(x, bool)
                                          and lo <= x <= hi for x in v)
              and (n is None or len(v) == n))
        if not ok:
            size = f"{n} " if n is not None else "a list of "
            raise InputError(f"params {key}: must be {size}integers in [{lo}, {hi}], got {v!r}")
        return list(v)
    return check


def _int(key, lo, hi):
    def check(v):
        if not (isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi):
            raise InputError(f"params {key}: must be an integer in [{lo}, {hi}], got {v!r}")
        return v
    return check


def _draft_sizes(key, lo, hi):
    """An integer (every Era) or one integer per Era (§4.3: the hand size is the Era's)."""
    def check(v):
        one = lambda x: isinstance(x, int) and not isinstance(x, bool) and lo <= x <= hi  # noqa
        if one(v):
            return [v] * N_ERAS
        if isinstance(v, list) and len(v) == N_ERAS and all(one(x) for x in v):
            return list(v)
        raise InputError(f"params {key}: must be an integer in [{lo}, {hi}] or {N_ERAS} such "
                         f"integers (one per Era), got {v!r}")
    return check


def _start_regions(key):
    def check(v):
        if v == []:
            return []
        if not (isinstance(v, list) and len(v) == MAX_PLAYERS and all(
                isinstance(x, int) and not isinstance(x, bool) and 0 <= x < MAX_REGIONS
                for x in v)):
            raise InputError(f"params {key}: must be [] (spread out) or {MAX_PLAYERS} regions "
                             f"in [0, {MAX_REGIONS - 1}], one per turn position, got {v!r}")
        return list(v)
    return check


def _pairs(key):
    def check(v):
        if not (isinstance(v, list) and all(isinstance(e, list) and 1 <= len(e) <= 2 and all(
                isinstance(x, int) and not isinstance(x, bool) and 0 <= x < MAX_REGIONS
                for x in e) for e in v)):
            raise InputError(f"params {key}: must be a list of [region] or [region, region] "
                             f"lists (regions 0..{MAX_REGIONS - 1}), got {v!r}")
        return [list(e) for e in v]
    return check


#: Every key of the parameter file and its check (one line naming the key on failure).
SCHEMA = {
    "giants": {"values": _ints("giants.values", N_GIANTS, 0, 50)},
    "scoring": {"island": _ints("scoring.island", 3, 0, 50),
                "favor": _ints("scoring.favor", 3, 0, 50),
                "village": _int("scoring.village", 0, 50)},
    "board": {"n_regions": _int("board.n_regions", 2, MAX_REGIONS),
              "runes": _ints("board.runes", None, 0, N_RUNES - 1),
              "edges": _pairs("board.edges"), "docks": _pairs("board.docks"),
              "villages": _ints("board.villages", None, 0, 13)},
    "cards": {"n_base": _int("cards.n_base", 12, 200),
              "generator_seed": _int("cards.generator_seed", 0, 2**31),
              "strength_lo": _int("cards.strength_lo", 0, 30),
              "strength_hi": _int("cards.strength_hi", 0, 30),
              "n_valkyrie": _int("cards.n_valkyrie", 0, 6),
              "n_einherjar": _int("cards.n_einherjar", 0, 6),
              "valkyrie_needs": _ints("cards.valkyrie_needs", None, 1, 3),
              "rune_action_runes": _int("cards.rune_action_runes", 1, 6),
              "invader_special_strength": _int("cards.invader_special_strength", 0, 30),
              "invader_growth": _int("cards.invader_growth", 0, 10)},
    "start": {"resources": _ints("start.resources", N_RES, 0, 7),
              "resource_cap": _int("start.resource_cap", 1, 7),
              "settlers": _int("start.settlers", 3, 12),
              "boats": _int("start.boats", 1, 4), "temples": _int("start.temples", 0, 4),
              "settlers_on_board": _int("start.settlers_on_board", 0, 12),
              "regions": _start_regions("start.regions")},
    "economy": {"draft_size": _draft_sizes("economy.draft_size", 1, 8),
                "sail": _int("economy.sail", 1, 6), "harvest": _int("economy.harvest", 1, 7),
                "boon": _int("economy.boon", 0, 7),
                "valkyrie_harvest_bonus": _int("economy.valkyrie_harvest_bonus", 0, 7),
                "raid_cost": _ints("economy.raid_cost", N_ERAS, 0, 7),
                "temple_wood": _int("economy.temple_wood", 0, 7),
                "exchange": _int("economy.exchange", 0, 7),
                "rune_resource": _ints("economy.rune_resource", N_RUNES, 0, N_RES - 1),
                "favor_cards": _int("economy.favor_cards", 4, 18),
                "favor_bag": _int("economy.favor_bag", 0, 7)},
    "level_a": {"fury_max": _int("level_a.fury_max", 0, 30),
                "islands": _ints("level_a.islands", N_RUNES, 0, 9),
                "favors": _ints("level_a.favors", N_RUNES, 0, 3)},
}


def _read_text(path: Path) -> str:
    try:
        return path.read_text()
    except OSError as e:
        raise InputError(f"cannot read params file {str(path)!r}: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise InputError(f"params file {str(path)!r} is not valid TOML: {e}") from None


def _path_of(name: str) -> Path:
    if name in PRESETS:
        return HERE / ("params.toml" if name == "default" else f"params_{name}.toml")
    if not name.endswith(".toml"):
        raise InputError(f"params={name!r}: must be a .toml file or one of {', '.join(PRESETS)}")
    return Path(name)


@lru_cache(maxsize=64)
def _load_text(name: str, text: str) -> "Params":
    """Parsed once per (name, text): a study of thousands of cells sets up each cell's
    ``Rules`` several times (plan, play, summary), and parsing was most of its cost."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"params file {str(_path_of(name))!r} is not valid TOML: {e}") \
            from None
    return Params(**_merge(data, name))


@lru_cache(maxsize=1)
def _defaults() -> dict:
    """``params.toml`` beside this module, parsed once (the checks copy what they keep)."""
    return tomllib.loads((HERE / "params.toml").read_text())


def load_params(name: str = "default") -> "Params":
    """The parameters of a preset name or a ``.toml`` path: the defaults of ``params.toml``
    overlaid with the file's keys, every key validated (InputError naming the bad key)."""
    path = _path_of(name)
    return _load_text(name, _read_text(path))     # one-line errors for unreadable files


def _merge(data: dict, name: str) -> dict:
    base = _defaults()
    out = {}
    for table, keys in SCHEMA.items():
        given = data.get(table, {})
        if not isinstance(given, dict):
            raise InputError(f"params {table}: must be a table [{table}] ({name})")
        for key in given:
            if key not in keys:
                raise InputError(f"params {table}.{key}: unknown key; allowed: "
                                 f"{', '.join(keys)} ({name})")
        for key, check in keys.items():
            out[f"{table}_{key}"] = check(given.get(key, base[table][key]))
    for table in data:
        if table not in SCHEMA:
            raise InputError(f"params [{table}]: unknown table; allowed: {', '.join(SCHEMA)}")
    return out


@dataclass(frozen=True)
class Params:
    """Every number the rulebook does not give (§4.3, §4.4), from a parameter file; fields are
    ``<table>_<key>`` of ``params.toml``. Cross-key checks in ``__post_init__``."""

    giants_values: list
    scoring_island: list
    scoring_favor: list
    scoring_village: int
    board_n_regions: int
    board_runes: list
    board_edges: list
    board_docks: list
    board_villages: list
    cards_n_base: int
    cards_generator_seed: int
    cards_strength_lo: int
    cards_strength_hi: int
    cards_n_valkyrie: int
    cards_n_einherjar: int
    cards_valkyrie_needs: list
    cards_rune_action_runes: int
    cards_invader_special_strength: int
    cards_invader_growth: int
    start_resources: list
    start_resource_cap: int
    start_settlers: int
    start_boats: int
    start_temples: int
    start_settlers_on_board: int
    start_regions: list
    economy_draft_size: list
    economy_sail: int
    economy_harvest: int
    economy_boon: int
    economy_valkyrie_harvest_bonus: int
    economy_raid_cost: list
    economy_temple_wood: int
    economy_exchange: int
    economy_rune_resource: list
    economy_favor_cards: int
    economy_favor_bag: int
    level_a_fury_max: int
    level_a_islands: list
    level_a_favors: list

    def __post_init__(self):
        n = self.board_n_regions
        for key, v in (("board.runes", self.board_runes), ("board.villages", self.board_villages)):
            if len(v) != n:
                raise InputError(f"params {key}: needs one entry per region ({n}), got {len(v)}")
        for key, v in (("board.edges", self.board_edges), ("board.docks", self.board_docks)):
            if any(x >= n for e in v for x in e):
                raise InputError(f"params {key}: a region outside 0..{n - 1}")
        if any(len(e) != 2 or e[0] == e[1] for e in self.board_edges):
            raise InputError("params board.edges: each edge is two different regions")
        served = {x for d in self.docks() for x in d}
        if served != set(range(n)):
            raise InputError(f"params board.docks: regions {sorted(set(range(n)) - served)} "
                             "have no dock")
        if max(len(a) for a in self.adjacency()) > MAX_DEGREE:
            raise InputError(f"params board.edges: a region has more than {MAX_DEGREE} neighbours")
        if self.cards_strength_lo > self.cards_strength_hi:
            raise InputError("params cards.strength_lo: must not exceed cards.strength_hi")
        if len(self.cards_valkyrie_needs) != self.cards_n_valkyrie:
            raise InputError(f"params cards.valkyrie_needs: needs one entry per Valkyrie card "
                             f"({self.cards_n_valkyrie})")
        if self.start_settlers_on_board > self.start_settlers:
            raise InputError("params start.settlers_on_board: more than start.settlers")
        if any(r > self.start_resource_cap for r in self.start_resources):
            raise InputError("params start.resources: above start.resource_cap")
        if any(r >= n for r in self.start_regions):
            raise InputError(f"params start.regions: a region outside 0..{n - 1}")

    def start_region(self, position: int, players: int) -> int:
        """§4.7: the start region of the player ``position`` places after the first player
        (0 = the first player): ``start.regions``, or spread out (position x R // players)."""
        if self.start_regions:
            return self.start_regions[position]
        return position * self.board_n_regions // players

    def edges(self) -> list:
        """The region graph's edges (§4.3: [] in the file = the ring, ±1)."""
        n = self.board_n_regions
        if self.board_edges:
            return [tuple(e) for e in self.board_edges]
        return [(r, (r + 1) % n) for r in range(n)] if n > 2 else [(0, 1)]

    def adjacency(self) -> list:
        n = self.board_n_regions
        adj = [set() for _ in range(n)]
        for a, b in self.edges():
            adj[a].add(b)
            adj[b].add(a)
        return [sorted(a) for a in adj]

    def docks(self) -> list:
        return ([list(d) for d in self.board_docks] if self.board_docks
                else [[r] for r in range(self.board_n_regions)])

    def giant_mean(self) -> float:
        return sum(self.giants_values) / N_GIANTS


# --------------------------------------------------------------------------- cards

def make_cards(p: Params) -> np.ndarray:
    """The Viking deck as a table ``int64[n_cards, 6]`` of (kind, strength, rune, steel cost,
    leader, rune action, need) columns (§4.3 generator, assumption): the base cards from a
    fixed generator seed, then the Valkyrie cards (Joker, ``valkyrie_needs``) and Einherjar
    cards (2 per Rune). Column 6 is the Valkyrie card's face-up condition (Valkyries deployed).
    """
    g = np.random.default_rng(p.cards_generator_seed)
    rows = []
    for _ in range(p.cards_n_base):
        s = int(g.integers(p.cards_strength_lo, p.cards_strength_hi + 1))
        rows.append((CardKind.BASE, s, int(g.integers(0, N_RUNES)), int(g.integers(0, 2)),
                     int(g.integers(0, 4)), int(g.integers(0, 4)), 0))
    for i in range(p.cards_n_valkyrie):    # §3.5: leader Explore (Valkyrie flight), Move a Giant
        rows.append((CardKind.VALKYRIE, 0, JOKER, 0, Leader.EXPLORE, RuneAct.MOVE_GIANT,
                     p.cards_valkyrie_needs[i]))
    for i in range(p.cards_n_einherjar):   # §3.5: leader Harvest, Raid a Village (free)
        rows.append((CardKind.EINHERJAR, 0, i % N_RUNES, 0, Leader.HARVEST, RuneAct.RAID_FREE, 0))
    return np.array(rows, np.int64)


CARD_KIND, CARD_STRENGTH, CARD_RUNE, CARD_COST, CARD_LEADER, CARD_RUNEACT, CARD_NEED = range(7)


def favor_runes(p: Params) -> np.ndarray:
    """Passive Rune of each Favor card (§4.3: an equal share per Rune, A, B, C, A, ...)."""
    return np.array([i % N_RUNES for i in range(p.economy_favor_cards)], np.int64)


VALKYRIE_CONDITIONS = ("per_card", "one_or_two")
LAST_BATTLES = ("resolve", "return")
ERA_OPENERS = ("most_runes", "rotate")


@dataclass(frozen=True)
class Rules:
    """Readings of the rules the notes leave open (defaults = the notes' DEFAULT) and the
    parameter file; ``vikingsim`` options are derived from these fields."""

    params: str = rule("default", "parameter file: a .toml path or a preset "
                       f"({', '.join(PRESETS)})", section="§4.3, §4.4")
    valkyrie_card_condition: str = rule("per_card", "Valkyrie card face-up condition: per_card "
                                        "(needs its printed 1 or 2) or one_or_two (1 or 2 "
                                        "deployed, not 3)", section="§6.3",
                                        choices=VALKYRIE_CONDITIONS)
    giant_drain: bool = rule(True, "Cleanup: each Giant on the board drains 1 Fury of its "
                             "region's god (SEED; false = the comparison run)", section="§3.4")
    last_battles: str = rule("resolve", "battles still open when the Era's cards are played: "
                             "resolve them in turn order, or return their prizes",
                             section="§4.7", choices=LAST_BATTLES)
    first_seat: int = rule(0, "seat holding the Chieftain marker at setup (the first "
                           "player); a seat in [0, players-1]", section="§4.7", lo=0,
                           hi=MAX_PLAYERS - 1)
    era_opener: str = rule("most_runes", "who opens Eras 2 and 3: most_runes (PUBLIC: the "
                           "Chieftain marker goes to the most Island Runes, ties to the tied "
                           "player latest in the previous Era's turn order) or rotate (the "
                           "marker passes clockwise, first_seat + Era)", section="§4.7",
                           choices=ERA_OPENERS)
    last_era_drain: bool = rule(False, "the Giant drain also after Era 3, just before scoring "
                                "(false: PUBLIC, the game ends after Era 3 with no Cleanup)",
                                section="§3.4, §4.7")
    attack_after_deploy: bool = rule(True, "Attack Settlers right after a Sail deploys "
                                     "Settlers (PUBLIC; false: only as a card's Rune action)",
                                     section="§2.3, §4.7")
    count_elements: bool = rule(False, "count per seat each action taken and card used, its "
                                "first Era and the cards drafted (GameSpec.element_stats); "
                                "off: the counters stay 0 (about 7% faster)", section="§4.10")

    def __post_init__(self):
        for name, allowed in (("valkyrie_card_condition", VALKYRIE_CONDITIONS),
                              ("last_battles", LAST_BATTLES), ("era_opener", ERA_OPENERS)):
            if getattr(self, name) not in allowed:
                raise InputError(f"{name}={getattr(self, name)!r}: must be one of "
                                 f"{', '.join(allowed)}")
        if not (isinstance(self.first_seat, int) and not isinstance(self.first_seat, bool)
                and 0 <= self.first_seat < MAX_PLAYERS):
            raise InputError(f"first_seat={self.first_seat!r}: must be a seat in "
                             f"[0, {MAX_PLAYERS - 1}]")
        load_params(self.params)

    def check_players(self, players: int) -> None:
        """``first_seat`` names one of the ``players`` seats (one-line InputError)."""
        if self.first_seat >= players:
            raise InputError(f"first_seat={self.first_seat}: must be a seat in "
                             f"[0, {players - 1}]")

    @property
    def p(self) -> Params:
        return load_params(self.params)

    def compile(self) -> "CompiledRules":
        return _compile(self)

    def asdict(self) -> dict:
        return asdict(self)


class CompiledRules(NamedTuple):
    """What the kernel receives: arrays only (a NamedTuple, so the kernel takes it as is).

    ri : int64[N_RULE_SLOTS]          scalars by ``RuleSlot``
    adj : int64[R, MAX_DEGREE]         neighbours of each region, -1 padded
    rune : int64[R]                    Rune of each region
    dock : int64[D, 2]                 regions of each dock (second -1 for a one-region dock)
    villages : int64[R]                Villages per region at the start
    giants : int64[9]                  Giant pool values
    island, favor : int64[3]           VP by god rank 1/2/3
    cards : int64[C, 7]                the deck (``make_cards`` columns)
    favor_rune : int64[F]              Passive Rune of each Favor card
    raid_cost : int64[3]               Steel per Era
    start_res : int64[3]; rune_res : int64[3]
    start_reg : int64[4]               start region per turn position (-1: spread out, §4.7)
    """

    ri: np.ndarray
    adj: np.ndarray
    rune: np.ndarray
    dock: np.ndarray
    villages: np.ndarray
    giants: np.ndarray
    island: np.ndarray
    favor: np.ndarray
    cards: np.ndarray
    favor_rune: np.ndarray
    raid_cost: np.ndarray
    start_res: np.ndarray
    rune_res: np.ndarray
    start_reg: np.ndarray


def _compile(r: Rules) -> CompiledRules:
    p, S = r.p, RuleSlot
    cards = make_cards(p)
    ri = np.zeros(N_RULE_SLOTS, np.int64)
    docks = p.docks()
    vals = {S.N_REGIONS: p.board_n_regions, S.N_DOCKS: len(docks), S.N_CARDS: len(cards),
            S.DRAFT: p.economy_draft_size[0], S.SAIL: p.economy_sail, S.HARVEST: p.economy_harvest,
            S.BOON: p.economy_boon, S.VALK_BONUS: p.economy_valkyrie_harvest_bonus,
            S.TEMPLE_WOOD: p.economy_temple_wood, S.EXCHANGE: p.economy_exchange,
            S.FAVOR_BAG: p.economy_favor_bag, S.N_FAVOR: p.economy_favor_cards,
            S.CAP: p.start_resource_cap, S.SETTLERS: p.start_settlers, S.BOATS: p.start_boats,
            S.TEMPLES: p.start_temples, S.START_ON_BOARD: p.start_settlers_on_board,
            S.RUNE_ACTION_RUNES: p.cards_rune_action_runes,
            S.INVADER_SPECIAL: p.cards_invader_special_strength,
            S.INVADER_GROWTH: p.cards_invader_growth, S.VILLAGE_VP: p.scoring_village,
            S.VALK_CONDITION_ONE_OR_TWO: r.valkyrie_card_condition == "one_or_two",
            S.GIANT_DRAIN: r.giant_drain, S.LAST_BATTLES_RESOLVE: r.last_battles == "resolve",
            S.STRENGTH_HI: p.cards_strength_hi, S.POOL_SUM: sum(p.giants_values),
            S.DRAFT_ERA1: p.economy_draft_size[0], S.DRAFT_ERA2: p.economy_draft_size[1],
            S.DRAFT_ERA3: p.economy_draft_size[2], S.FIRST_SEAT: r.first_seat,
            S.OPENER_MOST_RUNES: r.era_opener == "most_runes",
            S.LAST_ERA_DRAIN: r.last_era_drain, S.ATTACK_AFTER_DEPLOY: r.attack_after_deploy,
            S.COUNT_ELEMENTS: r.count_elements}
    for k, v in vals.items():
        ri[k] = int(v)
    adj = np.full((p.board_n_regions, MAX_DEGREE), -1, np.int64)
    for a, nb in enumerate(p.adjacency()):
        adj[a, :len(nb)] = nb
    dock = np.full((len(docks), 2), -1, np.int64)
    for d, regs in enumerate(docks):
        dock[d, :len(regs)] = regs
    arr = lambda v: np.array(v, np.int64)                                  # noqa: E731
    return CompiledRules(ri=ri, adj=adj, rune=arr(p.board_runes), dock=dock,
                         villages=arr(p.board_villages), giants=arr(p.giants_values),
                         island=arr(p.scoring_island), favor=arr(p.scoring_favor), cards=cards,
                         favor_rune=favor_runes(p), raid_cost=arr(p.economy_raid_cost),
                         start_res=arr(p.start_resources),
                         rune_res=arr(p.economy_rune_resource),
                         start_reg=arr(p.start_regions or [-1] * MAX_PLAYERS))
