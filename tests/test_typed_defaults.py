"""Every ``Rules`` default of Raid & Conquer and Ragnarok, and every key of Ragnarok's parameter
file, typed by hand once (issue 18 §5) from the rules notes (``docs/rules/raidconquer.md``,
``docs/rules/tevragnarok.md``; section beside each value) and compared with the dataclass
defaults, the run options and ``params.toml``. Nothing here is read from the code: a changed
default (or a new rule field) fails until this table is changed on purpose with its notes.

Defaults another developer is changing at the time of writing (issue 18 §2-§3: the Defend
shield, Treasures in play, Acquire overpay, the Earl marker, 2-player alliances; Ragnarok's Era
opener and final Fury drain) are listed as they are today; the merge updates them.
"""
from __future__ import annotations

import dataclasses
import tomllib

import pytest

from vikingsim.games import raidconquer, tevragnarok
from vikingsim.games.raidconquer.rules import Rules as RCRules
from vikingsim.games.tevragnarok.rules import HERE, Rules as TevRules, load_params

#: Raid & Conquer ``Rules`` defaults (raidconquer.md section)
RAIDCONQUER = {
    "catalog": "",                                  # §12.2: the bundled cards.toml
    "end_condition": "conquer",                     # §10.2: 5 Raid cards
    "max_rounds": 60,                               # §5 safety cap
    "first_seat": 0,                                # §4.5
    "hand_size": 5,                                 # §6.1
    "winter_rounds": 4,                             # §5, §4.4: 4 ravens
    "start_coins": 8,                               # §4.6
    "start_longboats": 2,                           # §4.6
    "play_all_cards": True,                         # §7.2
    "setup_hand_is_round1_hand": True,              # §4.6, §13.11
    "card_defense_counts": "when_defending",        # §13.1
    "defend_includes_base_power": False,            # §13.2: "5 plus your total Power from all your cards"
    "earl_marker_resets": False,                    # §9.2, §13.3: "it remains"
    "acquire_refills_row": True,                    # §8.1.3, §13.4
    "acquire_payment": "exact",                     # §13.5: "equal in number"
    "chaotic_party": "own_longboat",                # §8.3.5, §13.6
    "pillage_treasures": False,                     # §8.2.3, §13.7
    "shipbuild_longboat_counts": True,              # §8.3.1
    "base_power_per_raider": True,                  # §8.3.4
    "failed_raid_tie": "leftmost",                  # §8.5
    "final_tie": "shared",                          # §10.1
    "attack_character_replaces": True,              # §11.3: Kalf's Power is 3
    "score_cards_in_play": False,                   # §10.1: deck, discard, Raid and Bury piles
    "two_player_alliances": False,                  # §13.12: 2 players, "No alliances."
    "sacrifice_any_card": True,                     # §13.13: "sacrifice a card" = any card
    "count_elements": False,                        # §14.6: per-card counters off (speed)
    "character_offset": 0,                          # §4.6: seat i plays character i
    "start_card": "",                               # §12.3: no variant
    "rotate_characters": False,                     # §4.6
    "ragnar_base_attack": 2, "ragnar_base_defense": 5,          # §3.5: every shield 2 / 5
    "lagertha_base_attack": 2, "lagertha_base_defense": 5,
    "rollo_base_attack": 2, "rollo_base_defense": 5,
    "floki_base_attack": 2, "floki_base_defense": 5,
    "bjorn_base_attack": 2, "bjorn_base_defense": 5,
}

#: Ragnarok ``Rules`` defaults (tevragnarok.md section)
TEVRAGNAROK = {
    "params": "default",                            # §4.3: params.toml
    "valkyrie_card_condition": "per_card",          # §6.3
    "giant_drain": True,                            # §3.4 SEED, §4.7
    "last_battles": "resolve",                      # §4.7
    "first_seat": 0,                                # §6.7: first player at setup
    "era_opener": "most_runes",                     # §4.7 [DIZED] Cleanup: most Island Runes
    "last_era_drain": False,                        # §3.4 [DIZED]: the game ends after Era 3
    "attack_after_deploy": True,                    # §2.3 [DIZED] Icon Reference: Attack Settlers
    "count_elements": False,                        # §4.10: counters only, off (issue 20)
}

