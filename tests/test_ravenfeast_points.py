"""Ravenfeast points calibration (``vikingsim.questions.ravenfeast``) and the headline of
notebooks/ravenfeast_points.ipynb."""
import math

import numpy as np
import pandas as pd
import pytest

from vikingsim.questions import ravenfeast as P
from vikingsim.games.ravenfeast.profiles import PREDEFINED, PROFILES

PTS = pd.Series({t: float(PROFILES[t].points) for t in PREDEFINED})


def test_duel_matrix_is_complementary_and_symmetric_on_the_diagonal():
    dm = P.duel_matrix(PREDEFINED).set_index(["a", "b"])
    for a in PREDEFINED:
        assert dm.loc[(a, a), "p_a_win"] == pytest.approx(dm.loc[(a, a), "p_b_win"])
        for b in PREDEFINED:
            assert dm.loc[(a, b), "score"] + dm.loc[(b, a), "score"] == pytest.approx(1.0)


def test_bradley_terry_recovers_known_ratings():
    theta = {"x": 1.0, "y": 0.0, "z": -1.0}
    rows = [{"a": a, "b": b, "score": 1 / (1 + math.exp(-(theta[a] - theta[b])))}
            for a in theta for b in theta if a != b]
    fit = P.bradley_terry(pd.DataFrame(rows), list(theta))
    np.testing.assert_allclose(fit.to_numpy(), [1.0, 0.0, -1.0], atol=1e-9)


def test_loo_fit_returns_printed_costs_on_exactly_log_linear_data():
    x = pd.Series({t: math.log(PTS[t]) / 2 + 0.3 for t in PREDEFINED})   # log c = -0.6 + 2x
    fit = P.loo_cost_fit(PTS, x)
    np.testing.assert_allclose(fit["implied"], PTS, rtol=1e-9)
    assert not fit["out_of_line"].any()


def test_single_type_forces_fill_with_thralls_and_cap_at_32():
    assert P.single_type_force("jarl") == [("jarl", 4)]
    assert P.single_type_force("huskarl") == [("huskarl", 8), ("thrall", 1)]
    assert P.single_type_force("thrall") == [("thrall", 32)]
    assert P.force_points(P.single_type_force("bondi")) == 300


def test_force_toml_has_exactly_one_leader(tmp_path):
    path = P.write_force_toml([("jarl", 4)], tmp_path, "jarls")
    text = open(path).read()
    assert text.count("leader = true") == 1 and text.count("leader = false") == 1
    if P.warband_available():
        from vikingsim.games.ravenfeast.warbands import load_warband
        wb = load_warband(path)
        assert len(wb) == 4
        assert sum(bool(ov.get("leader", PROFILES[k].leader)) for k, ov in wb.figures) == 1


def test_lanchester_headline():          # pins notebooks/ravenfeast_points.ipynb, first cell
    fit = P.loo_cost_fit(PTS, np.log(P.lanchester_value(PREDEFINED)["value"]))
    assert fit.loc["berserker", "implied"] == pytest.approx(24.9, abs=0.05)
    assert fit.loc["berserker", "implied_lo"] == pytest.approx(21.8, abs=0.05)
    assert fit.loc["berserker", "implied_hi"] == pytest.approx(28.5, abs=0.05)
    assert list(fit.index[fit["out_of_line"]]) == ["berserker"]


@pytest.mark.slow
def test_battle_headline():              # pins notebooks/ravenfeast_points.ipynb, first cell
    if not P.warband_available():
        pytest.skip("mode=warband not available")
    # the notebook's figures (20,000 battles a cell, §3.2 rolled initiative, the DEFAULT)
    headline = {"jarl": 76.9, "huskarl": 41.7, "berserker": 26.2, "hirdmen": 17.6,
                "bondi": 9.4, "thrall": 8.2}
    wm = P.warband_matrix(PREDEFINED, n=3_000, seed=5)
    sens = P.points_sensitivity(n=8_000, seed=5)
    res = P.implied_costs_from_battles(wm, PREDEFINED, sens)
    for t, v in headline.items():
        assert res.loc[t, "implied_lo"] <= v <= res.loc[t, "implied_hi"], (t, res.loc[t].to_dict())
    assert {"bondi", "berserker", "huskarl"} <= set(res.index[res["out_of_line"]])


@pytest.mark.slow
def test_anchor_headline():             # pins notebooks/ravenfeast_points.ipynb, first cell
    if not P.warband_available():
        pytest.skip("mode=warband not available")
    sens = P.points_sensitivity(n=8_000, seed=5)
    res = P.anchor_checks(n=4_000, seed=5, sens=sens)
    mighty = res.loc["Mighty (+5)"]
    assert mighty["trait_lo"] - 0.3 <= 2.45 <= mighty["trait_hi"] + 0.3   # slope noise margin
    assert mighty["trait_hi"] < 5.0                                      # printed +5 is too dear
    tough = res.loc["Tough (2) (+50 %)"]
    assert tough["trait_lo"] - 0.5 <= 9.33 <= tough["trait_hi"] + 0.5
