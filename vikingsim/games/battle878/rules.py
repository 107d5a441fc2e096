"""878 Vikings battle: every rule constant and variant in one frozen ``Rules`` dataclass.

Section numbers cite the rules notes ``docs/rules/battle878.md`` (``878 §x``) and the seed
(Viking Age expansion rulebook, ``SEED §x``). Each rule is declared once, as a ``Rules`` field
made with ``core.options.rule`` (default = the notes' DEFAULT reading, help, section, range or
choices); ``OPTIONS`` is derived from those fields plus the three face-table texts
(``TABLE_OPTIONS``: ``faces``, ``berserker_flee_faces``, ``max_dice``), which
``rules_from_options`` parses into ``Rules.faces``/``Rules.max_dice``. Every expansion rule is
off by default. ``Rules.compile()`` gives the arrays the kernels read (``CompiledRules``): the
face tables (counted once, ``face_pack``), the Hit chance per die and one integer vector
indexed by ``RuleSlot``.

Stable names (the exact solver imports them): ``Face``, ``Unit``, ``Die``, ``Outcome``,
``DEFAULT_FACES``, ``DEFAULT_MAX_DICE``, ``Rules``, ``Rules.face_counts()``,
``Rules.max_dice_of()``, ``parse_faces``, ``CompiledRules``.
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from enum import IntEnum
from typing import NamedTuple

import numpy as np

from vikingsim.core.errors import InputError
from vikingsim.core.options import Option, field_names, options_of, rule


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


N_UNITS = len(Unit)
N_DICE = len(Die)
N_FACES = 6                      # a d6
UNIT_NAMES = ("norsemen", "berserkers", "housecarls", "thegns", "fyrd", "viking_fyrd")
#: die rolled by each unit slot
UNIT_DIE = (Die.NORSEMEN, Die.BERSERKER, Die.HOUSECARL, Die.THEGN, Die.FYRD, Die.FYRD)
#: 0 = Vikings, 1 = English (before Traitors)
UNIT_SIDE = (0, 0, 1, 1, 1, 0)
VIKINGS, ENGLISH = 0, 1
#: side codes of the ``attacker`` / ``edmunds_faith_side`` choices (index = VIKINGS, ENGLISH)
SIDES = ("vikings", "english")
#: ``first_roller`` choices (index = code in the compiled rules)
ROLLERS = ("defender", "attacker")
#: ``reform_unit`` choices; code = index - 1 (-1 = auto, else the Unit slot)
REFORM_UNITS = ("auto", "norsemen", "berserkers", "housecarls", "thegns")
#: ``linen_clothes`` choices; the index is a side mask (bit 1 << VIKINGS, bit 1 << ENGLISH)
LINEN_HOLDERS = ("none", "vikings", "english", "both")
#: bound on every army count (option range)
MAX_UNITS = 500
#: SEED §9.2: Lagertha's own Norsemen and Berserkers join her army
LAGERTHA_NORSEMEN, LAGERTHA_BERSERKERS = 2, 1
#: bound on the dice of one type in a roll (``max_dice``)
MAX_DICE_CAP = 20


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
N_EPIC = len(Epic)

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
#: most Fyrd on one card (``fyrd_cards`` validation)
MAX_FYRD_PER_CARD = 50
#: bits per face count in ``CompiledRules.face_pack``: Hits, Flees << PACK_BITS,
#: Commands << 2 * PACK_BITS (a roll has at most MAX_DICE_CAP dice, far below 2**16)
PACK_BITS = 16
#: readings of the Berserker first-hit rule's reach (878 §4.6, base rule 4.5; SEED §5.4 Seidr)
BFH_SCOPES = ("first_english_roll", "first_casualty")


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
        if len(faces) != N_FACES or any(c not in _FACE_LETTER for c in faces):
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
        if (not sep or key not in DIE_LETTERS or not v.strip().isdigit()
                or not 0 < int(v) <= MAX_DICE_CAP):
            raise InputError(f"max_dice: bad item {part!r}; use DIE=INT (1..{MAX_DICE_CAP}), "
                             f"DIE in {', '.join(DIE_LETTERS)}")
        out[key] = int(v)
    return out


def flee_berserker_faces(faces: str, k: int) -> str:
    """SEED §1.4 example shows a Berserker Flee (878 §6.1): turn ``k`` Command faces of the
    Berserker die into Flee faces (Hits kept), then, beyond the Command faces, Hit faces;
    from face 6 downwards."""
    b = list(faces)
    for letter in ("C", "H"):
        for i in range(N_FACES - 1, -1, -1):
            if k and b[i] == letter:
                b[i] = "F"
                k -= 1
    return "".join(b)


class CompiledRules(NamedTuple):
    """What the kernels receive: arrays only, built once per setup by ``Rules.compile()``."""
    faces: np.ndarray        # int8 (N_DICE, 6): Face of die d on d6 value v at [d, v-1]
    rune_faces: np.ndarray   # int8 (6,): RuneFace of the Runes die
    prayer_faces: np.ndarray  # int8 (6,): RuneFace of the Prayer die
    max_dice: np.ndarray     # int64 (N_DICE,)
    unit_die: np.ndarray     # int64 (N_UNITS,): Die of each Unit slot
    fyrd_cards: np.ndarray   # int64 (n_cards,)
    ints: np.ndarray         # int64 (len(RuleSlot),): scalar rules, indexed by RuleSlot
    face_pack: np.ndarray    # int64 (N_DICE, 6): Hit + Flee << PACK_BITS + Command << 2 PACK_BITS
    phit: np.ndarray         # float64 (N_DICE,): Hit faces / 6 (the policies' odds proxy)


class RuleSlot(IntEnum):
    """Slots of ``CompiledRules.ints``. A slot named like a ``Rules`` field (upper case) holds
    that field's number; the others are codes set in ``Rules._codes``."""
    NORSEMEN = 0
    BERSERKERS = 1
    HOUSECARLS = 2
    THEGNS = 3
    FYRD = 4
    ATTACKER = 5                    # code: VIKINGS / ENGLISH
    FIRST_ROLLER = 6                # code: index in ROLLERS
    FORT = 7
    SETTLEMENT = 8
    RAGNAR = 9
    NORTHUMBRIA = 10
    BERSERKER_FIRST_HIT = 11        # code: Rules.berserker_rule_on (Seidr switches it off)
    EDMUNDS_FAITH = 12
    MILITARY_REFORM = 13
    REFORM_UNIT = 14                # code: -1 auto, else the Unit slot
    EPIC_MASK = 15                  # code: 1 << Epic of epic_card, 0 for none
    EPIC_DECK = 16
    RAVEN_BANNER = 17
    ARM_RING = 18
    CHRISTIANS_WRATH = 19
    EDMUNDS_MARTYRDOM = 20
    FYRD_CARD = 21
    RUNES_PRAYER = 22
    LINEN_CLOTHES = 23              # code: side mask (index in LINEN_HOLDERS)
    MAX_ROLLS = 24
    VALHALLA_DEATHS = 25
    RESERVE_BERSERKERS = 26
    REINFORCEMENTS_UNITS = 27
    REINFORCEMENTS_FYRD = 28
    ADJ_NORSEMEN = 29
    ADJ_BERSERKERS = 30
    ADJ_HOUSECARLS = 31
    ADJ_THEGNS = 32
    RUNES_DICE = 33
    PRAYER_DICE = 34
    FORT_HITS = 35
    LAGERTHA = 36
    COMMAND_MOVES_FYRD = 37
    FAITH_COUNTS_IGNORED_FLEE = 38
    MARTYRDOM_BLOCKS_BANK = 39
    EDMUNDS_FAITH_SIDE = 40         # code: VIKINGS / ENGLISH
    GODS_PEACE_COST = 41
    CONVERT_COST = 42
    RAGNAROK_COST = 43
    BATTLE_RAGE_COST = 44
    DEFEND_FAITH_COST = 45
    GODS_PEACE_EXIT = 46
    OMENS_COST = 47
    FIRST_HIT_UNTIL_CASUALTY = 48   # code: berserker_first_hit_scope == "first_casualty"


