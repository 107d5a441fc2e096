"""Ravenfeast input handling: warband specs (inline lists of any length, exact TOML types) and
warnings for options that do not apply to the chosen mode (rules notes ravenfeast.md §12.5,
§12.6, §10.7; style rule 17)."""
from __future__ import annotations

import pytest

from vikingsim.cli import main
from vikingsim.core.errors import InputError
from vikingsim.core.runner import simulate
from vikingsim.games.ravenfeast import GAME, MODES, OPTION_MODES, odds, setup
from vikingsim.games.ravenfeast.warband.rules import FigCol, compile_setup
from vikingsim.games.ravenfeast.warbands import load_warband

# ---------------------------------------------------------------- inline warbands

LONG = "+".join(["bondi_archer"] * 20)          # 259 characters: longer than a file name may be


def test_inline_warband_longer_than_a_file_name_is_an_inline_list():
    assert len(LONG) > 255
    w = load_warband(LONG)
    assert len(w) == 20 and all(k == "bondi_archer" for k, _ in w.figures)
    s = compile_setup(LONG, "hirdmen10")
    assert int(s.nfig[0]) == 20


def test_only_a_toml_name_is_read_as_a_path(tmp_path):
    (tmp_path / "hird").write_text('[[figures]]\ntype = "jarl"\n')
    with pytest.raises(InputError, match="unknown warband"):
        load_warband(str(tmp_path / "hird"))              # no .toml: not a path
    with pytest.raises(InputError, match="cannot read"):
        load_warband("x" * 300 + ".toml")                # too long a name: an InputError


# ---------------------------------------------------------------- TOML value types

def _toml(tmp_path, body):
    p = tmp_path / "band.toml"
    p.write_text(body)
    return str(p)


@pytest.mark.parametrize("line, key", [
    ('mighty = "false"', "mighty"),     # a string is not a bool (it would read as true)
    ("fated = 1", "fated"),             # an int is not a bool
    ("armor = 2.7", "armor"),           # a float is not an int
    ("melee = 4.0", "melee"),
    ("armor = true", "armor"),          # Python's bool is an int subclass: refused for ints
    ("count = true", "count"),
    ('count = "3"', "count"),
    ("count = 2.0", "count"),
    ("tough = false", "tough"),
    ("weapon = 1", "weapon"),
])
def test_toml_values_must_have_the_exact_type(tmp_path, line, key):
    path = _toml(tmp_path, f'[[figures]]\ntype = "hirdmen"\n{line}\n')
    with pytest.raises(InputError, match=key) as err:
        load_warband(path)
    assert path in str(err.value)


def test_every_toml_key_has_an_exact_type():
    from vikingsim.games.ravenfeast.profiles import OVERRIDE_KEYS
    from vikingsim.games.ravenfeast.warbands import _EXTRA_KEYS, _TOML_TYPES

    assert set(_TOML_TYPES) == {"type", "count", *OVERRIDE_KEYS, *_EXTRA_KEYS}


def test_toml_type_and_name_must_be_strings(tmp_path):
    with pytest.raises(InputError, match="type") as err:
        load_warband(_toml(tmp_path, "[[figures]]\ntype = 3\n"))
    assert "band.toml" in str(err.value)
    with pytest.raises(InputError, match="name"):
        load_warband(_toml(tmp_path, 'name = 5\n[[figures]]\ntype = "jarl"\n'))


def test_toml_with_exact_types_loads(tmp_path):
    w = load_warband(_toml(tmp_path, '[[figures]]\ntype = "hirdmen"\ncount = 2\narmor = 4\n'
                                     'mighty = false\nfated = true\nthrall = false\n'))
    assert w.figures[1] == ("hirdmen", {"armor": 4, "mighty": False, "fated": True,
                                        "thrall": False})
    s = compile_setup(w, "bondi")
    assert s.armt[0, 1, 0] == 4
    assert s.fig[0, 1, FigCol.MIGHTY] == 0 and s.fig[0, 1, FigCol.FATED] == 1


# ---------------------------------------------------------------- options and modes

def _opts(**given):
    full = {o.name: o.default for o in GAME.options}
    full.update(given)
    return full


def _warnings(err: str) -> list[str]:
    return [ln for ln in err.splitlines() if ln.startswith("vikingsim: warning:")]


def test_every_option_declares_its_modes():
    modes = OPTION_MODES
    assert {o.name for o in GAME.options} <= set(modes)
    assert all(m and set(m) <= set(MODES) for m in modes.values())


@pytest.mark.parametrize("given, name", [
    ({"wall_ranks": 3}, "wall_ranks"),                                   # warband-only, duel
    ({"geld": 5}, "geld"),
    ({"mode": "warband", "a_uphill": True}, "a_uphill"),                 # duel-only, warband
    ({"mode": "warband", "b_armor": 2}, "b_armor"),
    ({"mode": "scenario", "approach_turns": 2}, "approach_turns"),       # scenario: no volleys
    ({"mode": "scenario", "cover_pieces": 1}, "cover_pieces"),
    ({"mode": "warband", "ffh_jarl_armor": 4}, "ffh_jarl_armor"),        # scenario-only
])
def test_option_that_does_not_apply_to_the_mode_warns_once(capsys, given, name):
    setup(_opts(**given), ["default", "default"], 2)
    lines = _warnings(capsys.readouterr().err)
    mode = given.get("mode", "duel")
    assert len(lines) == 1 and f"option {name}=" in lines[0] and f"mode={mode}" in lines[0]


@pytest.mark.parametrize("given", [
    {},                                                                  # all defaults
    {"a_uphill": True, "max_turns": 20, "shield_wall_cap": "after_mighty"},
    {"mode": "warband", "wall_ranks": 3, "approach_turns": 2, "max_turns": 20},
    {"mode": "warband", "a_uphill": False, "ffh_duel_death_ends": True},  # set to the default
    {"mode": "scenario", "ffh_jarl_armor": 4, "wall_ranks": 3, "thrall_victory": "off"},
])
def test_applicable_or_default_options_do_not_warn(capsys, given):
    setup(_opts(**given), ["default", "default"], 2)
    assert _warnings(capsys.readouterr().err) == []


def test_python_api_warns(capsys):
    simulate(GAME, n=20, seed=1, options={"wall_ranks": 3}, threads=1)
    lines = _warnings(capsys.readouterr().err)
    assert len(lines) == 1 and "wall_ranks=3" in lines[0] and "mode=duel" in lines[0]
    odds({"wall_ranks": 3})                                   # the exact duel path too
    lines = _warnings(capsys.readouterr().err)
    assert len(lines) == 1 and "wall_ranks=3" in lines[0]


def test_cli_warns_on_stderr_and_keeps_json_on_stdout(capfd):
    import json

    assert main(["simulate", "ravenfeast", "-n", "20", "--set", "mode=warband",
                 "--set", "a_uphill=true", "--json"]) == 0
    out, err = capfd.readouterr()
    lines = _warnings(err)
    assert len(lines) == 1 and "a_uphill=True" in lines[0] and "mode=warband" in lines[0]
    assert "p_a_win" in json.loads(out)
