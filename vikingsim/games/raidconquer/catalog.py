"""The Raid & Conquer card catalog as data (raidconquer §12): load ``cards.toml`` (or a
designer's copy, option ``catalog``), validate it (one ``InputError`` line naming the card:
every field's type and its range in ``RANGES``), and compile it to the arrays the kernel reads.

Card ids are the positions of the card designs in the file (one id per design; copies are
counted, not numbered). Ability keywords (§11) compile to codes: ``Ability`` for the
OR-alternatives of ``choose_one`` (§3.4), ``Persist`` bits for the persistent abilities.
"""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from enum import IntEnum
from pathlib import Path

import numpy as np

from vikingsim.core.errors import InputError

BUNDLED = Path(__file__).with_name("cards.toml")


class Pile(IntEnum):
    """Where a card design lives (§2): its supply and border."""

    VIKING = 0
    EVENT = 1
    WARRIORS = 2
    HACKSILVER = 3
    LONGBOAT = 4
    COIN = 5
    TREASURE = 6
    RAID = 7


class Ability(IntEnum):
    """Conditional abilities joined by OR (§3.4, §7.3, §11.2, §11.3); amount in ``alt_n``."""

    NONE = 0
    DRAW = 1                       # +N cards
    SACRIFICE_DRAW = 2             # sacrifice a card: +N cards
    SHIPBUILD = 3                  # sacrifice this card: take a Longboat into play
    SACRIFICE_SELF_SILVER = 4      # Warriors: sacrifice this: +N Silver
    SACRIFICE_SELF_HACKSILVER = 5  # Warriors: sacrifice this: gain 1 Hacksilver
    BURY = 6                       # bury a Coin, Hacksilver or Treasure in play (§7.6)
    MAY_SACRIFICE_SILVER = 7       # "You may" sacrifice a card: +N Silver (Priests, assumption)
    MAY_SACRIFICE_POWER = 8        # "You may" sacrifice a card: +N Power (Thor's Might, assumption)
    MAY_RITUAL_SEARCH = 9          # "You may" sacrifice a card: take a Viking from deck/discard


class Persist(IntEnum):
    """Persistent abilities (§11.1) as bits of ``persist``."""

    BATTLE_FRENZY = 1
    LEADERSHIP = 2
    BATTLE_SHIP = 4
    COMMAND_SHIP = 8


PILE_NAMES = {p.name.lower(): p for p in Pile}
ALT_WORDS = {"draw": Ability.DRAW, "sacrifice_draw": Ability.SACRIFICE_DRAW,
             "shipbuild": Ability.SHIPBUILD,
             "sacrifice_self_silver": Ability.SACRIFICE_SELF_SILVER,
             "sacrifice_self_hacksilver": Ability.SACRIFICE_SELF_HACKSILVER,
             "bury": Ability.BURY, "may_sacrifice_silver": Ability.MAY_SACRIFICE_SILVER,
             "may_sacrifice_power": Ability.MAY_SACRIFICE_POWER,
             "may_ritual_search": Ability.MAY_RITUAL_SEARCH}
#: Alternatives that take an amount ("draw:2"); the others take none (amount 1).
ALT_WITH_AMOUNT = {Ability.DRAW, Ability.SACRIFICE_DRAW, Ability.SACRIFICE_SELF_SILVER,
                   Ability.MAY_SACRIFICE_SILVER, Ability.MAY_SACRIFICE_POWER}
PERSIST_WORDS = {"battle_frenzy": Persist.BATTLE_FRENZY, "leadership": Persist.LEADERSHIP,
                 "battle_ship": Persist.BATTLE_SHIP, "command_ship": Persist.COMMAND_SHIP}
MAX_ALTS = 3                       # Odin's Witness has three OR-alternatives (§11.3)
#: §2 SEED component counts: copies per pile (Viking and Event cards share 60).
COMPONENTS = {"viking+event": 60, "warriors": 15, "hacksilver": 15, "longboat": 25,
              "raid": 21, "treasure": 44, "coin": 40}
