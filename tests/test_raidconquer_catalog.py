"""The Raid & Conquer card catalog (notes ``raidconquer.md`` §2, §11, §12): the bundled data
typed by hand from the seed and the notes, the loader's validation (one line naming the card,
exit 2 on the command line), and ``--set catalog=...`` reaching the games."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from vikingsim.core.errors import InputError
from vikingsim.core.runner import simulate
from vikingsim.games.raidconquer import catalog as cat
from vikingsim.games.raidconquer.catalog import Ability, Persist, Pile
from vikingsim.games.raidconquer.rules import Rules

BUNDLED = cat.BUNDLED.read_text()


def test_component_counts():
    """§2 SEED: 60 Viking/Event, 15 Warriors, 15 Hacksilver, 25 Longboats, 21 Raid, 44
    Treasures, 40 Coins."""
    c = cat.load()
    count = {p: int(sum(c.copies[k] for k in c.of_pile(p))) for p in Pile}
    assert count[Pile.VIKING] + count[Pile.EVENT] == 60
    assert (count[Pile.WARRIORS], count[Pile.HACKSILVER], count[Pile.LONGBOAT]) == (15, 15, 25)
    assert (count[Pile.RAID], count[Pile.TREASURE], count[Pile.COIN]) == (21, 44, 40)
    # §12.2 assumption: Raid cards per level L1 5, L2 5, L3 4, L4 4, L5 3
    levels = [int(sum(c.copies[k] for k in c.of_pile(Pile.RAID) if c.level[k] == lv))
              for lv in range(1, 6)]
    assert levels == [5, 5, 4, 4, 3]


def _row(c, name):
    k = c.id_of(name)
    return (int(c.cost[k]), int(c.power[k]), int(c.influence[k]), int(c.defense[k]),
            int(c.silver[k]), int(c.legend[k]))


def test_seed_cards_exact():
    """§12.1 SEED values: (cost, Power, Influence, Defense, Silver, Legend)."""
    c = cat.load()
    assert _row(c, "Coin") == (0, 0, 0, 0, 1, 0) and c.copies[c.id_of("Coin")] == 40
    assert _row(c, "Longboat") == (3, 0, 0, 0, 1, 0)
    assert _row(c, "Warriors") == (1, 1, 0, 0, 0, 0)
    w = c.id_of("Warriors")
    assert list(c.alt[w]) == [Ability.SACRIFICE_SELF_SILVER, Ability.SACRIFICE_SELF_HACKSILVER,
                              0] and c.alt_n[w, 0] == 1
    assert _row(c, "Hacksilver")[1:] == (0, 0, 0, 2, 0)
    k = c.id_of("Kalf")                            # Cost 4, 1 Power, 1 Silver, 1 Influence
    assert _row(c, "Kalf") == (4, 1, 1, 0, 1, 0)
    assert c.attack_char[k] == 3 and c.persist[k] == Persist.LEADERSHIP and c.betray[k] == 1
    o = c.id_of("Odin's Witness")                  # +1 card OR sacrifice: +2 OR Shipbuild
    assert c.cost[o] == 4 and c.pile[o] == Pile.EVENT
    assert list(c.alt[o]) == [Ability.DRAW, Ability.SACRIFICE_DRAW, Ability.SHIPBUILD]
    assert list(c.alt_n[o][:2]) == [1, 2]
    j = c.id_of("Jarl Borg")                       # Level 3; 8 Power beats it (Sample Round)
    assert c.pile[j] == Pile.RAID and c.level[j] == 3 and c.defense[j] == 8
    for name in ("Priests of Uppsala", "Ritual Sacrifice", "Thor's Might"):
        assert name in c.names
    assert c.alt[c.id_of("Ritual Sacrifice"), 0] == Ability.MAY_RITUAL_SEARCH


def test_every_invented_card_is_marked():
    """§12.2: every card but the SEED ones carries assumption = true or a field list; the
    Longboat's Power, Influence and Defense (not printed, read as 0) are marked."""
    c = cat.load()
    seed_exact = {"Coin", "Warriors"}
    marked = {name for name, _ in c.assumed}
    assert marked == set(c.names) - seed_exact
    assumed = dict(c.assumed)
    assert assumed["Kalf"] == ("copies",) and assumed["Hacksilver"] == ("cost",)
    assert assumed["Longboat"] == ("power", "influence", "defense")
    assert assumed["Jarl Borg"] == ("defense", "legend")