N_RULE_SLOTS = len(RuleSlot)


def _army(default, help, section="878 §4.1"):
    return rule(default, help, section=section, lo=0, hi=MAX_UNITS)


def _cost(default, help, section):
    return rule(default, help, section=section, lo=1, option=False)


@dataclass(frozen=True)
class Rules:
    """One complete reading of an 878 battle; defaults are the rules notes' DEFAULT readings.

    Unit counts are the armies at the start (before Fyrd cards and Epic cards add units).
    Fields made with ``option=False`` are rule data no ``--set`` option exposes (the face
    tables are set through the ``TABLE_OPTIONS`` texts).
    """
    # --- armies and sides (878 §4.1-4.2)
    norsemen: int = _army(6, "Viking Norsemen in the battle (878 §4.1; assumption: the default "
                          "armies 6 N + 2 B v 3 H + 4 T are invented, no source gives them)")
    berserkers: int = _army(2, "Viking Berserkers in the battle (default: assumption, see "
                            "norsemen)")
    housecarls: int = _army(3, "English Housecarls in the battle (default: assumption, see "
                            "norsemen)")
    thegns: int = _army(4, "English Thegns in the battle (default: assumption, see norsemen)")
    fyrd: int = _army(0, "English Fyrd in the battle at the start")
    attacker: str = rule("vikings", "attacking side; the other side defends",
                         section="878 §4.2", choices=SIDES)
    first_roller: str = rule("defender", "who rolls first (878 §4.2 DEFAULT defender; [FAN] "
                             "LOW-MED)", section="878 §4.2", choices=ROLLERS)
    # --- Expansion 1 structures (SEED §1.4-1.5, 878 §4.4)
    fort: int = rule(0, "Viking Fort in the shire (SEED §1.4): +1 Norsemen and +1 Berserker "
                     "die within the caps, takes fort_hits Hits, never flees, not a unit",
                     section="SEED §1.4", lo=0, hi=1)
    fort_hits: int = rule(1, "Hits a Fort absorbs (SEED §1.4: one)", section="SEED §1.4",
                          lo=1, hi=10)
    settlement: int = rule(0, "Viking Settlement (SEED §1.5): +1 Berserker die, one Hit",
                           section="SEED §1.5", lo=0, hi=1)
    # --- leaders, kingdoms, the first-hit rule
    ragnar: bool = rule(False, "Ragnar Lodbrok in the battle (SEED §9.1): Commands of the "
                        "first English roll count as Flees", section="SEED §9.1")
    northumbria: bool = rule(False, "Northumbria held by the English (SEED §2.3.2): the first "
                             "English Flee of the battle is ignored (Housecarl, Thegn, Fyrd "
                             "order)", section="SEED §2.3.2")
    seidr: bool = rule(False, "relic Seidr in the shire (SEED §5.4): no Berserker first-hit "
                       "rule", section="SEED §5.4")
    berserker_first_hit: bool = rule(True, "base rule 4.5 (878 §4.6): the first Hit of the "
                                     "first English roll must kill a Berserker (for how long: "
                                     "berserker_first_hit_scope)", section="878 §4.6")
    berserker_first_hit_scope: str = rule(
        "first_english_roll", "how long the first-hit rule waits: first_english_roll (878 "
        "§4.6 DEFAULT: it lapses after the first English roll, Hit or not) or first_casualty "
        "(SEED §5.4 Seidr's 'first casualty': the first English Hit of the battle, in "
        "whichever roll it comes)", section="878 §4.6", choices=BFH_SCOPES)
    # --- Expansion 3 Kings (SEED §3.3)
    edmunds_faith: bool = rule(False, "King Edmund's Faith played (SEED §3.3): the holder's "
                               "Flee and Command results are re-rolled once",
                               section="SEED §3.3")
    edmunds_faith_side: str = rule("english", "side holding Edmund's Faith (King cards are "
                                   "dealt to any faction, SEED §3.1)", section="SEED §3.1",
                                   choices=("english", "vikings"))
    military_reform: bool = rule(False, "King Æthelred's Military Reform (SEED §3.3): in this "
                                 "(first) battle the active faction's Hit units flee instead "
                                 "of dying", section="SEED §3.3")
    reform_unit: str = rule("auto", "the active faction for military_reform (SEED §3.3; auto "
                            "is an assumption: the attacking faction with the most units)",
                            section="SEED §3.3", choices=REFORM_UNITS)
    # --- Expansion 7 Epic Battle cards (SEED §7)
    epic_card: str = rule("none", "Epic Battle card in force for the battle (SEED §7.3; War "
                          "Spreads is campaign-level and has no battle effect)",
                          section="SEED §7.3", choices=("none",) + EPIC_NAMES)
    epic_deck: int = rule(0, "Epic cards shuffled into the Fyrd deck (SEED §7.1: 3); one "
                          "drawn during a Fyrd draw joins the battle", section="SEED §7.1",
                          lo=0, hi=N_EPIC)
    reinforcements_units: int = rule(4, "Reinforcements card: units per faction (SEED §7.3; "
                                     "stockpiles assumed to have them)", section="SEED §7.3",
                                     lo=0, hi=100)
    reinforcements_fyrd: int = rule(4, "Reinforcements card: extra Fyrd", section="SEED §7.3",
                                    lo=0, hi=100)
    adj_norsemen: int = _army(0, "Epic Battle card: Norsemen brought from adjacent shires",
                              "SEED §7.3")
    adj_berserkers: int = _army(0, "Epic Battle card: Berserkers from adjacent shires",
                                "SEED §7.3")
    adj_housecarls: int = _army(0, "Epic Battle card: Housecarls from adjacent shires",
                                "SEED §7.3")
    adj_thegns: int = _army(0, "Epic Battle card: Thegns from adjacent shires", "SEED §7.3")
    faith_counts_ignored_flee: bool = rule(False, "Faith card: a Flee ignored by Northumbria "
                                           "still gives the Faith Hit (878 §6.8 DEFAULT: no)",
                                           section="878 §6.8")
    # --- Expansion 5 relics and holy sites (SEED §5)
    raven_banner: bool = rule(False, "relic Raven Banner (SEED §5.4): a Thegn die at the "
                              "start: Hit = +1 Hit per Viking roll, Flee = 1 Norseman + 1 "
                              "Berserker flee before each", section="SEED §5.4")
    arm_ring: bool = rule(False, "relic Arm Ring of Thor used (SEED §5.4): a Fyrd card's Fyrd "
                          "fight on the Viking side (lost first)", section="SEED §5.4")
    # --- Fyrd cards (878 §2.5)
    christians_wrath: bool = rule(False, "Christian's Wrath (SEED §1.3): a plundered church "
                                  "draws a Fyrd card for the English at the start",
                                  section="SEED §1.3")
    edmunds_martyrdom: bool = rule(False, "Holy Site King Edmund's Martyrdom (SEED §5.2): a "
                                   "Fyrd card when the English attack a Viking-held City "
                                   "Shire (needs attacker=english)", section="SEED §5.2")
    fyrd_card: bool = rule(False, "base Fyrd trigger (878 §2.5): the English draw a Fyrd card "
                           "at the start (an English City Shire attacked)", section="878 §2.5")
    fyrd_cards: tuple = rule(DEFAULT_FYRD_CARDS, "the Fyrd deck: Fyrd on each card",
                             section="878 §2.5", option=False)
    # --- Expansion 4 Runes and Prayer (SEED §4)
    runes_prayer: bool = rule(False, "Runes and Prayer dice (SEED §4); use with policies "
                              "greedy / smart / random", section="SEED §4")
    runes_dice: int = rule(4, "Runes dice per battle (SEED §4.1)", section="SEED §4.1",
                           lo=0, hi=20)
    prayer_dice: int = rule(4, "Prayer dice per battle (SEED §4.1)", section="SEED §4.1",
                            lo=0, hi=20)
    runes_faces: str = rule(DEFAULT_RUNES_FACES, "Runes die faces (R Rune, C Conversion)",
                            section="SEED §4.3", option=False)
    prayer_faces: str = rule(DEFAULT_PRAYER_FACES, "Prayer die faces (M Martyrdom, C "
                             "Conversion, F Faith)", section="SEED §4.4", option=False)
    omens_cost: int = _cost(1, "Rune dice per Omens of Victory re-roll", "SEED §4.3")
    battle_rage_cost: int = _cost(2, "Rune dice per Battle Rage", "SEED §4.3")
    ragnarok_cost: int = _cost(3, "Rune dice for Ragnarök", "SEED §4.3")
    defend_faith_cost: int = _cost(3, "Faith dice per Defend the Faith", "SEED §4.4")
    convert_cost: int = _cost(2, "Conversion dice per Convert", "SEED §4.4")
    gods_peace_cost: int = _cost(3, "Conversion dice for God's Peace", "SEED §4.4")
    reserve_berserkers: int = rule(8, "Berserkers in the Reserve Pile for Battle Rage (SEED "
                                   "§4.3; the default 8 is an assumption: no source gives the "
                                   "pile's size)", section="SEED §4.3", lo=0, hi=100)
    gods_peace_exit: bool = rule(True, "God's Peace (SEED §4.4) needs an adjacent empty or "
                                 "friendly shire for the Vikings ('if available'); false: it "
                                 "cannot be bought", section="SEED §4.4")
    martyrdom_blocks_bank: bool = rule(True, "Martyrdom (SEED §4.4) under Foul Weather (SEED "
                                       "§7.3): true = the English Commands it voids are not "
                                       "banked either; false = they are still banked "
                                       "(assumption: the notes do not cover it)",
                                       section="SEED §4.4")
    # --- Commands (878 §2.3, SEED §5.2)
    linen_clothes: str = rule("none", "who holds the Linen Clothes of St Æthelthryth (SEED "
                              "§5.2): each of that side's Commands moves up to 2 units (used "
                              "by retreat policies)", section="SEED §5.2",
                              choices=LINEN_HOLDERS)
    command_moves_fyrd: bool = rule(False, "Commands may move Fyrd out of the battle "
                                    "(assumption: no source says, 878 §2.3 only says a Command "
                                    "retreats one unit; default no)", section="878 §2.3")
    # --- Expansion 6 (SEED §6.2), Expansion 9 (SEED §9.2)
    valhalla_deaths: int = rule(8, "Valhalla's Glory (SEED §6.2): Viking deaths needed",
                                section="SEED §6.2", lo=1, hi=1000)
    lagertha: bool = rule(False, "the Viking army is Lagertha's (SEED §9.2): her 2 Norsemen + "
                          "1 Berserker join the units given (transferred from the other "
                          "Invasion card)", section="SEED §9.2")
    # --- dice as data (878 §2.2, §4.3, §4.11): set with the TABLE_OPTIONS texts
    faces: tuple = rule(tuple(DEFAULT_FACES[k] for k in DIE_LETTERS), "battle-die faces, one "
                        "6-letter string per die N, B, H, T, F", section="878 §2.2",
                        option=False)
    max_dice: tuple = rule(tuple(DEFAULT_MAX_DICE[k] for k in DIE_LETTERS), "max dice per "
                           "type N, B, H, T, F", section="878 §4.3", option=False)
    max_rolls: int = rule(1000, "safety cap on rolls per battle; a capped battle is "
                          "'truncated', never a win", section="878 §4.10", lo=1, hi=1_000_000)

    def __post_init__(self):
        _check_declared(self)
        if self.fort and self.settlement:
            raise InputError("fort=1 and settlement=1: one tile per shire (SEED §1.5); pick one")
        if (len(self.faces) != N_DICE
                or any(len(f) != N_FACES or set(f) - set(_FACE_LETTER) for f in self.faces)):
            raise InputError("faces: five 6-letter strings (N, B, H, T, F) of H, F, C, B")
        if (len(self.max_dice) != N_DICE
                or any(not 1 <= m <= MAX_DICE_CAP for m in self.max_dice)):
            raise InputError(f"max_dice: five integers in [1, {MAX_DICE_CAP}]")
        if len(self.runes_faces) != N_FACES or set(self.runes_faces) - set("RC"):
            raise InputError("runes_faces: 6 letters from R, C")
        if len(self.prayer_faces) != N_FACES or set(self.prayer_faces) - set("MCF"):
            raise InputError("prayer_faces: 6 letters from M, C, F")
        if self.edmunds_martyrdom and self.attacker != "english":
            raise InputError("edmunds_martyrdom needs attacker=english (SEED §5.2: English attack "
                             "a Viking-held City Shire)")
        if (len(self.fyrd_cards) < 1
                or any(not 0 <= c <= MAX_FYRD_PER_CARD for c in self.fyrd_cards)):
            raise InputError(f"fyrd_cards: at least one card, values in [0, {MAX_FYRD_PER_CARD}]")

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

    def _codes(self) -> dict:
        """The RuleSlot values that are codes, not a field's own number."""
        epic = 0 if self.epic_card == "none" else 1 << EPIC_NAMES.index(self.epic_card)
        return {RuleSlot.ATTACKER: SIDES.index(self.attacker),
                RuleSlot.FIRST_ROLLER: ROLLERS.index(self.first_roller),
                RuleSlot.BERSERKER_FIRST_HIT: self.berserker_rule_on,
                RuleSlot.REFORM_UNIT: REFORM_UNITS.index(self.reform_unit) - 1,
                RuleSlot.EPIC_MASK: epic,
                RuleSlot.LINEN_CLOTHES: LINEN_HOLDERS.index(self.linen_clothes),
                RuleSlot.EDMUNDS_FAITH_SIDE: SIDES.index(self.edmunds_faith_side),
                RuleSlot.FIRST_HIT_UNTIL_CASUALTY:
                    self.berserker_first_hit_scope == "first_casualty"}

    def compile(self) -> CompiledRules:
        faces = np.array([[int(_FACE_LETTER[c]) for c in f] for f in self.faces], np.int8)
        codes = self._codes()
        ints = np.array([int(codes[s] if s in codes else getattr(self, s.name.lower()))
                         for s in RuleSlot], np.int64)
        return CompiledRules(
            faces=faces,
            rune_faces=np.array([int(_RUNE_LETTER[c]) for c in self.runes_faces], np.int8),
            prayer_faces=np.array([int(_RUNE_LETTER[c]) for c in self.prayer_faces], np.int8),
            max_dice=np.array(self.max_dice, np.int64),
            unit_die=np.array([int(d) for d in UNIT_DIE], np.int64),
            fyrd_cards=np.array(self.fyrd_cards, np.int64), ints=ints,
            face_pack=_face_pack(faces), phit=(faces == Face.HIT).sum(axis=1) / 6.0)