#: Piles that hold a single design (one Village pile each; §4.1).
SINGLE_DESIGN = (Pile.WARRIORS, Pile.HACKSILVER, Pile.LONGBOAT, Pile.COIN)
STAT_FIELDS = ("cost", "power", "influence", "defense", "silver", "legend", "level")
KNOWN_FIELDS = {"name", "pile", "copies", "abilities", "choose_one", "assumption",
                *STAT_FIELDS}
ABILITY_WORDS = (*PERSIST_WORDS, "betray", "attack_character:N")
N_LEVELS = 5
#: Largest statistic and ability amount (two digits, as printed on a card). With at most
#: ``sum(COMPONENTS)`` = 220 cards and 1000 rounds, a whole game's sums stay far inside the
#: kernel's outputs: Legend <= 220 * 99 = 21,780 < 2**15 (int16); Silver seen per round
#: <= 220 * (99 + 99) and per game <= 1000 times that = 43.6 million < 2**31 (int32).
MAX_STAT = 99
MAX_AMOUNT = MAX_STAT
AMOUNT = re.compile(r"[0-9]{1,3}")          # ASCII digits only ("²".isdigit() is True)
#: [lo, hi] of every numeric field; ``RAID_RANGES`` replaces them on Raid cards. Copies: the
#: largest §2 pile (60 Viking/Event cards); level: Raid cards only (§4.3).
RANGES = {"copies": (1, 60), "level": (0, 0),
          **{k: (0, MAX_STAT) for k in STAT_FIELDS if k != "level"}}
RAID_RANGES = {"level": (1, N_LEVELS), "defense": (1, MAX_STAT)}


@dataclass(frozen=True)
class Catalog:
    """A validated catalog compiled to arrays (index = card id); K = number of designs.

    pile, copies, cost, power, influence, defense, silver, legend, level : int64[K]
    attack_char : int64[K]   Power when attacking a character (-1: none; §11.3 Kalf)
    persist : int64[K]       bit set of ``Persist``
    betray : int64[K]        1 for Betray cards (§8.2.4)
    alt : int64[K, MAX_ALTS] ``Ability`` codes of the OR-alternatives (0 = none)
    alt_n : int64[K, MAX_ALTS] their amounts
    names : tuple of str; assumed : tuple of (name, fields) for every invented value
    """

    names: tuple
    pile: np.ndarray
    copies: np.ndarray
    cost: np.ndarray
    power: np.ndarray
    influence: np.ndarray
    defense: np.ndarray
    silver: np.ndarray
    legend: np.ndarray
    level: np.ndarray
    attack_char: np.ndarray
    persist: np.ndarray
    betray: np.ndarray
    alt: np.ndarray
    alt_n: np.ndarray
    assumed: tuple
    source: str

    @property
    def n_kinds(self) -> int:
        return len(self.names)

    def id_of(self, name: str) -> int:
        return self.names.index(name)

    def of_pile(self, pile: Pile) -> list[int]:
        return [k for k in range(self.n_kinds) if self.pile[k] == pile]

    def special(self, pile: Pile) -> int:
        """The one design of a single-design Village/basic pile (Coin, Longboat, ...)."""
        return self.of_pile(pile)[0]


def load(path: str | Path | None = None) -> Catalog:
    """Read and validate a catalog TOML (``None`` or ``""``: the bundled ``cards.toml``)."""
    p = BUNDLED if not path else Path(path)
    if p.suffix.lower() != ".toml":        # only a .toml name is a path (core.inputs)
        raise InputError(f"catalog {str(p)!r}: must be a .toml file ('' = the bundled cards)")
    try:
        data = tomllib.loads(p.read_text())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:   # both are ValueErrors
        raise InputError(f"catalog {str(p)!r} is not valid TOML: {e}") from None
    except RecursionError:
        raise InputError(f"catalog {str(p)!r}: arrays or tables nested too deeply") from None
    except (OSError, ValueError) as e:                            # ValueError: a NUL byte
        raise InputError(f"catalog {str(p)!r}: cannot read ({e.strerror or e})"
                         if isinstance(e, OSError) else f"catalog path {str(p)!r}: {e}") from None
    cards = data.get("card")
    if not isinstance(cards, list) or not cards:
        raise InputError(f"catalog {str(p)!r}: needs [[card]] tables")
    return _compile([_card(c, i) for i, c in enumerate(cards)], str(p))


