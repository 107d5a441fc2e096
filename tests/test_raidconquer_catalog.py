"""The Raid & Conquer card catalog (notes ``raidconquer.md`` §2, §11, §12): the bundled data
typed by hand from the seed and the notes, the loader's validation (one line naming the card,
exit 2 on the command line), and ``--set catalog=...`` reaching the games."""
from __future__ import annotations

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


def test_bad_catalog_on_the_command_line_is_exit_2(tmp_path, cli):
    path = _write(tmp_path, BUNDLED.replace("cost = 4\npower = 1\ninfluence = 1",
                                            "cost = -4\npower = 1\ninfluence = 1", 1))
    p = cli("simulate", "raidconquer", "-n", "10", "--set", f"catalog={path}")
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


def test_catalog_flag_is_the_catalog_option(tmp_path, cli):
    """``--catalog my_cards.toml`` = ``--set catalog=my_cards.toml`` (the issue's spelling)."""
    path = _write(tmp_path, BUNDLED.replace("cost = 4\npower = 1\ninfluence = 1",
                                            "cost = -4\npower = 1\ninfluence = 1", 1))
    p = cli("simulate", "raidconquer", "-n", "10", "--catalog", str(path))
    assert p.returncode == 2 and "negative cost" in p.stderr


# ------------------------------------------------------------------ malformed catalogs (issue 22)
KALF_STATS = "cost = 4\npower = 1\ninfluence = 1"
KALF_ABILITIES = 'abilities = ["attack_character:3", "leadership", "betray"]'


@pytest.mark.parametrize("old, new, message", [
    (KALF_ABILITIES, "abilities = 5",
     "catalog card 'Kalf': abilities must be a list of strings, got 5"),
    ('choose_one = ["may_ritual_search"]', "choose_one = 1",
     "catalog card 'Ritual Sacrifice': choose_one must be a list of strings, got 1"),
    ('name = "Kalf"\npile = "viking"', 'name = "Kalf"\npile = ["viking"]',
     "catalog card 'Kalf': pile ['viking'] must be one of viking, event,"),
    (KALF_STATS, "cost = 99999999999999999999\npower = 1\ninfluence = 1",
     "catalog card 'Kalf': cost = 99999999999999999999 must be in [0, 99]"),
    (KALF_STATS, "cost = 4\npower = 9223372036854775000\ninfluence = 1",
     "catalog card 'Kalf': power = 9223372036854775000 must be in [0, 99]")])
def test_malformed_catalog_is_one_line_exit_2_nothing_written(tmp_path, old, new, message,
                                                              cli):
    """Issue 22: these gave a TypeError or OverflowError traceback, or (a Power near the
    int64 maximum) were accepted and overflowed in the kernel's sums."""
    assert old in BUNDLED
    path = _write(tmp_path, BUNDLED.replace(old, new, 1))
    p = cli("simulate", "raidconquer", "-n", "10", "--catalog", str(path), "--out",
            str(tmp_path / "games"))
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert lines == [f"vikingsim: error: {lines[0].removeprefix('vikingsim: error: ')}"]
    assert lines[0].removeprefix("vikingsim: error: ").startswith(message), lines
    assert sorted(f.name for f in tmp_path.iterdir()) == ["cards.toml"]


