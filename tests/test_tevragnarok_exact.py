"""Level A, Giant economics (tev-ragnarok §4.2): the exact enumeration against hand arithmetic
and against the Monte Carlo of the same experiment.

How many samples, and why enough: 200,000 per check. The per-sample sd of the slay's value is
about 2 VP (Giant sd 1.15, Fury shift sd ~1.6), so one standard error is ~0.0045 VP and the
4-SE band (``config.TEST_K_SE``) is about +-0.02 VP. The smallest defect worth catching moves
an expected value by far more: ``test_the_check_would_see_a_wrong_tie_rule`` shows the
"tied gods take the higher value" reading shifts ev_island by > 0.1 VP (over 15 SE), and
a wrong Giant mean moves ev_slay by >= 1/9 VP. A correct engine fails a 4-SE check with
probability 6e-5 per value.
"""
from __future__ import annotations

import itertools
import json

import pytest

from vikingsim.core import config
from vikingsim.core.testing import within_k_se
from vikingsim.games.tevragnarok import Rules, economics as E, load_params

N_MC = 200_000
KEYS = ("ev_slay", "ev_slay_giant", "ev_slay_fury_shift", "ev_island", "ev_favor")


def _params(tmp_path, text):
    path = tmp_path / "p.toml"
    path.write_text(text)
    return Rules(params=str(path)).p


def test_rank_index_ties_take_the_lower_value():
    """§2.6 PUBLIC: tied gods each score the lower value."""
    assert [E.rank_index((3, 2, 1), g) for g in range(3)] == [0, 1, 2]
    assert [E.rank_index((2, 2, 1), g) for g in range(3)] == [1, 1, 2]
    assert [E.rank_index((0, 0, 0), g) for g in range(3)] == [2, 2, 2]
    assert [E.rank_index((1, 3, 3), g) for g in range(3)] == [2, 1, 1]


def test_all_gods_level_by_hand(tmp_path):
    """fury_max = 0: every god at 0, all tied (rank 3 values: Island 2, Favor 1). Holding
    Islands A, B and Favors B, C: 2 + 2 + 1 + 1 = 6. A slay's +1 Fury puts one god alone
    first (Island 6, Favor 3), the other two tied last:
      god A: 6 + (2 + 1) + 1 = 10 (+4); B: 2 + (6 + 3) + 1 = 12 (+6); C: 2 + (2 + 1) + 3 = 8 (+2)
    mean shift (4 + 6 + 2) / 3 = 4; ev_slay = Giant mean 3 + 4 = 7.
    An extra Island of the god that gains the Fury: A 12+3+1 = 16 (+10); B 2+(12+3)+1 = 18
    (+12); C 2+3+(6+3) = 14 (+8): ev_island = 10. A Favor card scores rank 3: 1."""
    e = E.exact(_params(tmp_path, "[level_a]\nfury_max = 0\n"))
    assert e["ev_slay_fury_shift"] == 4.0 and e["ev_slay"] == 7.0
    assert e["ev_island"] == 10.0 and e["ev_favor"] == 1.0
    assert e["ev_slay_giant"] == 3.0 and e["ev_slay_per_settler"] == 7.0 / 3


def test_giant_distribution_by_hand():
    """§4.4 pool 1, 2, 2, 3, 3, 3, 4, 4, 5: P(3) = 3/9, mean 27/9 = 3, variance
    (4 + 1 + 1 + 0 + 0 + 0 + 1 + 1 + 4) / 9 = 12/9."""
    e = E.exact(load_params())
    assert e["p_giant_3"] == 3 / 9 and e["p_giant_1"] == 1 / 9 and e["p_giant_5"] == 1 / 9
    assert abs(e["sd_giant"] ** 2 - 12 / 9) < 1e-12


def test_giant_of_any_region_is_the_pool_mean_by_enumeration():
    """Drawn without replacement: every ordered placement of the 9 tokens into 3 regions
    (504 of them); the third region's Giant averages the pool mean."""
    p = load_params("giants_wide")
    assert E.giant_of_region_exact(p, 3) == pytest.approx(27 / 9, abs=1e-12)
    # and a slay after a known one: the rest of the pool (e.g. a 5 seen: mean 22/8)
    rest = [v for v in load_params().giants_values]
    rest.remove(5)
    assert sum(rest) / len(rest) == 22 / 8


@pytest.mark.parametrize("preset", ["default", "giants_wide", "island_630", "giants_mean4"])
def test_monte_carlo_agrees_with_the_enumeration(preset):
    p = load_params(preset)
    e, m = E.exact(p), E.monte_carlo(p, N_MC, seed=7)
    for key in KEYS:
        assert within_k_se(m[key], e[key], m[key + "_se"]), (key, m[key], e[key])


def test_the_check_would_see_a_wrong_tie_rule(monkeypatch):
    """The Monte Carlo is sharp enough: with ties scored at the *higher* value the exact
    ev_island moves by more than 4 standard errors of the correct Monte Carlo."""
    p = load_params()
    m = E.monte_carlo(p, N_MC, seed=7)
    right = E.exact(p)["ev_island"]
    monkeypatch.setattr(E, "rank_index", lambda f, g: sum(
        1 for h in range(3) if h != g and f[h] > f[g]))
    wrong = E.exact(p)["ev_island"]
    assert abs(wrong - right) > config.TEST_K_SE * m["ev_island_se"]
    assert not within_k_se(m["ev_island"], wrong, m["ev_island_se"])


def test_exact_is_a_full_enumeration():
    """(fury_max + 1)^3 Fury triples x 3 Runes, each counted once: with fury_max = 6, 1029."""
    p = load_params()
    assert len(list(itertools.product(range(p.level_a_fury_max + 1), repeat=3))) * 3 == 1029


def test_vikingsim_odds_prints_level_a(cli):
    r = cli("odds", "tevragnarok", "--set", "params=giants_flat", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["ev_slay_giant"] == 3.0 and d["sd_giant"] == 0.0 and d["p_giant_3"] == 1.0
