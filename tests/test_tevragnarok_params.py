"""The shared data of the Ragnarok model: parameter-file defaults typed by hand from the notes
(tev-ragnarok §4.3, §4.4), the loader's validation (one line naming the bad key), presets,
and ``--params`` / ``--set params=`` on the command line."""
from __future__ import annotations


import numpy as np
import pytest

from vikingsim.core.errors import InputError
from vikingsim.games.tevragnarok import OPTIONS, Rules, load_params
from vikingsim.games.tevragnarok.rules import CardKind, RuleSlot, make_cards


def test_defaults_are_the_notes_tables():
    """§4.3 / §4.4 typed by hand."""
    p = load_params()
    assert p.giants_values == [1, 2, 2, 3, 3, 3, 4, 4, 5]         # §4.4, mean 3
    assert p.giant_mean() == 3.0
    assert p.scoring_island == [6, 4, 2] and p.scoring_favor == [3, 2, 1]   # §4.4
    assert p.board_n_regions == 8                                  # §4.3
    assert sorted(p.board_runes.count(g) for g in range(3)) == [2, 3, 3]   # 3 / 3 / 2
    assert p.adjacency()[0] == [1, 7] and p.adjacency()[3] == [2, 4]   # the ring ±1
    assert sum(p.board_villages) == 13                              # 13 Villages
    assert p.start_resources == [2, 2, 2] and p.start_resource_cap == 7
    assert (p.start_settlers, p.start_boats, p.start_temples) == (6, 4, 2)
    assert (p.economy_harvest, p.economy_boon) == (2, 2)
    assert p.economy_draft_size == [4, 5, 6]       # Era 1: 4 PUBLIC [DIZED]; 5, 6 assumed
    assert p.start_regions == [] and p.start_settlers_on_board == 2     # spread out
    assert p.economy_valkyrie_harvest_bonus == 1 and p.economy_raid_cost == [1, 2, 3]
    assert p.economy_favor_cards == 18 and p.economy_favor_bag == 2
    assert p.cards_n_base == 48 and (p.cards_strength_lo, p.cards_strength_hi) == (1, 8)
    assert p.cards_valkyrie_needs == [1, 1, 1, 2, 2, 2]             # §6.3 split 3 / 3


def test_the_deck_has_the_seed_cards():
    """§3.1 SEED: 6 Valkyrie (Joker) and 6 Einherjar cards shuffled into the 48."""
    cards = make_cards(load_params())
    assert len(cards) == 60
    kinds = list(cards[:, 0])
    assert kinds.count(CardKind.VALKYRIE) == 6 and kinds.count(CardKind.EINHERJAR) == 6
    assert (cards[cards[:, 0] == CardKind.VALKYRIE, 2] == 3).all()          # Joker
    assert sorted(cards[cards[:, 0] == CardKind.EINHERJAR, 2]) == [0, 0, 1, 1, 2, 2]
    base = cards[cards[:, 0] == CardKind.BASE]
    assert base[:, 1].min() >= 1 and base[:, 1].max() <= 8
    # the special cards print no Strength: the kernel adds theirs (§3.5) to column 1
    assert (cards[cards[:, 0] != CardKind.BASE, 1] == 0).all()


def test_options_and_compiled_defaults():
    assert {o.name: o.default for o in OPTIONS} == {
        "params": "default",
        "valkyrie_card_condition": "per_card", "giant_drain": True,          # §6.3, §3.4
        "last_battles": "resolve", "first_seat": 0,                          # §4.7
        "era_opener": "most_runes", "last_era_drain": False,                 # §4.7, §3.4
        "attack_after_deploy": True,                                         # §2.3
        "count_elements": False}                                # §4.10 (not a rule: counters)
    c = Rules().compile()
    assert c.ri[RuleSlot.POOL_SUM] == 27 and c.ri[RuleSlot.N_REGIONS] == 8
    assert list(c.dock[0]) == [0, 1] and list(c.dock[1]) == [2, -1]       # a border dock
    assert c.ri[RuleSlot.GIANT_DRAIN] == 1 and c.ri[RuleSlot.LAST_BATTLES_RESOLVE] == 1
    assert [c.ri[RuleSlot.DRAFT_ERA1 + e] for e in range(3)] == [4, 5, 6]
    assert (c.ri[RuleSlot.FIRST_SEAT], c.ri[RuleSlot.OPENER_MOST_RUNES]) == (0, 1)
    assert (c.ri[RuleSlot.LAST_ERA_DRAIN], c.ri[RuleSlot.ATTACK_AFTER_DEPLOY]) == (0, 1)
    assert list(c.start_reg) == [-1, -1, -1, -1]                          # spread out


def test_draft_size_is_one_integer_or_one_per_era(tmp_path):
    """§4.3: an integer means every Era; a list gives Eras 1 / 2 / 3; else one line."""
    path = tmp_path / "d.toml"
    path.write_text("[economy]\ndraft_size = 3\n")
    assert Rules(params=str(path)).p.economy_draft_size == [3, 3, 3]
    path.write_text("[economy]\ndraft_size = [2, 3, 4]\n")
    assert Rules(params=str(path)).p.economy_draft_size == [2, 3, 4]
    path.write_text("[economy]\ndraft_size = [2, 3]\n")
    with pytest.raises(InputError, match="economy.draft_size.*one per Era"):
        Rules(params=str(path))