def _face_pack(faces: np.ndarray) -> np.ndarray:
    """Hit + (Flee << PACK_BITS) + (Command << 2 * PACK_BITS) per die and face: summing one
    entry per die rolled counts all three results of a roll at once."""
    count = [(faces == f).astype(np.int64) for f in (Face.HIT, Face.FLEE, Face.COMMAND)]
    return count[0] + (count[1] << PACK_BITS) + (count[2] << 2 * PACK_BITS)


def _check_declared(r: Rules) -> None:
    """Each field's range and choices, as its ``rule(...)`` declares them (InputError)."""
    for f in fields(r):
        meta = f.metadata.get("vikingsim")
        if meta is None:
            continue
        v = getattr(r, f.name)
        if meta["choices"] and v not in meta["choices"]:
            raise InputError(f"{f.name} must be one of {', '.join(meta['choices'])}, "
                             f"got {v!r}")
        lo, hi = meta["lo"], meta["hi"]
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            bound = f"at least {lo}" if hi is None else f"in [{lo}, {hi}]"
            raise InputError(f"{f.name} must be {bound}, got {v!r}")


# every slot that is no code names a field
assert {s.name.lower() for s in RuleSlot if s not in Rules()._codes()} <= \
    {f.name for f in fields(Rules)}

#: Options that are not Rules fields of their own: texts parsed into ``Rules.faces`` and
#: ``Rules.max_dice`` by ``rules_from_options``.
TABLE_OPTIONS = (
    Option("faces", "str", "", "face-table override, e.g. 'B=HHHHCF,F=HHFFFB' (letters per d6 "
           "face: H Hit, F Flee, C Command, B Blank; 878 §4.11)"),
    Option("berserker_flee_faces", "int", 0, "turn this many Berserker Command faces into Flee "
           "faces (878 §6.1, the seed's Berserker Flee)", 0, N_FACES),
    Option("max_dice", "str", "", "max-dice override, e.g. 'N=3,B=2,H=2,T=3,F=2' (878 §4.3)"),
)
#: every option of the game: one per Rules field that is an option, then the table texts
OPTIONS = options_of(Rules) + TABLE_OPTIONS
_TABLE_DEFAULTS = {o.name: o.default for o in TABLE_OPTIONS}
_OPTION_FIELDS = field_names(Rules)
#: Rules fields that are no option but may be given by field name (tests, experiments)
_DATA_FIELDS = {f.name for f in fields(Rules)} - set(_OPTION_FIELDS.values()) \
    - {"faces", "max_dice"}


def rules_from_options(opts: dict) -> Rules:
    """Flat options (``OPTIONS``; any subset, the rest keep their defaults) → ``Rules``.

    Option names map to fields by ``field_names``; the ``TABLE_OPTIONS`` texts are parsed
    into ``faces`` and ``max_dice``; other Rules fields (effect costs, die faces) may be given
    by field name.
    """
    kw = {_OPTION_FIELDS.get(k, k): v for k, v in opts.items()
          if k in _OPTION_FIELDS or k in _DATA_FIELDS}
    table = {**_TABLE_DEFAULTS, **{k: v for k, v in opts.items() if k in _TABLE_DEFAULTS}}
    faces = parse_faces(table["faces"])
    faces["B"] = flee_berserker_faces(faces["B"], int(table["berserker_flee_faces"]))
    kw["faces"] = tuple(faces[d] for d in DIE_LETTERS)
    md = parse_max_dice(table["max_dice"])
    kw["max_dice"] = tuple(md[d] for d in DIE_LETTERS)
    return Rules(**kw)