def _write(tmp_path, text) -> str:
    p = tmp_path / "cards.toml"
    p.write_text(text)
    return str(p)


@pytest.mark.parametrize("edit, message", [
    (("cost = 4\npower = 1\ninfluence = 1", "cost = -4\npower = 1\ninfluence = 1"),
     "catalog card 'Kalf': negative cost (-4)"),
    (('abilities = ["attack_character:3", "leadership", "betray"]',
      'abilities = ["attack_character:3", "leadershipp", "betray"]'),
     "catalog card 'Kalf': unknown ability keyword 'leadershipp'"),
    (('choose_one = ["may_ritual_search"]', 'choose_one = ["may_ritual_search", "fly:2"]'),
     "catalog card 'Ritual Sacrifice': unknown choose_one keyword 'fly:2'"),
    (('name = "Shieldmaiden"\npile = "viking"\ncopies = 6',
      'name = "Shieldmaiden"\npile = "viking"\ncopies = 7'),
     "catalog: 61 viking+event cards, the seed has 60"),
    (('name = "Arm Ring"\npile = "treasure"\ncopies = 11',
      'name = "Arm Ring"\npile = "treasure"\ncopies = 10'),
     "catalog: 43 treasure cards, the seed has 44")])
def test_loader_rejects_with_one_line_naming_the_card(tmp_path, edit, message):
    old, new = edit
    assert old in BUNDLED
    path = _write(tmp_path, BUNDLED.replace(old, new, 1))
    with pytest.raises(InputError) as e:
        cat.load(path)
    assert str(e.value).startswith(message) and "\n" not in str(e.value)


def test_bad_catalog_on_the_command_line_is_exit_2(tmp_path):
    path = _write(tmp_path, BUNDLED.replace("cost = 4\npower = 1\ninfluence = 1",
                                            "cost = -4\npower = 1\ninfluence = 1", 1))
    p = subprocess.run([sys.executable, "-m", "vikingsim", "simulate", "raidconquer", "-n",
                        "10", "--set", f"catalog={path}"], capture_output=True, text=True)
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "negative cost" in lines[0] and "Kalf" in lines[0]


def test_catalog_option_changes_the_games(tmp_path):
    """A designer's copy of the catalog is played without touching code: cheaper Raid
    cards (every Defense 1) make games shorter."""
    import re

    text = re.sub(r'(pile = "raid"\nlevel = \d\n)defense = \d+', r"\1defense = 1", BUNDLED)
    path = _write(tmp_path, text)
    assert set(cat.load(path).defense[cat.load(path).pile == Pile.RAID]) == {1}
    a = simulate("raidconquer", 300, seed=4)
    b = simulate("raidconquer", 300, seed=4, options={"catalog": path})
    assert b.summary["mean_rounds"] < a.summary["mean_rounds"]
    assert Rules(catalog=path).compile().card.shape == Rules().compile().card.shape


def test_compiled_tables_match_the_catalog():
    c, comp = cat.load(), Rules().compile()
    assert np.array_equal(comp.card[3], c.power) and np.array_equal(comp.alt, c.alt)


def test_catalog_flag_is_the_catalog_option(tmp_path):
    """``--catalog my_cards.toml`` = ``--set catalog=my_cards.toml`` (the issue's spelling)."""
    path = _write(tmp_path, BUNDLED.replace("cost = 4\npower = 1\ninfluence = 1",
                                            "cost = -4\npower = 1\ninfluence = 1", 1))
    p = subprocess.run([sys.executable, "-m", "vikingsim", "simulate", "raidconquer", "-n",
                        "10", "--catalog", path], capture_output=True, text=True)
    assert p.returncode == 2 and "negative cost" in p.stderr