#: Ragnarok's parameter file, every table and key (tevragnarok.md §4.3, §4.4, §4.7, §3)
PARAMS = {
    "giants": {"values": [1, 2, 2, 3, 3, 3, 4, 4, 5]},              # §4.4, mean 3
    "scoring": {"island": [6, 4, 2], "favor": [3, 2, 1], "village": 1},   # §4.4, §4.3
    "board": {"n_regions": 8,                                        # §4.3
              "runes": [0, 1, 2, 0, 1, 2, 0, 1],                     # 3 / 3 / 2
              "edges": [],                                           # the ring
              "docks": [[0, 1], [2], [3], [4, 5], [6], [7]],         # two border docks
              "villages": [2, 2, 2, 2, 2, 1, 1, 1]},                 # 13 Villages
    "cards": {"n_base": 48, "generator_seed": 2026,                  # §4.3 generator
              "strength_lo": 1, "strength_hi": 8,
              "n_valkyrie": 6, "n_einherjar": 6,                     # §3.1 SEED
              "valkyrie_needs": [1, 1, 1, 2, 2, 2],                  # §4.3, §6.3: 3 / 3
              "rune_action_runes": 2, "invader_special_strength": 4, "invader_growth": 1},
    "start": {"resources": [2, 2, 2], "resource_cap": 7,             # §4.3, §2.2 cap 7
              "settlers": 6, "boats": 4, "temples": 2,               # §4.3 units
              "settlers_on_board": 2, "regions": []},               # §4.7; [] = spread out
    "economy": {"draft_size": [4, 5, 6], "sail": 2, "harvest": 2, "boon": 2,  # §4.3
                "valkyrie_harvest_bonus": 1, "raid_cost": [1, 2, 3],
                "temple_wood": 3, "exchange": 2,
                "rune_resource": [0, 1, 2],                          # A Wood, B Food, C Steel
                "favor_cards": 18, "favor_bag": 2},                  # §4.3: 2 rows of 9
    "level_a": {"fury_max": 6, "islands": [1, 1, 0], "favors": [0, 1, 1]},   # §4.2
}


def _defaults(cls) -> dict:
    return {f.name: f.default for f in dataclasses.fields(cls)}


def test_raidconquer_rules_defaults_typed_by_hand():
    assert _defaults(RCRules) == RAIDCONQUER
    assert dataclasses.asdict(RCRules()) == RAIDCONQUER
    assert {o.name: o.default for o in raidconquer.OPTIONS} == RAIDCONQUER


def test_tevragnarok_rules_defaults_typed_by_hand():
    assert _defaults(TevRules) == TEVRAGNAROK
    assert {o.name: o.default for o in tevragnarok.OPTIONS} == TEVRAGNAROK


def test_tevragnarok_params_file_typed_by_hand():
    """params.toml itself (tables, keys and values) and the loaded defaults (``Params``)."""
    assert tomllib.loads((HERE / "params.toml").read_text()) == PARAMS
    flat = {f"{table}_{key}": v for table, keys in PARAMS.items() for key, v in keys.items()}
    assert dataclasses.asdict(load_params()) == flat


def test_forbid_names_is_one_parser_for_every_game():
    """Restricted play's forbid text: names joined by "+", spaces ignored, "" = nothing; an
    unknown name is one line listing the valid ones (shared by the four games' policies)."""
    from vikingsim.core.errors import InputError
    from vikingsim.core.policies import forbid_names

    assert forbid_names("", ("a", "b"), "g") == ()
    assert forbid_names(" b + a ", ("a", "b"), "g") == ("b", "a")
    with pytest.raises(InputError, match=r"^forbid: unknown card 'c' for g; cards: a, b$"):
        forbid_names("a+c", ("a", "b"), "g", what="card", listed="cards")
