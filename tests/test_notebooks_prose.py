"""No hand-typed figure in the prose of the 878, Ravenfeast, raid board, Raid & Conquer and
Ragnarok notebooks (issue 18 §4): every decimal, percentage or percentage-point figure a markdown cell of
``notebooks/<name>.py`` quotes is either rendered by a code cell from computed variables (then
it is not in the markdown source at all) or listed in ``CHECKED`` with what checks it.
Both the Raid & Conquer and the Ragnarok notebooks render their answers too (re-checked
against fresh runs by tests/test_raidconquer_notebook.py and tests/test_tevragnarok_notebook.py)."""
import re
from pathlib import Path

import pytest

NB_DIR = Path(__file__).resolve().parents[1] / "notebooks"
#: a quoted figure: a decimal number, or a number followed by % or pp.
FIGURE = re.compile(r"[-+−]?\d[\d,]*\.\d+(?:\s?(?:%|pp))?|[-+−]?\d[\d,]*\s?(?:%|pp)\b|[-+−]?\d+\s?%")
INTERVAL_LEVEL = {"95%": "the level of every interval (core.stats.Z95)"}
#: per notebook, the figures its prose may quote and what checks each one.
CHECKED = {
    "878_runes_and_prayer": {**INTERVAL_LEVEL},
    "878_is_ragnar_too_strong": {
        **INTERVAL_LEVEL,
        **dict.fromkeys(["62.0%", "80.4%", "+18.4 pp", "1.30"],
                        "tests/test_battle878_exact.py::test_ragnar_notebook_headline"),
        "30%": "input: vikings(k), checked in test_army_shares_are_the_code_s",
        "40%": "input: english(k), checked in test_army_shares_are_the_code_s"},
    "ravenfeast_points": {
        **INTERVAL_LEVEL,
        "10 %": "input: P.CALIBRATION_TOLERANCE, checked in test_tolerance_is_the_code_s",
        "+50 %": "input: the §12.3 price of Tough (2) (vikingsim.questions.ravenfeast.ANCHORS)"},
    "raidboard_seat_advantage": {
        **INTERVAL_LEVEL,
        **dict.fromkeys(["29.5%", "29.4%", "29.6%", "54.9%", "54.8%", "55.0%"],
                        "tests/test_notebooks.py::test_raidboard_seat_advantage_headline"),
        "25%": "the fair share of 4 players (1/4)"},
    "tevragnarok_giants_and_valkyries": {**INTERVAL_LEVEL},
    "raidconquer_is_ragnar_too_strong": {
        **INTERVAL_LEVEL,
        **dict.fromkeys(["26%", "25%", "80%", "5%"],
                        "input: games_needed(0.26, 0.25) (80% power, 5% level), checked in "
                        "test_power_inputs_are_the_code_s"),
        "0.25": "the fair share of 4 players (1/4)"},
}


def quoted_figures(text: str) -> set[str]:
    text = re.sub(r"§\s?\d+(?:\.\d+)*", "§", text)                  # section numbers
    return {m.group().strip() for m in FIGURE.finditer(text)}


def _markdown(name):
    import jupytext

    return "\n".join(c.source for c in jupytext.read(NB_DIR / f"{name}.py").cells
                     if c.cell_type == "markdown")


@pytest.mark.parametrize("name", sorted(CHECKED))
def test_prose_quotes_only_checked_figures(name):
    unchecked = quoted_figures(_markdown(name)) - set(CHECKED[name])
    assert not unchecked, (f"notebooks/{name}.py quotes figures by hand: {sorted(unchecked)}; "
                           "render them from the tables (IPython.display.Markdown) or check them "
                           "in a test and list them in CHECKED")


def test_figure_pattern():
    text = "wins 29.4% [29.3, 29.5], +18.4 pp, worth 1.30; 10 % off; 20,000 games; §4.3; 95%"
    assert quoted_figures(text) == {"29.4%", "29.3", "29.5", "+18.4 pp", "1.30", "10 %", "95%"}


def test_army_shares_are_the_code_s():
    src = (NB_DIR / "878_is_ragnar_too_strong.py").read_text()
    assert "b = round(0.3 * k)" in src and "h = round(0.4 * k)" in src


def test_tolerance_is_the_code_s():
    from vikingsim.questions import ravenfeast as P

    assert P.CALIBRATION_TOLERANCE == 0.10
    assert P.ANCHORS["Tough (2) (+50 %)"][1] == 1.5 * 18


def test_power_inputs_are_the_code_s():
    from vikingsim.stats import games_needed
    import inspect

    src = (NB_DIR / "raidconquer_is_ragnar_too_strong.py").read_text()
    assert "games_needed(0.26, 0.25, two_sample=False)" in src
    sig = inspect.signature(games_needed).parameters
    assert sig["power"].default == 0.8 and sig["alpha"].default == 0.05
