"""878 Vikings battle: every rule constant and variant in one frozen ``Rules`` dataclass.

Section numbers cite the rules notes ``docs/rules/battle878.md`` (``878 §x``) and the seed
(Viking Age expansion rulebook, ``SEED §x``). Defaults are the notes' DEFAULT readings; every
expansion rule is off by default. ``Rules.compile()`` gives the arrays the kernels read.

Stable names (the exact solver imports them): ``Face``, ``Unit``, ``Die``, ``Outcome``,
``DEFAULT_FACES``, ``DEFAULT_MAX_DICE``, ``Rules``, ``Rules.face_counts()``,
``Rules.max_dice_of()``, ``parse_faces``, ``CompiledRules``.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from enum import IntEnum
from typing import NamedTuple

import numpy as np

from vikingsim.core.errors import InputError


class Face(IntEnum):
    """Battle-die faces (878 §2.3)."""
    BLANK = 0
    HIT = 1
    FLEE = 2
    COMMAND = 3


class RuneFace(IntEnum):
    """Runes die faces (SEED §4.3) and Prayer die faces (SEED §4.4), one enum for both cards."""
    RUNE = 0
    CONVERSION = 1
    MARTYRDOM = 2
    FAITH = 3


class Die(IntEnum):
    """Battle die colours (878 §2.2); row index of the face table."""
    NORSEMEN = 0   # black
    BERSERKER = 1  # red
    HOUSECARL = 2  # blue
    THEGN = 3      # green
    FYRD = 4       # yellow


class Unit(IntEnum):
    """Unit slots of the battle state (column index of every per-type output array).

    ``FYRD`` are English Fyrd; ``VFYRD`` are Fyrd fighting on the Viking side (Arm Ring of Thor,
    SEED §5.4). Owner of a slot is Vikings for 0, 1, 5 and English for 2, 3, 4, except that the
    Traitors card (SEED §7.3) hands one attacking faction to the defenders.
    """
    NORSEMEN = 0
    BERSERKER = 1
    HOUSECARL = 2
    THEGN = 3
    FYRD = 4
    VFYRD = 5


N_UNITS = 6
UNIT_NAMES = ("norsemen", "berserkers", "housecarls", "thegns", "fyrd", "viking_fyrd")
#: die rolled by each unit slot
UNIT_DIE = (Die.NORSEMEN, Die.BERSERKER, Die.HOUSECARL, Die.THEGN, Die.FYRD, Die.FYRD)
#: 0 = Vikings, 1 = English (before Traitors)
UNIT_SIDE = (0, 0, 1, 1, 1, 0)
VIKINGS, ENGLISH = 0, 1


class Outcome(IntEnum):
    """How one battle ended (878 §4.10 plus expansion outcomes)."""
    VIKINGS_WIN = 0
    ENGLISH_WIN = 1
    BOTH_ELIMINATED = 2
    GODS_PEACE = 3          # SEED §4.4: Vikings must leave the shire
    VIKINGS_RETREAT = 4     # last Viking units Command-moved out (878 §2.3, §5)
    ENGLISH_RETREAT = 5
    TRUNCATED = 6           # max_rolls safety cap hit (878 §4.10 guard), not a result


OUTCOME_KEYS = ("vikings_win", "english_win", "both_eliminated", "gods_peace",
                "vikings_retreat", "english_retreat", "truncated")


class Epic(IntEnum):
    """Epic Battle cards (SEED §7.3); bit ``1 << value`` in the active-card mask."""
    DISORGANIZED_COMBAT = 0
    EPIC_BATTLE = 1
    FAITH = 2
    FOUL_WEATHER = 3
    REINFORCEMENTS = 4
    SINGLE_COMBAT = 5
    TRAITORS = 6
    WAR_SPREADS = 7   # campaign-level: no effect inside one battle


EPIC_NAMES = ("disorganized_combat", "epic_battle", "faith", "foul_weather",
              "reinforcements", "single_combat", "traitors", "war_spreads")
N_EPIC = 8

# 878 §2.2 face table [FAN] MED, one letter per d6 face 1..6:
# H = Hit, F = Flee, C = Command, B = Blank. Data, not code (878 §4.11).
DEFAULT_FACES = {
    "N": "HHHFCC",   # Norsemen: 3 Hit, 1 Flee, 2 Command
    "B": "HHHHCC",   # Berserker: 4 Hit, 0 Flee, 2 Command
    "H": "HHHFCC",   # Housecarl: 3 Hit, 1 Flee, 2 Command
    "T": "HHFFCC",   # Thegn: 2 Hit, 2 Flee, 2 Command
    "F": "HHFFFB",   # Fyrd: 2 Hit, 3 Flee, 1 Blank
}
# 878 §4.3 max dice per type
DEFAULT_MAX_DICE = {"N": 3, "B": 2, "H": 2, "T": 3, "F": 2}
DIE_LETTERS = ("N", "B", "H", "T", "F")
_FACE_LETTER = {"B": Face.BLANK, "H": Face.HIT, "F": Face.FLEE, "C": Face.COMMAND}
# SEED §4.3 Runes die: 4 Rune, 2 Conversion; SEED §4.4 Prayer die: 1 Martyrdom, 2 Conversion, 3 Faith
DEFAULT_RUNES_FACES = "RRRRCC"
DEFAULT_PRAYER_FACES = "MCCFFF"
_RUNE_LETTER = {"R": RuneFace.RUNE, "C": RuneFace.CONVERSION, "M": RuneFace.MARTYRDOM,
                "F": RuneFace.FAITH}
# 878 §2.5: 16 Fyrd cards, four each of 2, 3, 4 and 5 Fyrd [FAN] MED
DEFAULT_FYRD_CARDS = (2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5)


def parse_faces(text: str, base: dict | None = None) -> dict:
    """``"B=HHHFCC,F=HHFFFB"`` → face dict (letters per die, 6 each); unknown parts raise.

    Omitted dice keep ``base`` (default: ``DEFAULT_FACES``).
    """
    out = dict(DEFAULT_FACES if base is None else base)
    if not text or not text.strip():
        return out
    for part in text.split(","):
        key, sep, faces = part.strip().partition("=")
        key, faces = key.strip().upper(), faces.strip().upper()
        if not sep or key not in DIE_LETTERS:
            raise InputError(f"faces: bad item {part!r}; use DIE=SIXLETTERS with DIE in "
                             f"{', '.join(DIE_LETTERS)} and letters H, F, C, B")
        if len(faces) != 6 or any(c not in _FACE_LETTER for c in faces):
            raise InputError(f"faces: {key}={faces!r} needs exactly 6 letters from H, F, C, B")
        out[key] = faces
    return out


def parse_max_dice(text: str) -> dict:
    """``"N=3,B=2"`` → max-dice dict (omitted dice keep 878 §4.3 values)."""
    out = dict(DEFAULT_MAX_DICE)
    if not text or not text.strip():
        return out
    for part in text.split(","):
        key, sep, v = part.strip().partition("=")
        key = key.strip().upper()
        if not sep or key not in DIE_LETTERS or not v.strip().isdigit() or not 0 < int(v) <= 20:
            raise InputError(f"max_dice: bad item {part!r}; use DIE=INT (1..20), DIE in "
                             f"{', '.join(DIE_LETTERS)}")
        out[key] = int(v)
    return out


class CompiledRules(NamedTuple):
    """What the kernels receive: arrays and scalars only."""
    faces: np.ndarray        # int8 (5, 6): Face of die d on d6 value v at [d, v-1]
    rune_faces: np.ndarray   # int8 (6,): RuneFace of the Runes die
    prayer_faces: np.ndarray  # int8 (6,): RuneFace of the Prayer die
    max_dice: np.ndarray     # int64 (5,)
    unit_die: np.ndarray     # int64 (6,)
    fyrd_cards: np.ndarray   # int64 (16,)
    ints: np.ndarray         # int64 (N_RI,): scalar rules, indexed by the R_* constants


# indices of CompiledRules.ints (append only)
(R_NORSEMEN, R_BERSERKERS, R_HOUSECARLS, R_THEGNS, R_FYRD, R_ATTACKER, R_FIRST_ROLLER,
 R_FORT, R_SETTLEMENT, R_RAGNAR, R_NORTHUMBRIA, R_BERSERKER_FIRST_HIT, R_EDMUNDS_FAITH,
 R_MILITARY_REFORM, R_REFORM_UNIT, R_EPIC_MASK, R_EPIC_DECK, R_RAVEN_BANNER, R_ARM_RING,
 R_CHRISTIANS_WRATH, R_EDMUNDS_MARTYRDOM, R_FYRD_CARD, R_RUNES_PRAYER, R_LINEN_CLOTHES,
 R_MAX_ROLLS, R_VALHALLA_DEATHS, R_RESERVE_BERSERKERS, R_REINF_UNITS, R_REINF_FYRD,
 R_ADJ_NORSEMEN, R_ADJ_BERSERKERS, R_ADJ_HOUSECARLS, R_ADJ_THEGNS, R_RUNES_DICE,
 R_PRAYER_DICE, R_FORT_HITS, R_LAGERTHA, R_COMMAND_FYRD, R_FAITH_COUNTS_IGNORED,
 R_MARTYRDOM_BLOCKS_BANK, R_EDMUNDS_SIDE, R_GODS_PEACE_COST, R_CONVERT_COST,
 R_RAGNAROK_COST, R_BATTLE_RAGE_COST, R_DEFEND_FAITH_COST, R_GODS_PEACE_EXIT, R_OMENS_COST,
 R_BFH_CASUALTY, N_RI) = range(50)
#: readings of the Berserker first-hit rule's reach (878 §4.6, base rule 4.5; SEED §5.4 Seidr)
BFH_SCOPES = ("first_english_roll", "first_casualty")
#: Runes/Prayer effect costs in Rune/Faith/Conversion dice (SEED §4.3-4.4)
COST_FIELDS = ("omens_cost", "battle_rage_cost", "ragnarok_cost", "defend_faith_cost",
               "convert_cost", "gods_peace_cost")


@dataclass(frozen=True)
class Rules:
    """One complete reading of an 878 battle; defaults are the rules notes' DEFAULT readings.

    Unit counts are the armies at the start (before Fyrd cards and Epic cards add units).
    """
    # --- armies (878 §4.1). Assumption: the default armies 6 N + 2 B v 3 H + 4 T are invented
    # (no source gives a typical battle)
    norsemen: int = 6
    berserkers: int = 2
    housecarls: int = 3
    thegns: int = 4
    fyrd: int = 0
    attacker: str = "vikings"            # 878 §4.2: the other side defends
    first_roller: str = "defender"       # 878 §4.2 DEFAULT (LOW-MED); alternative "attacker"
    # --- dice as data (878 §2.2, §4.11)
    faces: tuple = tuple(DEFAULT_FACES[k] for k in DIE_LETTERS)      # N, B, H, T, F strings
    max_dice: tuple = tuple(DEFAULT_MAX_DICE[k] for k in DIE_LETTERS)
    runes_faces: str = DEFAULT_RUNES_FACES
    prayer_faces: str = DEFAULT_PRAYER_FACES
    fyrd_cards: tuple = DEFAULT_FYRD_CARDS
    # --- base rules
    berserker_first_hit: bool = True     # base rule 4.5 (878 §2.4, §4.6)
    # how long the first-hit rule waits: the first English roll (878 §4.6 DEFAULT) or the
    # Vikings' first casualty, in whichever English roll it comes (SEED §5.4 Seidr wording)
    berserker_first_hit_scope: str = "first_english_roll"
    # assumption (no source; 878 §2.3 only says a Command retreats "one unit"): Commands
    # never move Fyrd out of a battle
    command_moves_fyrd: bool = False
    max_rolls: int = 1000                # 878 §4.10 safety cap (truncated outcome), not a rule
    # --- Expansion 1 (SEED §1)
    fort: int = 0                        # SEED §1.4, 878 §4.4
    fort_hits: int = 1                   # SEED §1.4: one Hit destroys it
    settlement: int = 0                  # SEED §1.5
    christians_wrath: bool = False       # SEED §1.3: English draw a Fyrd card at the start
    fyrd_card: bool = False              # 878 §2.5 base trigger: English draw a Fyrd card at start
    # --- Expansion 2 (SEED §2.3.2)
    northumbria: bool = False
    # --- Expansion 3 (SEED §3.3)
    edmunds_faith: bool = False          # re-roll Flee and Command results once
    edmunds_faith_side: str = "english"  # which side holds the card
    military_reform: bool = False        # Æthelred: active faction's Hit units flee instead
    # the active faction (SEED §3.3); assumption: 'auto' = the attacking faction with the most
    # units (one battle does not say whose turn it is)
    reform_unit: str = "auto"
    # --- Expansion 4 (SEED §4)
    runes_prayer: bool = False
    runes_dice: int = 4
    prayer_dice: int = 4
    omens_cost: int = 1                  # SEED §4.3: Rune dice per Omens of Victory re-roll
    battle_rage_cost: int = 2
    ragnarok_cost: int = 3
    defend_faith_cost: int = 3
    convert_cost: int = 2
    gods_peace_cost: int = 3
    # Battle Rage needs a Berserker in the Reserve Pile (SEED §4.3); assumption: 8 there (the
    # pile's size is in no source)
    reserve_berserkers: int = 8
    gods_peace_exit: bool = True         # SEED §4.4 "if available": an adjacent shire to leave to
    # Martyrdom (SEED §4.4: no English Command this roll) under Foul Weather (SEED §7.3:
    # Commands are banked). Assumption (not in the notes): true = the voided Commands are not
    # banked either; false = they are still banked against the Vikings' next roll
    martyrdom_blocks_bank: bool = True
    # --- Expansion 5 (SEED §5)
    raven_banner: bool = False
    seidr: bool = False                  # switches off berserker_first_hit
    arm_ring: bool = False
    edmunds_martyrdom: bool = False      # English attack a Viking-held City Shire: Fyrd card
    linen_clothes: str = "none"          # none / vikings / english / both: 2 units per Command
    # --- Expansion 6 (SEED §6.2)
    valhalla_deaths: int = 8
    # --- Expansion 7 (SEED §7)
    epic_card: str = "none"
    epic_deck: int = 0                   # Epic cards shuffled into the Fyrd deck (SEED §7.1: 3)
    reinforcements_units: int = 4        # SEED §7.3 Reinforcements: per faction
    reinforcements_fyrd: int = 4
    adj_norsemen: int = 0                # SEED §7.3 Epic Battle: units in adjacent shires
    adj_berserkers: int = 0
    adj_housecarls: int = 0
    adj_thegns: int = 0
    faith_counts_ignored_flee: bool = False  # 878 §6.8 DEFAULT: an ignored Flee is no Faith Hit
    # --- Expansion 9 (SEED §9)
    ragnar: bool = False
    lagertha: bool = False               # Lagertha's own 2 Norsemen + 1 Berserker join

    def __post_init__(self):
        for name in ("norsemen", "berserkers", "housecarls", "thegns", "fyrd", "adj_norsemen",
                     "adj_berserkers", "adj_housecarls", "adj_thegns"):
            v = getattr(self, name)
            if not 0 <= v <= 500:
                raise InputError(f"{name} must be in [0, 500], got {v}")
        if self.attacker not in ("vikings", "english"):
            raise InputError(f"attacker must be vikings or english, got {self.attacker!r}")
        if self.berserker_first_hit_scope not in BFH_SCOPES:
            raise InputError(f"berserker_first_hit_scope must be one of {', '.join(BFH_SCOPES)}, "
                             f"got {self.berserker_first_hit_scope!r}")
        if any(getattr(self, name) < 1 for name in COST_FIELDS):
            raise InputError(f"{', '.join(COST_FIELDS)} must be at least 1 die each")
        if self.first_roller not in ("defender", "attacker"):
            raise InputError(f"first_roller must be defender or attacker, got {self.first_roller!r}")
        if self.fort not in (0, 1) or self.settlement not in (0, 1):
            raise InputError("fort and settlement must be 0 or 1")
        if self.fort and self.settlement:
            raise InputError("fort=1 and settlement=1: one tile per shire (SEED §1.5); pick one")
        if len(self.faces) != 5 or any(len(f) != 6 or set(f) - set("HFCB") for f in self.faces):
            raise InputError("faces: five 6-letter strings (N, B, H, T, F) of H, F, C, B")
        if len(self.max_dice) != 5 or any(not 1 <= m <= 20 for m in self.max_dice):
            raise InputError("max_dice: five integers in [1, 20]")
        if len(self.runes_faces) != 6 or set(self.runes_faces) - set("RC"):
            raise InputError("runes_faces: 6 letters from R, C")
        if len(self.prayer_faces) != 6 or set(self.prayer_faces) - set("MCF"):
            raise InputError("prayer_faces: 6 letters from M, C, F")
        if self.edmunds_faith_side not in ("english", "vikings"):
            raise InputError("edmunds_faith_side must be english or vikings")
        if self.reform_unit not in ("auto", "norsemen", "berserkers", "housecarls", "thegns"):
            raise InputError("reform_unit must be auto, norsemen, berserkers, housecarls or thegns")
        if self.linen_clothes not in ("none", "vikings", "english", "both"):
            raise InputError("linen_clothes must be none, vikings, english or both")
        if self.epic_card not in ("none",) + EPIC_NAMES:
            raise InputError(f"epic_card must be none or one of {', '.join(EPIC_NAMES)}")
        if not 0 <= self.epic_deck <= N_EPIC:
            raise InputError(f"epic_deck must be in [0, {N_EPIC}]")
        if self.edmunds_martyrdom and self.attacker != "english":
            raise InputError("edmunds_martyrdom needs attacker=english (SEED §5.2: English attack "
                             "a Viking-held City Shire)")
        if not 1 <= self.max_rolls <= 1_000_000:
            raise InputError("max_rolls must be in [1, 1000000]")
        if len(self.fyrd_cards) < 1 or any(not 0 <= c <= 50 for c in self.fyrd_cards):
            raise InputError("fyrd_cards: at least one card, values in [0, 50]")

    # ---- helpers the exact solver may use
    def face_counts(self, die: str | Die) -> dict:
        """{Face: count} of one die (``"N"`` or ``Die.NORSEMEN``)."""
        idx = DIE_LETTERS.index(die) if isinstance(die, str) else int(die)
        s = self.faces[idx]
        return {f: sum(_FACE_LETTER[c] == f for c in s) for f in Face}

    def max_dice_of(self, die: str | Die) -> int:
        idx = DIE_LETTERS.index(die) if isinstance(die, str) else int(die)
        return self.max_dice[idx]

    @property
    def berserker_rule_on(self) -> bool:
        return self.berserker_first_hit and not self.seidr   # SEED §5.4 Seidr

    def with_options(self, **kw) -> "Rules":
        from dataclasses import replace
        return replace(self, **kw)

    def asdict(self) -> dict:
        return asdict(self)

    def compile(self) -> CompiledRules:
        faces = np.array([[int(_FACE_LETTER[c]) for c in f] for f in self.faces], np.int8)
        rf = np.array([int(_RUNE_LETTER[c]) for c in self.runes_faces], np.int8)
        pf = np.array([int(_RUNE_LETTER[c]) for c in self.prayer_faces], np.int8)
        ints = np.zeros(N_RI, np.int64)
        epic_mask = 0 if self.epic_card == "none" else 1 << EPIC_NAMES.index(self.epic_card)
        reform = {"auto": -1, "norsemen": 0, "berserkers": 1, "housecarls": 2, "thegns": 3}
        linen = {"none": 0, "vikings": 1, "english": 2, "both": 3}[self.linen_clothes]
        for i, v in ((R_NORSEMEN, self.norsemen), (R_BERSERKERS, self.berserkers),
                     (R_HOUSECARLS, self.housecarls), (R_THEGNS, self.thegns),
                     (R_FYRD, self.fyrd), (R_ATTACKER, 0 if self.attacker == "vikings" else 1),
                     (R_FIRST_ROLLER, 0 if self.first_roller == "defender" else 1),
                     (R_FORT, self.fort), (R_SETTLEMENT, self.settlement),
                     (R_RAGNAR, self.ragnar), (R_NORTHUMBRIA, self.northumbria),
                     (R_BERSERKER_FIRST_HIT, self.berserker_rule_on),
                     (R_EDMUNDS_FAITH, self.edmunds_faith),
                     (R_EDMUNDS_SIDE, 1 if self.edmunds_faith_side == "english" else 0),
                     (R_MILITARY_REFORM, self.military_reform),
                     (R_REFORM_UNIT, reform[self.reform_unit]), (R_EPIC_MASK, epic_mask),
                     (R_EPIC_DECK, self.epic_deck), (R_RAVEN_BANNER, self.raven_banner),
                     (R_ARM_RING, self.arm_ring), (R_CHRISTIANS_WRATH, self.christians_wrath),
                     (R_EDMUNDS_MARTYRDOM, self.edmunds_martyrdom), (R_FYRD_CARD, self.fyrd_card),
                     (R_RUNES_PRAYER, self.runes_prayer), (R_LINEN_CLOTHES, linen),
                     (R_MAX_ROLLS, self.max_rolls), (R_VALHALLA_DEATHS, self.valhalla_deaths),
                     (R_RESERVE_BERSERKERS, self.reserve_berserkers),
                     (R_REINF_UNITS, self.reinforcements_units),
                     (R_REINF_FYRD, self.reinforcements_fyrd),
                     (R_ADJ_NORSEMEN, self.adj_norsemen), (R_ADJ_BERSERKERS, self.adj_berserkers),
                     (R_ADJ_HOUSECARLS, self.adj_housecarls), (R_ADJ_THEGNS, self.adj_thegns),
                     (R_RUNES_DICE, self.runes_dice), (R_PRAYER_DICE, self.prayer_dice),
                     (R_FORT_HITS, self.fort_hits), (R_LAGERTHA, self.lagertha),
                     (R_COMMAND_FYRD, self.command_moves_fyrd),
                     (R_FAITH_COUNTS_IGNORED, self.faith_counts_ignored_flee),
                     (R_MARTYRDOM_BLOCKS_BANK, self.martyrdom_blocks_bank),
                     (R_GODS_PEACE_COST, self.gods_peace_cost),
                     (R_CONVERT_COST, self.convert_cost), (R_RAGNAROK_COST, self.ragnarok_cost),
                     (R_BATTLE_RAGE_COST, self.battle_rage_cost),
                     (R_DEFEND_FAITH_COST, self.defend_faith_cost),
                     (R_GODS_PEACE_EXIT, self.gods_peace_exit),
                     (R_OMENS_COST, self.omens_cost),
                     (R_BFH_CASUALTY, self.berserker_first_hit_scope == "first_casualty")):
            ints[i] = int(v)
        return CompiledRules(
            faces=faces, rune_faces=rf, prayer_faces=pf,
            max_dice=np.array(self.max_dice, np.int64),
            unit_die=np.array([int(d) for d in UNIT_DIE], np.int64),
            fyrd_cards=np.array(self.fyrd_cards, np.int64), ints=ints)


RULE_FIELDS = tuple(f.name for f in fields(Rules))


def rules_from_options(opts: dict) -> Rules:
    """Flat CLI options (``GAME.options``) → ``Rules``; option names equal field names where
    they exist; ``faces``/``berserker_flee_faces``/``max_dice`` strings are parsed here."""
    kw = {k: v for k, v in opts.items() if k in RULE_FIELDS and k not in ("faces", "max_dice")}
    faces = parse_faces(opts.get("faces", "") or "")
    k = int(opts.get("berserker_flee_faces", 0) or 0)
    if k:
        # SEED §1.4 example shows a Berserker Flee (878 §6.1): turn k Command faces into Flee
        # faces (Hits kept); beyond the Command faces, Hit faces become Flee faces.
        b = list(faces["B"])
        for i in range(6):
            if k and b[5 - i] == "C":
                b[5 - i] = "F"
                k -= 1
        for i in range(6):
            if k and b[5 - i] == "H":
                b[5 - i] = "F"
                k -= 1
        faces["B"] = "".join(b)
    kw["faces"] = tuple(faces[d] for d in DIE_LETTERS)
    md = parse_max_dice(opts.get("max_dice", "") or "")
    kw["max_dice"] = tuple(md[d] for d in DIE_LETTERS)
    return Rules(**kw)
