"""`vikingsim balance --target worth` (vikingsim/studies/balance_worth.py): the worth gap of a
setting is the restricted-play study's own worths (importance.worth_table) differenced; a
card's cost fitted on its worth does not depend on the cost the base catalog gives it (moved
away, the fit comes back); bad input is one line, exit 2. And the search's stage 0 plays
no setting twice (small integer grids enumerated, Optuna's repeats cost no games)."""
import json

import numpy as np
import pytest

from vikingsim.cli import main
from vikingsim.core.errors import InputError
from vikingsim.studies import balance as B
from vikingsim.studies import balance_worth as W
from vikingsim.studies import importance
from vikingsim.studies.run import run_study

BERSERKER = 'catalog.card["Berserker"].cost'


# ---- the median and mean card: over the cards with a cost (GameSpec.worth_pool) -----------
@pytest.mark.parametrize("element, first", [("Funeral Pyre", "funeral_pyre"),
                                            ("Lindisfarne", "lindisfarne")])
def test_median_card_is_taken_over_the_buyable_cards(element, first):
    """Raid & Conquer's forbid also takes its 21 Raid cards and 4 Treasures (notes
    raidconquer §12.4), which have no cost; a median or mean reference stays over the 20
    buyable cards, in catalog order as before (the element itself added when it is none of
    them); a named reference is two elements as before."""
    from vikingsim.games import get

    spec = get("raidconquer")
    valid, pool = W.setup_elements(spec, ["hints"] * 4, 4, {})
    assert len(valid) == 45 and len(pool) == 20 and set(pool) < set(valid)
    for ref in ("median", "mean"):
        wt = W.parse_worth(["worth"], element, ref, None, valid, 4, pool)
        assert wt.element == first and set(wt.elements) == set(pool) | {first}
        assert list(wt.elements) == [x for x in valid if x in wt.elements]   # catalog order
        assert len(wt.elements) == (20 if first in pool else 21)
    wt = W.parse_worth(["worth"], element, "paris", None, valid, 4, pool)
    assert wt.elements == (first, "paris")


# ---- the gap is the importance study's worths differenced ---------------------------------
@pytest.fixture(scope="module")
def rc_study(tmp_path_factory):
    """A 2-player Raid & Conquer restricted-play study of six cards, 600 games per cell."""
    elements = ["berserker", "longboat", "funeral_pyre", "warriors", "hedeby_trader", "kalf"]
    study = importance.build_study("raidconquer", games=600, seed=11, players=2,
                                   elements=elements)
    return run_study(study, tmp_path_factory.mktemp("rc") / "s", workers=1).open(), elements


@pytest.mark.parametrize("reference", ["longboat", "median", "mean"])
def test_gap_is_the_worth_tables_difference(rc_study, reference):
    data, elements = rc_study
    t = importance.worth_table(data).set_index("element")["worth"]
    wt = W.WorthTarget("berserker", reference, tuple(elements) if reference != "longboat"
                       else ("berserker", "longboat"), 0.0, 0.01, "worth")
    s = W.gap_summary(data, wt)
    others = t.drop("berserker")
    want = {"longboat": t["longboat"], "mean": others.mean(),
            "median": others.median()}[reference]          # 5 others: the 3rd
    # a reference that is not 0: the checks below hold to 1e-12, so any |want| > 1e-4 tells
    # a gap taken from the reference from one taken from 0 (the mean of these five cards'
    # worths is small: +0.07 points here since the Loot reading of 2026-12-08)
    assert abs(want) > 1e-4
    assert s["worth"] == pytest.approx(t["berserker"], abs=1e-12)
    assert s["reference_worth"] == pytest.approx(want, abs=1e-12)
    assert s["worth_gap"] == pytest.approx(t["berserker"] - want, abs=1e-12)
    lo, hi = s["worth_gap_ci"]
    assert lo < s["worth_gap"] < hi and s["worth_gap_se"] > 0 and s["games"] == 600
    if reference == "median":
        assert s["reference_elements"] == [others.sort_values().index[2]]


# ---- a cost moved away from its fitted value comes back ------------------------------------
def _fit(tmp_path, name, *extra):
    out = tmp_path / name
    rc = main(["balance", "raidconquer", "--players", "2", "--target", "worth",
               "--element", "Berserker", "--reference", "longboat", "--vary",
               f"{BERSERKER}=4..9", "--budget", "12000", "--holdout", "4000", "--seed", "3",
               "--baseline", "--quiet", "--json", "--workers", "1", "--out", str(out), *extra])
    assert rc == 0
    return out