def test_first_seat_names_a_seat_of_the_table(cli):
    """§4.7: first_seat in [0, players - 1]; one line naming it otherwise (CLI: exit 2)."""
    from vikingsim.games.tevragnarok import setup

    with pytest.raises(InputError, match=r"first_seat=3: must be a seat in \[0, 2\]"):
        setup({"first_seat": 3}, ["greedy_vp"] * 3, 3)
    assert setup({"first_seat": 2}, ["greedy_vp"] * 3, 3).compiled.ri[RuleSlot.FIRST_SEAT] == 2
    r = cli("simulate", "tevragnarok", "-n", "10", "--players", "2", "--set", "first_seat=2")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert "first_seat" in r.stderr


@pytest.mark.parametrize("text, key", [
    ("[giants]\nvalues = [1, 2]\n", "giants.values"),
    ("[scoring]\nislands = [6, 4, 2]\n", "scoring.islands"),
    ("[board]\nn_regions = 10\n", "board.n_regions"),
    ("[board]\nn_regions = 6\n", "board.runes"),
    ("[start]\nresources = [2, 2, 9]\n", "start.resources"),
    ("[economy]\ndraft_size = \"five\"\n", "economy.draft_size"),
    ("[weather]\nrain = 1\n", "[weather]"),
])
def test_a_bad_key_is_one_line_naming_it(tmp_path, text, key):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(InputError) as e:
        Rules(params=str(path))
    assert key in str(e.value) and "\n" not in str(e.value)


def test_a_partial_file_keeps_the_other_defaults(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text("[giants]\nvalues = [0, 0, 0, 0, 9, 9, 9, 9, 9]\n")
    p = Rules(params=str(path)).p
    assert p.giants_values == [0, 0, 0, 0, 9, 9, 9, 9, 9] and p.scoring_island == [6, 4, 2]
    assert Rules(params=str(path)).compile().ri[RuleSlot.POOL_SUM] == 45


def test_presets_are_the_sensitivity_runs():
    """§4.4 planned sensitivity runs."""
    assert load_params("giants_flat").giants_values == [3] * 9
    assert load_params("giants_wide").giants_values == [1, 1, 1, 2, 3, 4, 5, 5, 5]
    assert load_params("giants_mean2").giant_mean() == 2.0
    assert load_params("giants_mean4").giant_mean() == 4.0
    assert load_params("island_630").scoring_island == [6, 3, 0]
    assert load_params("island_654").scoring_island == [6, 5, 4]
    ring = load_params("board_ring")                 # no border docks: one per region
    assert ring.docks() == [[r] for r in range(8)] and ring.board_docks == []
    nine = load_params("board_9")
    assert nine.board_n_regions == 9 and nine.board_runes == [0, 1, 2] * 3
    assert sum(nine.board_villages) == 13 and nine.docks()[0] == [0, 1]
    assert load_params("start_clustered").start_regions == [0, 1, 2, 3]
    assert load_params("favor_flat").scoring_favor == [2, 2, 2]
    assert load_params("favor_steep").scoring_favor == [4, 2, 0]
    assert load_params("cards_seed7").cards_generator_seed == 7
    narrow = load_params("cards_narrow")
    assert (narrow.cards_strength_lo, narrow.cards_strength_hi) == (3, 6)
    assert load_params("draft_4").economy_draft_size == [4, 4, 4]
    assert load_params("draft_5").economy_draft_size == [5, 5, 5]   # the value before issue 18
    assert load_params("draft_6").economy_draft_size == [6, 6, 6]
    for name in ("board_ring", "start_clustered", "favor_flat", "cards_seed7", "draft_5"):
        assert load_params(name).giants_values == [1, 2, 2, 3, 3, 3, 4, 4, 5]   # one group
    with pytest.raises(InputError, match="must be a .toml file or one of"):
        Rules(params="nonsense")


def test_cli_params_flag_and_set_are_the_same(tmp_path, cli):
    path = tmp_path / "flat.toml"
    path.write_text("[giants]\nvalues = [3, 3, 3, 3, 3, 3, 3, 3, 3]\n[level_a]\nfury_max = 0\n")
    a = cli("odds", "tevragnarok", "--params", str(path), "--json")
    b = cli("odds", "tevragnarok", "--set", f"params={path}", "--json")
    assert a.returncode == 0 and a.stdout == b.stdout
    assert '"sd_giant": 0.0' in a.stdout
    bad = tmp_path / "bad.toml"
    bad.write_text("[giants]\nvalue = [1]\n")
    r = cli("odds", "tevragnarok", "--params", str(bad))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert "giants.value" in r.stderr


def test_params_swap_changes_games_from_python():
    from vikingsim.games import tevragnarok

    a = tevragnarok.simulate(300, seed=4, policies="giant_hunter")
    b = tevragnarok.simulate(300, seed=4, policies="giant_hunter", params="giants_mean4")
    ga, gb = a.frame["giant_points_0"].to_numpy(), b.frame["giant_points_0"].to_numpy()
    assert not np.array_equal(ga, gb) and gb.mean() > ga.mean()