def _show(v) -> str:
    """``repr`` of a bad value, cut short (an error stays one readable line)."""
    r = repr(v)
    return r if len(r) <= 40 else r[:37] + "..."


def _int(card: dict, key: str, who: str, lo: int, hi: int, default: int = 0) -> int:
    v = card.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int):
        raise InputError(f"catalog card {who}: {key} must be an integer, got {_show(v)}")
    if v < 0:
        raise InputError(f"catalog card {who}: negative {key} ({_show(v)})")
    if not lo <= v <= hi:
        raise InputError(f"catalog card {who}: {key} = {_show(v)} must be in [{lo}, {hi}]")
    return v


def _words(card: dict, key: str, who: str) -> list:
    """The list of keyword strings of ``abilities`` or ``choose_one`` ([] when absent)."""
    v = card.get(key, [])
    if not isinstance(v, list) or not all(isinstance(w, str) for w in v):
        raise InputError(f"catalog card {who}: {key} must be a list of strings, got {_show(v)}")
    return v


def _amount(word: str, who: str, lo: int, what: str) -> int:
    """The N of ``keyword:N``, a whole number in [lo, MAX_AMOUNT]."""
    n = word.partition(":")[2]
    if not AMOUNT.fullmatch(n) or not lo <= int(n) <= MAX_AMOUNT:
        raise InputError(f"catalog card {who}: {what} {_show(word)}: amount must be a whole "
                         f"number in [{lo}, {MAX_AMOUNT}]")
    return int(n)


def _abilities(row: dict, words: list, who: str) -> None:
    """§11.1-§11.3: persistent bits, ``betray`` and ``attack_character:N`` into ``row``."""
    for word in words:
        key, sep, _ = word.partition(":")
        if key == "attack_character" and sep:
            row["attack_char"] = _amount(word, who, 0, "ability")
        elif key in PERSIST_WORDS or key == "betray":
            if sep:
                raise InputError(f"catalog card {who}: ability {_show(word)} takes no amount")
            if key == "betray":
                row["betray"] = 1
            else:
                row["persist"] |= int(PERSIST_WORDS[key])
        else:
            raise InputError(f"catalog card {who}: unknown ability keyword {_show(word)}; "
                             f"allowed: {', '.join(ABILITY_WORDS)}")


def _alternatives(row: dict, words: list, who: str) -> None:
    """§3.4: the OR-alternatives of ``choose_one`` into ``row['alt']``, ``row['alt_n']``."""
    if len(words) > MAX_ALTS:
        raise InputError(f"catalog card {who}: at most {MAX_ALTS} choose_one alternatives")
    for word in words:
        key, sep, _ = word.partition(":")
        if key not in ALT_WORDS:
            raise InputError(f"catalog card {who}: unknown choose_one keyword {_show(word)}; "
                             f"allowed: {', '.join(ALT_WORDS)}")
        code = ALT_WORDS[key]
        if bool(sep) != (code in ALT_WITH_AMOUNT):
            need = "takes no amount" if sep else "needs an amount (e.g. draw:1)"
            raise InputError(f"catalog card {who}: choose_one {_show(word)} {need}")
        row["alt"].append(int(code))
        row["alt_n"].append(_amount(word, who, 1, "choose_one") if sep else 1)


def _assumed(c: dict, who: str) -> tuple:
    a = c.get("assumption", False)
    if not (isinstance(a, bool) or (isinstance(a, list)
                                    and all(isinstance(x, str) and x in KNOWN_FIELDS
                                            for x in a))):
        raise InputError(f"catalog card {who}: assumption must be true/false or a list of "
                         "field names")
    return ("all",) if a is True else tuple(a or ())