@pytest.mark.parametrize("old, new, message", [
    (KALF_STATS, "cost = 100\npower = 1\ninfluence = 1", "cost = 100 must be in [0, 99]"),
    (KALF_STATS, "cost = 4\npower = 1.5\ninfluence = 1", "power must be an integer, got 1.5"),
    (KALF_STATS, 'cost = 4\npower = true\ninfluence = 1', "power must be an integer, got True"),
    (KALF_STATS, "cost = 4\npower = 1\ninfluence = 1\nlevel = 2",
     "level is for Raid cards only"),
    ('name = "Kalf"\npile = "viking"\ncopies = 2', 'name = "Kalf"\npile = "viking"\ncopies = 0',
     "copies = 0 must be in [1, 60]"),
    (KALF_ABILITIES, 'abilities = ["attack_character:100"]',
     "ability 'attack_character:100': amount must be a whole number in [0, 99]"),
    (KALF_ABILITIES, 'abilities = ["attack_character:²"]',
     "ability 'attack_character:²': amount must be a whole number"),
    (KALF_ABILITIES, 'abilities = ["leadership:2"]', "ability 'leadership:2' takes no amount"),
    (KALF_ABILITIES, 'abilities = ["betray", 3]', "abilities must be a list of strings"),
    (KALF_ABILITIES, 'abilities = ["flying"]', "unknown ability keyword 'flying'; allowed: "
     "battle_frenzy, leadership, battle_ship, command_ship, betray, attack_character:N"),
    ('choose_one = ["may_ritual_search"]', 'choose_one = ["draw:0"]',
     "choose_one 'draw:0': amount must be a whole number in [1, 99]"),
    ('choose_one = ["may_ritual_search"]', 'choose_one = ["draw:99999999999999999999"]',
     "amount must be a whole number in [1, 99]"),
    ('choose_one = ["may_ritual_search"]', 'choose_one = ["bury:1"]',
     "choose_one 'bury:1' takes no amount"),
    ('choose_one = ["may_ritual_search"]', 'choose_one = [["draw:1"]]',
     "choose_one must be a list of strings"),
    ('name = "Kalf"', "name = 7", "catalog card #5: needs a name"),
    ('name = "Kalf"', 'name = "  "', "needs a name"),
    ('assumption = ["copies"]', "assumption = [[1]]", "assumption must be true/false"),
    ('assumption = ["copies"]', 'assumption = "yes"', "assumption must be true/false"),
    ("level = 3\ndefense = 8", "level = 3\ndefense = 0", "a Raid card needs defense 1-99, got 0"),
    ("level = 3\ndefense = 8", "level = 6\ndefense = 8", "a Raid card needs level 1-5, got 6"),
    ("level = 3\ndefense = 8", 'level = "3"\ndefense = 8', "a Raid card needs level 1-5, got '3'"),
])
def test_every_field_is_type_and_range_checked(tmp_path, old, new, message):
    """Every field of a card has a type and a documented range (``catalog.RANGES``: two-digit
    statistics, which keep a whole game's sums inside the kernel's int16/int32 outputs)."""
    assert old in BUNDLED
    with pytest.raises(InputError) as e:
        cat.load(_write(tmp_path, BUNDLED.replace(old, new, 1)))
    assert message in str(e.value) and "\n" not in str(e.value)


def test_a_catalog_at_the_bounds_plays_without_overflow(tmp_path):
    """Every statistic and amount at its maximum (``catalog.MAX_STAT``): the kernel's Legend
    (int16) and Silver (int32) outputs hold a whole game's sums, Legend <= 220 * MAX_STAT."""
    import re

    top = cat.MAX_STAT
    text = re.sub(r"^(power|influence|silver|legend) = \d+$", rf"\1 = {top}", BUNDLED,
                  flags=re.M)
    text = re.sub(r'"(draw|sacrifice_draw|sacrifice_self_silver|may_sacrifice_silver|'
                  r'may_sacrifice_power):\d+"', rf'"\1:{top}"', text)
    path = _write(tmp_path, text)
    c = cat.load(path)
    assert c.legend.max() == top and c.alt_n.max() == top
    df = simulate("raidconquer", 40, seed=1, options={"catalog": path}).frame
    legend = df[[f"legend_{s}" for s in range(4)]].to_numpy()
    avail = df[[f"silver_avail_{s}" for s in range(4)]].to_numpy()
    spent = df[[f"silver_spent_{s}" for s in range(4)]].to_numpy()
    assert (legend >= 0).all() and (legend <= 220 * top).all() and legend.max() > top
    assert (spent >= 0).all() and (avail >= spent).all()


