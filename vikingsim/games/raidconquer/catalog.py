"""The Raid & Conquer card catalog as data (raidconquer §12): load ``cards.toml`` (or a
designer's copy, option ``catalog``), validate it (one ``InputError`` line naming the card),
and compile it to the arrays the kernel reads.

Card ids are the positions of the card designs in the file (one id per design; copies are
counted, not numbered). Ability keywords (§11) compile to codes: ``Ability`` for the
OR-alternatives of ``choose_one`` (§3.4), ``Persist`` bits for the persistent abilities.
"""
from __future__ import annotations

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
N_LEVELS = 5


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
    except OSError as e:
        raise InputError(f"catalog {str(p)!r}: cannot read ({e.strerror or e})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise InputError(f"catalog {str(p)!r} is not valid TOML: {e}") from None
    cards = data.get("card")
    if not isinstance(cards, list) or not cards:
        raise InputError(f"catalog {str(p)!r}: needs [[card]] tables")
    return _compile([_card(c, i) for i, c in enumerate(cards)], str(p))


def _int(card: dict, key: str, who: str, default: int = 0) -> int:
    v = card.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int):
        raise InputError(f"catalog card {who}: {key} must be an integer, got {v!r}")
    if v < 0:
        raise InputError(f"catalog card {who}: negative {key} ({v})")
    return v


def _keyword(word, who: str, table: dict, what: str):
    if not isinstance(word, str):
        raise InputError(f"catalog card {who}: {what} {word!r} is not a string")
    key, _, amount = word.partition(":")
    if key not in table:
        raise InputError(f"catalog card {who}: unknown {what} keyword {word!r}; allowed: "
                         f"{', '.join(table)}")
    if amount and not amount.isdigit():
        raise InputError(f"catalog card {who}: {what} {word!r}: amount must be a whole number")
    return table[key], int(amount) if amount else None


def _card(c: dict, i: int) -> dict:
    """One validated card row (names the card in every error)."""
    if not isinstance(c, dict):
        raise InputError(f"catalog card #{i + 1}: not a table")
    who = repr(c.get("name", f"#{i + 1}"))
    if not isinstance(c.get("name"), str) or not c["name"].strip():
        raise InputError(f"catalog card {who}: needs a name")
    unknown = sorted(set(c) - KNOWN_FIELDS)
    if unknown:
        raise InputError(f"catalog card {who}: unknown field {unknown[0]!r}")
    if c.get("pile") not in PILE_NAMES:
        raise InputError(f"catalog card {who}: pile {c.get('pile')!r} must be one of "
                         f"{', '.join(PILE_NAMES)}")
    row = {"name": c["name"], "pile": PILE_NAMES[c["pile"]],
           "copies": _int(c, "copies", who, 1), "attack_char": -1, "persist": 0, "betray": 0,
           "alt": [], "alt_n": []}
    for key in STAT_FIELDS:
        row[key] = _int(c, key, who)
    for word in c.get("abilities", []):
        if word == "betray":
            row["betray"] = 1
        elif isinstance(word, str) and word.startswith("attack_character:"):
            n = word.partition(":")[2]
            if not n.isdigit():
                raise InputError(f"catalog card {who}: {word!r}: amount must be a whole number")
            row["attack_char"] = int(n)
        else:
            bit, _ = _keyword(word, who, PERSIST_WORDS, "ability")
            row["persist"] |= int(bit)
    alts = c.get("choose_one", [])
    if len(alts) > MAX_ALTS:
        raise InputError(f"catalog card {who}: at most {MAX_ALTS} choose_one alternatives")
    for word in alts:
        code, n = _keyword(word, who, ALT_WORDS, "choose_one")
        if (n is None) == (code in ALT_WITH_AMOUNT):
            need = "needs an amount (e.g. draw:1)" if n is None else "takes no amount"
            raise InputError(f"catalog card {who}: choose_one {word!r} {need}")
        row["alt"].append(int(code))
        row["alt_n"].append(1 if n is None else n)
    if row["pile"] == Pile.RAID and not 1 <= row["level"] <= N_LEVELS:
        raise InputError(f"catalog card {who}: a Raid card needs level 1-{N_LEVELS}")
    if row["pile"] == Pile.RAID and row["defense"] < 1:
        raise InputError(f"catalog card {who}: a Raid card needs defense >= 1")
    a = c.get("assumption", False)
    if not (isinstance(a, bool) or (isinstance(a, list) and all(x in KNOWN_FIELDS for x in a))):
        raise InputError(f"catalog card {who}: assumption must be true/false or a list of "
                         "field names")
    row["assumed"] = ("all",) if a is True else tuple(a or ())
    return row


def _compile(rows: list[dict], source: str) -> Catalog:
    names = [r["name"] for r in rows]
    for r in rows:
        if names.count(r["name"]) > 1:
            raise InputError(f"catalog card {r['name']!r}: name given twice")
    totals = {k: 0 for k in COMPONENTS}
    for r in rows:
        key = "viking+event" if r["pile"] in (Pile.VIKING, Pile.EVENT) else r["pile"].name.lower()
        totals[key] += r["copies"]
    for key, want in COMPONENTS.items():
        if totals[key] != want:
            last = [r["name"] for r in rows if key.find(r["pile"].name.lower()) >= 0][-1:] \
                or ["(none)"]
            raise InputError(f"catalog: {totals[key]} {key} cards, the seed has {want} "
                             f"(§2; last {key} card: {last[0]!r})")
    for pile in SINGLE_DESIGN:
        designs = [r["name"] for r in rows if r["pile"] == pile]
        if len(designs) != 1:
            raise InputError(f"catalog card {designs[-1]!r}: the {pile.name.lower()} pile must "
                             "be one design")
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