def _card(c: dict, i: int) -> dict:
    """One validated card row (names the card in every error; ranges: ``RANGES``)."""
    if not isinstance(c, dict):
        raise InputError(f"catalog card #{i + 1}: not a table")
    name = c.get("name")
    who = _show(name) if isinstance(name, str) else f"#{i + 1}"
    if not isinstance(name, str) or not name.strip():
        raise InputError(f"catalog card {who}: needs a name (a non-empty string)")
    unknown = sorted(set(c) - KNOWN_FIELDS)
    if unknown:
        raise InputError(f"catalog card {who}: unknown field {_show(unknown[0])}")
    pile = c.get("pile")
    if not isinstance(pile, str) or pile not in PILE_NAMES:
        raise InputError(f"catalog card {who}: pile {_show(pile)} must be one of "
                         f"{', '.join(PILE_NAMES)}")
    row = {"name": name, "pile": PILE_NAMES[pile], "attack_char": -1, "persist": 0,
           "betray": 0, "alt": [], "alt_n": []}
    row["copies"] = _int(c, "copies", who, *RANGES["copies"], default=1)
    raid = row["pile"] == Pile.RAID
    if not raid and c.get("level", 0) != 0:
        raise InputError(f"catalog card {who}: level is for Raid cards only (§4.3)")
    for key in STAT_FIELDS:
        if raid and key in RAID_RANGES:
            row[key] = _raid_stat(c, key, who, *RAID_RANGES[key])
        else:
            row[key] = _int(c, key, who, *RANGES[key])
    _abilities(row, _words(c, "abilities", who), who)
    _alternatives(row, _words(c, "choose_one", who), who)
    row["assumed"] = _assumed(c, who)
    return row


def _raid_stat(c: dict, key: str, who: str, lo: int, hi: int) -> int:
    """A Raid card's level or defense (§4.3, §8.1): an integer in [lo, hi]."""
    v = c.get(key, 0)
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise InputError(f"catalog card {who}: a Raid card needs {key} {lo}-{hi}, got {_show(v)}")
    return v


def _compile(rows: list[dict], source: str) -> Catalog:
    names = [r["name"] for r in rows]
    seen = set()
    for name in names:
        if name in seen:
            raise InputError(f"catalog card {_show(name)}: name given twice")
        seen.add(name)
    totals = {k: 0 for k in COMPONENTS}
    for r in rows:
        key = "viking+event" if r["pile"] in (Pile.VIKING, Pile.EVENT) else r["pile"].name.lower()
        totals[key] += r["copies"]
    for key, want in COMPONENTS.items():
        if totals[key] != want:
            last = [r["name"] for r in rows if key.find(r["pile"].name.lower()) >= 0][-1:] \
                or ["(none)"]
            raise InputError(f"catalog: {totals[key]} {key} cards, the seed has {want} "
                             f"(§2; last {key} card: {_show(last[0])})")
    for pile in SINGLE_DESIGN:
        designs = [r["name"] for r in rows if r["pile"] == pile]
        if len(designs) != 1:
            raise InputError(f"catalog card {_show((designs or ['(none)'])[-1])}: the "
                             f"{pile.name.lower()} pile must be one design")
    k = len(rows)
    alt = np.zeros((k, MAX_ALTS), np.int64)
    alt_n = np.zeros((k, MAX_ALTS), np.int64)
    for i, r in enumerate(rows):
        alt[i, :len(r["alt"])] = r["alt"]
        alt_n[i, :len(r["alt_n"])] = r["alt_n"]
    col = {key: np.array([r[key] for r in rows], np.int64)
           for key in ("pile", "copies", *STAT_FIELDS, "attack_char", "persist", "betray")}
    assumed = tuple((r["name"], r["assumed"]) for r in rows if r["assumed"])
    return Catalog(names=tuple(names), alt=alt, alt_n=alt_n, assumed=assumed, source=source,
                   **col)