def test_a_cost_moved_away_from_its_fit_comes_back(tmp_path, capsys):
    """Berserker (cost 5 in cards.toml) is worth far more than Longboat to 2 hints players
    (about +12 points at 2 players, 4,000 hold-out games, interval about ±1.5): its fitted cost
    is higher. A catalog moving its cost to 9 (worth far less: the shift shows, about -13
    points) fits the same cost: the search does not anchor on the base file's value."""
    import tomllib

    import tomli_w

    from vikingsim.games.raidconquer.catalog import BUNDLED

    base = _fit(tmp_path, "bundled")
    got = json.loads(capsys.readouterr().out)
    cards = tomllib.loads(BUNDLED.read_text())
    for c in cards["card"]:
        if c["name"] == "Berserker":
            assert c["cost"] == 5
            c["cost"] = 9
    moved_file = tmp_path / "moved.toml"
    moved_file.write_text(tomli_w.dumps(cards))
    _fit(tmp_path, "moved", "--catalog", str(moved_file))
    moved = json.loads(capsys.readouterr().out)
    b5, b9 = got["baseline"][0], moved["baseline"][0]
    assert b5["estimate"] > 0.05 and b5["ci"][0] > 0          # worth more: under-costed
    assert b9["estimate"] < b5["estimate"] - 0.1                # the moved cost shows the shift
    assert b9["ci"][1] < b5["ci"][0]
    fit = got["best"][BERSERKER]
    assert moved["best"][BERSERKER] == fit and 5 < fit < 9       # back from 9, up from 5
    assert moved["search"] == got["search"] and moved["holdout"] == got["holdout"]
    for s in (got, moved):
        assert abs(s["holdout"][0]["estimate"]) < min(abs(b5["estimate"]), abs(b9["estimate"]))
    assert (base / "holdout" / "study.json").exists()           # a restricted-play study
    assert json.loads((base / "holdout" / "study.json").read_text())["kind"] == "importance"


# ---- bad input ------------------------------------------------------------------------------
@pytest.mark.parametrize("argv, words", [
    (["--target", "worth"], "needs --element"),
    (["--target", "worth", "--element", "Nosuch Card"], "unknown element"),
    (["--target", "worth", "--element", "berserker", "--reference", "Berserker"],
     "is the --element itself"),
    (["--target", "worth", "--element", "berserker", "--reference", "nosuch"],
     "unknown element"),
    (["--target", "worth", "--element", "berserker", "--worth-within", "0"],
     "positive number of points"),
    (["--target", "worth", "--target", "win_rate[0]=0.5", "--element", "berserker"],
     "only target"),
    (["--target", "win_rate[0]=0.5", "--reference", "median"], "go with --target worth"),
    (["--target", "worth=1/", "--element", "berserker"], "not an expression"),
])
def test_bad_input_is_one_line_exit_2(argv, words, capsys, tmp_path):
    rc = main(["balance", "raidconquer", "--players", "2", *argv, "--vary", f"{BERSERKER}=3..6",
               "--out", str(tmp_path / "b")])
    err = capsys.readouterr().err
    assert rc == 2 and words in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "b").exists()


def test_a_game_without_elements_is_refused(capsys, tmp_path):
    rc = main(["balance", "ravenfeast", "--target", "worth", "--element", "x", "--vary",
               "nosuch=1..2", "--out", str(tmp_path / "b")])
    err = capsys.readouterr().err
    assert rc == 2 and len(err.strip().splitlines()) == 1, err


# ---- the search plays no setting twice in stage 0 -------------------------------------------
def _recorder():
    calls = []

    def evaluate(setting, n, seed):
        x = next(iter(setting.values()))
        p = min(1.0, max(0.0, 0.25 + 0.02 * (x - 3)))
        k = np.random.default_rng(seed).binomial(n, p)
        calls.append((dict(setting), n, seed))
        return {"win_rate": [k / n, 1 - k / n]}
    return evaluate, calls


def test_a_small_integer_grid_is_played_once_each():
    ev, calls = _recorder()
    t = B.parse_targets(["win_rate[0]=0.25"], 2)
    found = B.search(ev, [B.Knob("k", "int", 1, 8)], t, budget=64_000, seed=1, trials=27)
    stage0 = [c for c in calls if c[1] == 64_000 // (4 * 8)][:8]
    assert [c[0]["k"] for c in calls[:8]] == list(range(1, 9))     # every cost, in order
    assert len(stage0) == 8 and len({c[2] for c in stage0}) == 1    # one common seed
    assert found.best == {"k": 3} and found.games <= 64_000
    assert B.small_grid([B.Knob("k", "int", 1, 8)], 7) is None
    assert B.small_grid([B.Knob("a", "int", 0, 1), B.Knob("b", "int", 0, 2)], 6) == [
        (0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
    assert B.small_grid([B.Knob("x", "float", 0, 1)], 100) is None


def test_optuna_repeats_cost_no_games():
    """0..40 is more settings than 27 trials: Optuna proposes; its repeats (TPE re-proposes
    good integers) are told the earlier estimate, so stage 0 plays 27 distinct settings."""
    ev, calls = _recorder()
    t = B.parse_targets(["win_rate[0]=0.25"], 2)
    B.search(ev, [B.Knob("k", "int", 0, 40)], t, budget=108_000, seed=1, trials=27)
    n0 = 108_000 // (4 * 27)
    stage0 = [c[0]["k"] for c in calls if c[1] == n0][:27]
    assert len(stage0) == 27 and len(set(stage0)) == 27
    assert sum(1 for c in calls[:27] if c[1] == n0) == 27
