"""Raid & Conquer rules (seed 004; notes ``raidconquer.md``): named sizes, the ``RuleSlot``
enum of the compiled rules vector, and the frozen ``Rules`` (every rule declared once with
``core.options.rule``; defaults are the notes' DEFAULT readings), compiled with the card
catalog (``catalog.py``) to arrays for the kernel."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import IntEnum

import numpy as np

from vikingsim.core.errors import InputError
from vikingsim.core.options import rule
from vikingsim.games.raidconquer import catalog as cat

CHARACTERS = ("ragnar", "lagertha", "rollo", "floki", "bjorn")     # §1.1, §12.3 SEED
N_CHARACTERS = len(CHARACTERS)
MAX_PLAYERS = 5                       # §1.1 SEED: 2 to 5 players
ROW_SIZE = 5                          # §4.2, §4.3 SEED: Viking Row and Raid Row hold 5
BASE_ATTACK, BASE_DEFENSE = 2, 5      # §3.5 SEED: every shield
#: §4.3 SEED: Raid Row start by player count: cards of Level 1..5 (left to right).
ROW_START = {2: (3, 2, 0, 0, 0), 3: (2, 2, 1, 0, 0), 4: (1, 2, 1, 1, 0), 5: (1, 1, 1, 1, 1)}
#: §4.3 SEED: highest Raid level in the deck by player count.
TOP_LEVEL = {2: 2, 3: 3, 4: 4, 5: 5}
END_CONDITIONS = ("conquer", "lightning", "epic")                  # §10.2 SEED
RAIDS_TO_END = {"conquer": 5, "lightning": 3, "epic": 0}           # §9.1, §10.2 SEED
CARD_DEFENSE = ("never", "when_defending", "always")               # §13.1
ACQUIRE_PAYMENT = ("at_least", "exact")                            # §13.5
CHAOTIC_PARTY = ("own_longboat", "all_choosers")                   # §13.6
FAILED_RAID_TIE = ("leftmost", "rightmost")                        # §8.5, §13.10
FINAL_TIE = ("shared", "seat_order")                               # §10.1, §13.10


class RuleSlot(IntEnum):
    """Slots of the compiled integer rules vector ``ri``."""

    MAX_ROUNDS = 0
    FIRST_SEAT = 1
    HAND_SIZE = 2
    WINTER_ROUNDS = 3
    START_COINS = 4
    START_LONGBOATS = 5
    SETUP_HAND_IS_ROUND1 = 6
    RAIDS_TO_END = 7            # 0 = Epic (deck and row empty)
    CARD_DEFENSE = 8            # index into CARD_DEFENSE
    DEFEND_BASE_POWER = 9
    EARL_MARKER_RESETS = 10
    ACQUIRE_REFILLS = 11
    ACQUIRE_EXACT = 12
    CHAOTIC_ALL = 13
    PILLAGE_TREASURES = 14
    SHIPBUILD_COUNTS = 15
    BASE_POWER_PER_RAIDER = 16
    FAILED_TIE_RIGHT = 17
    FINAL_TIE_SEAT_ORDER = 18
    ATTACK_CHAR_REPLACES = 19
    SCORE_IN_PLAY = 20
    CHARACTER_OFFSET = 21
    ROTATE_CHARACTERS = 22
    COIN = 23                   # card ids of the single-design piles (catalog)
    LONGBOAT = 24
    WARRIORS = 25
    HACKSILVER = 26
    START_CARD_CHAR = 27        # §12.3 variant: character given an extra starting card (-1)
    START_CARD = 28             # its card id (-1)
    PLAY_ALL_CARDS = 29         # §7.2, §13.8: 0 = a player may keep cards back in hand
    TWO_PLAYER_ALLIANCES = 30   # §10.3, §13.12: 1 = a 2-player Earl may invite the opponent
    SACRIFICE_ANY_CARD = 31     # §7.5, §13.13: 0 = "sacrifice a card" takes only a Coin
    COUNT_ELEMENTS = 32         # §14.6: 1 = count per-card statistics (out["cards"])


N_RULE_SLOTS = len(RuleSlot)


def _char_rule(name: str, what: str, default: int):
    return rule(default, f"{name.capitalize()}'s Base {what} (shield)", section="§3.5, §12.3",
                lo=0, hi=30)


@dataclass(frozen=True)
class Rules:
    """One complete reading of Raid & Conquer, each rule declared once; the ``vikingsim``
    options are derived from these fields (``core.options.options_of``)."""

    catalog: str = rule("", "card catalog TOML ('' = the bundled cards.toml)",
                        section="§12.2")
    end_condition: str = rule("conquer", "conquer (5 Raid cards), lightning (3) or epic "
                              "(Raid deck and row empty)", section="§10.2",
                              choices=END_CONDITIONS)
    max_rounds: int = rule(60, "safety cap; capped games are truncated (assumption)",
                           section="§5", lo=5, hi=1000)
    first_seat: int = rule(0, "seat holding the First Player marker at setup", section="§4.5",
                           lo=0, hi=MAX_PLAYERS - 1)
    hand_size: int = rule(5, "cards drawn each Draw phase", section="§6.1", lo=1, hi=10)
    winter_rounds: int = rule(4, "Winter rounds (no Secret Plan, no actions)", section="§5",
                              lo=0, hi=20)
    start_coins: int = rule(8, "Coins in each starting deck", section="§4.6", lo=0, hi=8)
    start_longboats: int = rule(2, "Longboats in each starting deck", section="§4.6", lo=0,
                                hi=5)
    play_all_cards: bool = rule(True, "Main: the whole hand is played (else a policy may keep "
                                "cards back in hand; the Draw then draws up to hand_size)",
                                section="§7.2, §13.8")
    setup_hand_is_round1_hand: bool = rule(True, "the 5 cards drawn at setup are the round-1 "
                                           "hand (no round-1 Draw)", section="§4.6, §13.11")
    card_defense_counts: str = rule("when_defending", "Defense on Viking cards adds to a "
                                    "player's Defense: never, when_defending or always",
                                    section="§13.1", choices=CARD_DEFENSE)
    defend_includes_base_power: bool = rule(False, "Defend: Defense = 5 + card Power + the "
                                            "shield's 2 (else 5 + the Power of the cards, as "
                                            "the Attack section words it)", section="§13.2")
    earl_marker_resets: bool = rule(False, "an Earl-side marker stays one round, then turns "
                                    "raven side up (else it stays Earl side up with the Earl "
                                    "until another Earl takes it: 'it remains')",
                                    section="§9.2, §13.3")
    acquire_refills_row: bool = rule(True, "an acquired Raid card is replaced from the Raid "
                                     "deck", section="§8.1.3, §13.4")
    acquire_payment: str = rule("exact", "buried Silver spent to acquire: exact ('equal in "
                                "number' to the Defense) or at_least (excess lost)",
                                section="§8.1.3, §13.5",
                                choices=ACQUIRE_PAYMENT)
    chaotic_party: str = rule("own_longboat", "Chaotic Raid party: Raid-Party choosers with "
                              "their own Longboat, or all_choosers", section="§8.3.5, §13.6",
                              choices=CHAOTIC_PARTY)
    pillage_treasures: bool = rule(False, "Pillage may take a Treasure from a Raid pile",
                                   section="§8.2.3, §13.7")
    shipbuild_longboat_counts: bool = rule(True, "a Longboat taken by Shipbuild counts as "
                                           "played", section="§8.3.1")
    base_power_per_raider: bool = rule(True, "every Raider adds the shield's Power 2 (else "
                                       "the party adds it once)", section="§8.3.4")
    failed_raid_tie: str = rule("leftmost", "failed raid, equal highest Defense: which card "
                                "goes under the Raid deck", section="§8.5, §13.10",
                                choices=FAILED_RAID_TIE)
    final_tie: str = rule("shared", "still tied after both tie-breaks: shared (outcome tie) "
                          "or seat_order (first in turn order wins)", section="§10.1, §13.10",
                          choices=FINAL_TIE)
    attack_character_replaces: bool = rule(True, "ATTACK CHARACTER N replaces the printed "
                                           "Power (else adds N)", section="§11.3")
    score_cards_in_play: bool = rule(False, "Treasures still in play (or kept in hand) at game "
                                     "end score too (else only deck, discard, Raid and Bury "
                                     "piles, as the End of Game lists them)",
                                     section="§9.1, §10.1, §13.14")
    two_player_alliances: bool = rule(False, "2 players: the Earl may invite the opponent into "
                                      "the Raid Party (else none: the Two Player option's 'No "
                                      "alliances')", section="§10.3, §13.12")
    sacrifice_any_card: bool = rule(True, "'sacrifice a card' may sacrifice any other unused "
                                    "card in play (else only a Coin)", section="§7.5, §13.13")
    count_elements: bool = rule(False, "count per-card statistics (bought, played, held, first "
                                "buy; --elements): not a rule, costs about 10-13 percent of speed",
                                section="§14.6")
    character_offset: int = rule(0, "seat i plays character (i + offset) mod 5 (Ragnar, "
                                 "Lagertha, Rollo, Floki, Bjorn)", section="§4.6", lo=0,
                                 hi=N_CHARACTERS - 1)
    start_card: str = rule("", "designer variant 'character:Card name': that character starts "
                           "with one more card, taken from its pile ('' = none)",
                           section="§12.3")
    rotate_characters: bool = rule(False, "game g also shifts the characters by g (each "
                                   "character in every seat equally often)", section="§4.6")
    ragnar_base_attack: int = _char_rule("ragnar", "Attack", BASE_ATTACK)
    ragnar_base_defense: int = _char_rule("ragnar", "Defense", BASE_DEFENSE)
    lagertha_base_attack: int = _char_rule("lagertha", "Attack", BASE_ATTACK)
    lagertha_base_defense: int = _char_rule("lagertha", "Defense", BASE_DEFENSE)
    rollo_base_attack: int = _char_rule("rollo", "Attack", BASE_ATTACK)
    rollo_base_defense: int = _char_rule("rollo", "Defense", BASE_DEFENSE)
    floki_base_attack: int = _char_rule("floki", "Attack", BASE_ATTACK)
    floki_base_defense: int = _char_rule("floki", "Defense", BASE_DEFENSE)
    bjorn_base_attack: int = _char_rule("bjorn", "Attack", BASE_ATTACK)
    bjorn_base_defense: int = _char_rule("bjorn", "Defense", BASE_DEFENSE)

    def __post_init__(self):
        for name, allowed in (("end_condition", END_CONDITIONS),
                              ("card_defense_counts", CARD_DEFENSE),
                              ("acquire_payment", ACQUIRE_PAYMENT),
                              ("chaotic_party", CHAOTIC_PARTY),
                              ("failed_raid_tie", FAILED_RAID_TIE), ("final_tie", FINAL_TIE)):
            if getattr(self, name) not in allowed:
                raise InputError(f"{name}={getattr(self, name)!r}: must be one of "
                                 f"{', '.join(allowed)}")

    def start_card_ids(self, c: cat.Catalog) -> tuple[int, int]:
        """(character index, card id) of the ``start_card`` variant, (-1, -1) for none."""
        if not self.start_card:
            return -1, -1
        who, sep, name = self.start_card.partition(":")
        if not sep or who.strip().lower() not in CHARACTERS or name.strip() not in c.names:
            raise InputError(f"start_card={self.start_card!r}: must be 'character:Card name' "
                             f"with a character of {', '.join(CHARACTERS)} and a catalog card")
        k = c.id_of(name.strip())
        if c.pile[k] == cat.Pile.RAID:
            raise InputError(f"start_card={self.start_card!r}: a Raid card cannot start in a deck")
        return CHARACTERS.index(who.strip().lower()), k

    def cards(self) -> cat.Catalog:
        return cat.load(self.catalog or None)

    def base(self, what: str) -> np.ndarray:
        """int64[5] Base Attack or Defense per character (``what`` = attack/defense)."""
        return np.array([getattr(self, f"{c}_base_{what}") for c in CHARACTERS], np.int64)

    def compile(self) -> "CompiledRules":
        c = self.cards()
        S = RuleSlot
        ri = np.zeros(N_RULE_SLOTS, np.int64)
        ri[S.MAX_ROUNDS] = self.max_rounds
        ri[S.FIRST_SEAT] = self.first_seat
        ri[S.HAND_SIZE] = self.hand_size
        ri[S.WINTER_ROUNDS] = self.winter_rounds
        ri[S.START_COINS] = self.start_coins
        ri[S.START_LONGBOATS] = self.start_longboats
        ri[S.SETUP_HAND_IS_ROUND1] = self.setup_hand_is_round1_hand
        ri[S.RAIDS_TO_END] = RAIDS_TO_END[self.end_condition]
        ri[S.CARD_DEFENSE] = CARD_DEFENSE.index(self.card_defense_counts)
        ri[S.DEFEND_BASE_POWER] = self.defend_includes_base_power
        ri[S.EARL_MARKER_RESETS] = self.earl_marker_resets
        ri[S.ACQUIRE_REFILLS] = self.acquire_refills_row
        ri[S.ACQUIRE_EXACT] = self.acquire_payment == "exact"
        ri[S.CHAOTIC_ALL] = self.chaotic_party == "all_choosers"
        ri[S.PILLAGE_TREASURES] = self.pillage_treasures
        ri[S.SHIPBUILD_COUNTS] = self.shipbuild_longboat_counts
        ri[S.BASE_POWER_PER_RAIDER] = self.base_power_per_raider
        ri[S.FAILED_TIE_RIGHT] = self.failed_raid_tie == "rightmost"
        ri[S.FINAL_TIE_SEAT_ORDER] = self.final_tie == "seat_order"
        ri[S.ATTACK_CHAR_REPLACES] = self.attack_character_replaces
        ri[S.SCORE_IN_PLAY] = self.score_cards_in_play
        ri[S.CHARACTER_OFFSET] = self.character_offset
        ri[S.ROTATE_CHARACTERS] = self.rotate_characters
        ri[S.COIN] = c.special(cat.Pile.COIN)
        ri[S.LONGBOAT] = c.special(cat.Pile.LONGBOAT)
        ri[S.WARRIORS] = c.special(cat.Pile.WARRIORS)
        ri[S.HACKSILVER] = c.special(cat.Pile.HACKSILVER)
        ri[S.START_CARD_CHAR], ri[S.START_CARD] = self.start_card_ids(c)
        ri[S.PLAY_ALL_CARDS] = self.play_all_cards
        ri[S.TWO_PLAYER_ALLIANCES] = self.two_player_alliances
        ri[S.SACRIFICE_ANY_CARD] = self.sacrifice_any_card
        ri[S.COUNT_ELEMENTS] = self.count_elements
        card = np.stack([c.pile, c.copies, c.cost, c.power, c.influence, c.defense, c.silver,
                         c.legend, c.level, c.attack_char, c.persist, c.betray]).astype(np.int64)
        return CompiledRules(ri=ri, card=card, alt=c.alt.copy(), alt_n=c.alt_n.copy(),
                             base_attack=self.base("attack"), base_defense=self.base("defense"))

    def asdict(self) -> dict:
        return asdict(self)


class Col(IntEnum):
    """Rows of the compiled card table ``card[Col, card_id]``."""

    PILE = 0
    COPIES = 1
    COST = 2
    POWER = 3
    INFLUENCE = 4
    DEFENSE = 5
    SILVER = 6
    LEGEND = 7
    LEVEL = 8
    ATTACK_CHAR = 9
    PERSIST = 10
    BETRAY = 11


@dataclass(frozen=True)
class CompiledRules:
    """What the kernel receives: arrays only.

    ri : int64[N_RULE_SLOTS]        rule scalars, indexed by ``RuleSlot``
    card : int64[len(Col), K]       the catalog, one row per ``Col``
    alt, alt_n : int64[K, MAX_ALTS] OR-alternative ability codes and amounts
    base_attack, base_defense : int64[5]  per character (order ``CHARACTERS``)
    """

    ri: np.ndarray
    card: np.ndarray
    alt: np.ndarray
    alt_n: np.ndarray
    base_attack: np.ndarray
    base_defense: np.ndarray


def check_players(rules: Rules, catalog: cat.Catalog, players: int) -> None:
    """Cross-option checks for a player count (InputError)."""
    if rules.first_seat >= players:
        raise InputError(f"first_seat={rules.first_seat}: must be a seat in [0, {players - 1}]")
    raids = [k for k in catalog.of_pile(cat.Pile.RAID)]
    for lv, want in enumerate(ROW_START[players], start=1):
        have = sum(int(catalog.copies[k]) for k in raids if catalog.level[k] == lv)
        if have < want:
            raise InputError(f"catalog {catalog.source!r}: {players} players need {want} Level "
                             f"{lv} Raid cards for the Raid Row (§4.3), it has {have}")
    if rules.start_coins * players > int(catalog.copies[catalog.special(cat.Pile.COIN)]):
        raise InputError(f"start_coins={rules.start_coins}: {players} players need more Coins "
                         "than the catalog has")
    if rules.start_longboats * players > int(catalog.copies[catalog.special(cat.Pile.LONGBOAT)]):
        raise InputError(f"start_longboats={rules.start_longboats}: not enough Longboats")