def _toml(v) -> str:
    """A TOML value (strings as JSON, whose escapes TOML shares)."""
    import json
    import math

    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    return "{" + ", ".join(f"{json.dumps(k)} = {_toml(x)}" for k, x in v.items()) + "}"


def _catalog_text(cards) -> str:
    import json

    if not all(isinstance(c, dict) for c in cards):      # an array of values, not of tables
        return f"card = {_toml(cards)}\n"
    return "\n".join("[[card]]\n" + "".join(f"{json.dumps(k)} = {_toml(v)}\n"
                                            for k, v in c.items()) for c in cards)


def _strategies():
    from hypothesis import strategies as st

    words = st.sampled_from(["draw:1", "draw:", "draw:x", "bury", "bury:2", "shipbuild",
                             "leadership", "betray", "attack_character:3", "attack_character",
                             "attack_character:-1", "viking", "raid", "coin", "", "copies",
                             "cost", "draw:99", "draw:100", "sacrifice_draw:2", "²"])
    scalar = st.one_of(st.integers(-3, 120), st.integers(-2 ** 70, 2 ** 70), st.floats(),
                       st.booleans(), st.text(st.characters(blacklist_categories=("Cs",)),
                                              max_size=12), words)
    value = st.recursive(scalar, lambda inner: st.lists(inner, max_size=4)
                         | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                         max_leaves=8)
    fields = st.sampled_from(sorted(cat.KNOWN_FIELDS) + ["colour", ""])
    edit = st.tuples(st.integers(0, 200), fields, st.one_of(value, st.just(DELETE)))
    return st.lists(edit, min_size=1, max_size=3), st.one_of(st.none(), scalar)


DELETE = object()


def test_fuzzed_catalogs_load_or_give_one_line(tmp_path):
    """Issue 22: no malformed catalog gives a traceback. Edits of up to three fields of the
    bundled catalog (values of every TOML type, out-of-range numbers, deleted fields, a card
    that is not a table) either load, with every field inside ``RANGES``, or raise one
    ``InputError`` line."""
    import tomllib

    from hypothesis import HealthCheck, given, settings

    base = tomllib.loads(BUNDLED)["card"]
    edits, replace_card = _strategies()
    path = tmp_path / "fuzz.toml"

    @settings(max_examples=400, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(edits, replace_card)
    def check(edit_list, replacement):
        cards = [dict(c) for c in base]
        for i, key, v in edit_list:
            card = cards[i % len(cards)]
            if v is DELETE:
                card.pop(key, None)
            else:
                card[key] = v
        if replacement is not None:
            cards[edit_list[0][0] % len(cards)] = replacement
        path.write_text(_catalog_text(cards))
        try:
            c = cat.load(path)
        except InputError as e:
            assert "\n" not in str(e) and len(str(e)) < 300
            return
        for key, (lo, hi) in cat.RANGES.items():
            arr = getattr(c, key)[c.pile != Pile.RAID] if key == "level" else getattr(c, key)
            assert lo <= arr.min() and arr.max() <= hi
        assert -1 <= c.attack_char.min() and c.attack_char.max() <= cat.MAX_AMOUNT
        assert c.alt_n.min() >= 0 and c.alt_n.max() <= cat.MAX_AMOUNT

    check()


def test_unreadable_catalog_files_are_one_line(tmp_path):
    """Nesting beyond the TOML parser's recursion limit, a NUL byte in the path, a folder."""
    deep = tmp_path / "deep.toml"
    deep.write_text("a = " + "[" * 5000 + "]" * 5000 + "\n")
    folder = tmp_path / "cards.toml"                  # a folder with a catalog's name
    folder.mkdir()
    for path, words in ((deep, "nested too deeply"), ("a\0b.toml", "embedded null byte"),
                        (folder, "cannot read"), (tmp_path, "must be a .toml file")):
        with pytest.raises(InputError, match=words) as e:
            cat.load(path)
        assert "\n" not in str(e.value)
