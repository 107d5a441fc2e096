"""`vikingsim sensitivity` (issue 20 §4): the override writer, SALib's indices on a synthetic
model with hand-worked Sobol' indices read through the study's stored counts (a fake chunk
player, no games), an input the game ignores on a real small run, and bad input (one line,
exit 2)."""
import json
import tomllib
from pathlib import Path

import numpy as np
import pytest

from vikingsim.cli import main
from vikingsim.core.errors import InputError
from vikingsim.core.inputs import parse_path, write_overridden
from vikingsim.games import get
from vikingsim.studies import dataset as D
from vikingsim.studies import run as R
from vikingsim.studies import sensitivity as S
from vikingsim.studies.dataset import open_study

ROOT = Path(__file__).resolve().parents[1]
PARAMS = ROOT / "vikingsim" / "games" / "tevragnarok" / "params.toml"
CARDS = ROOT / "vikingsim" / "games" / "raidconquer" / "cards.toml"


# ---- the override writer ---------------------------------------------------------------------
def test_override_copy_sets_the_entries_and_is_named_by_content(tmp_path):
    a = write_overridden(PARAMS, {"economy.draft_size[2]": 5, "giants.values": [2] * 9},
                         tmp_path)
    data = tomllib.loads(a.read_text())
    assert data["economy"]["draft_size"] == [4, 5, 5] and data["giants"]["values"] == [2] * 9
    base = tomllib.loads(PARAMS.read_text())
    base["economy"]["draft_size"][2], base["giants"]["values"] = 5, [2] * 9
    assert data == base                                     # nothing else changed
    again = write_overridden(PARAMS, {"giants.values": [2] * 9, "economy.draft_size[2]": 5},
                             tmp_path)
    other = write_overridden(PARAMS, {"economy.draft_size[2]": 6}, tmp_path)
    assert again == a and other != a and a.name.startswith("params-") and a.suffix == ".toml"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted({a.name, other.name})


def test_override_selects_a_table_of_an_array_by_name(tmp_path):
    path = write_overridden(CARDS, {'card["Longboat"].cost': 5}, tmp_path)
    cards = {c["name"]: c for c in tomllib.loads(path.read_text())["card"]}
    assert cards["Longboat"]["cost"] == 5 and cards["Warriors"]["cost"] == 1
    from vikingsim.games.raidconquer import catalog
    assert catalog.load(str(path)).n_kinds == catalog.load("").n_kinds   # still a catalog


@pytest.mark.parametrize("path, value, match", [
    ("economy.nope", 1, "no key 'nope' there; keys: draft_size"),
    ("economy.draft_size[3]", 1, r"no entry \[3\] \(a list of 3\)"),
    ("economy.draft_size", 4, "is a list in the base file: name one entry"),
    ("economy.sail", 2.5, "does not fit the base file's int 2"),
    ("economy.sail", True, "does not fit"),
    ("economy", 1, "is a table in the base file"),
    ("economy..sail", 1, "is no dotted path"),
    ('card["Nobody"].cost', 1, "no key 'card'"),
])
def test_override_refuses_missing_paths_and_misfit_values(tmp_path, path, value, match):
    with pytest.raises(InputError, match=match):
        write_overridden(PARAMS, {path: value}, tmp_path)
    assert not tmp_path.exists() or not any(tmp_path.iterdir())


def test_parse_path():
    assert parse_path("economy.draft_size[0]") == ("economy", "draft_size", 0)
    assert parse_path('card["Funeral Pyre"].cost') == ("card", ("name", "Funeral Pyre"), "cost")
    for bad in ("", "[0]", ".a", "a.", "a b", "a[x]", "a[0]b"):
        with pytest.raises(InputError):
            parse_path(bad)


# ---- a synthetic model with known indices, through the stored counts -------------------------
#: Y = (3 x1 + 5 x2 + 12 x3 x4) / 1000 + 1/2, inputs independent and uniform on their integers:
#: x1 on 0..4 (var (5^2 - 1)/12 = 2), x2 on 0..2 (var 2/3), x3 and x4 on 0..1 (mean 1/2, var 1/4).
#: Variance parts (times 10^6): V1 = 9 * 2 = 18, V2 = 25 * 2/3 = 50/3; P = 12 x3 x4 has
#: E[P | x3] = 6 x3 so V3 = V4 = 36/4 = 9, Var P = 144/4 - 3^2 = 27, V34 = 27 - 18 = 9.
#: V = 18 + 50/3 + 27 = 185/3. S1 = (54, 50, 27, 27)/185; ST = (54, 50, 54, 54)/185.
SYNTHETIC = """players = 2
headlines = ["win_rate[0]", "win_rate[0] - win_rate[1]"]
[inputs]
"params.giants.values[0]" = {low = 0, high = 4}
"params.scoring.village" = {low = 0, high = 2}
"params.economy.boon" = {low = 0, high = 1}
"params.economy.valkyrie_harvest_bonus" = {low = 0, high = 1}
"""
S1_EXACT = np.array([54, 50, 27, 27]) / 185
ST_EXACT = np.array([54, 50, 54, 54]) / 185
FAKE_GAMES = 1_000_000


def fake_chunk(task):
    """Write the tally a chunk of FAKE_GAMES games would leave, with seat 0's wins given by the
    model at the point's inputs (read back from the point's params file)."""
    spec, setup = D.cell_setup(task.game, task.players, task.policies, task.options_json)
    p = tomllib.loads(Path(json.loads(task.options_json)["params"]).read_text())
    x = (p["giants"]["values"][0], p["scoring"]["village"], p["economy"]["boon"],
         p["economy"]["valkyrie_harvest_bonus"])
    n = task.chunk.games
    tally = spec.tally(setup, spec.allocate(setup, 1))
    w0 = n // 2 + (3 * x[0] + 5 * x[1] + 12 * x[2] * x[3]) * (n // 1000)
    tally["wins"] = np.array([w0, n - w0], np.int64)
    D.cell_dir(task.root, task.chunk.cell).mkdir(parents=True, exist_ok=True)
    D.write_tally(D.tally_path(task.root, task.chunk.cell, task.chunk.chunk), tally, task.meta)
    return tally


@pytest.fixture
def synthetic(tmp_path, monkeypatch):
    monkeypatch.setattr(R, "play_chunk", fake_chunk)
    space = tmp_path / "space.toml"
    space.write_text(SYNTHETIC)

    def run(method, samples, **kw):
        out = tmp_path / f"{method}{samples}"
        S.run_sensitivity("tevragnarok", space, method=method, samples=samples,
                          games=FAKE_GAMES, seed=11, out=out, workers=1, **kw)
        return open_study(out)
    return run


def test_sobol_indices_of_a_synthetic_model_match_the_hand_worked_ones(synthetic):
    data = synthetic("sobol", 512, second_order=False)
    assert len(data.manifest["cells"]) == 512 * (4 + 2) and data.manifest["kind"] == \
        "sensitivity" and data.manifest["rows"] is False
    tables = S.report_tables(data)
    idx = tables["sensitivity indices"]
    for head in ("win_rate[0]", "win_rate[0] - win_rate[1]"):   # the difference is 2 Y - 1
        got = idx[idx["headline"] == head].set_index("input").loc[
            [r["name"] for r in data.manifest["report"]["inputs"]]]
        assert np.abs(got["S1"].to_numpy() - S1_EXACT).max() < 0.03, got
        assert np.abs(got["ST"].to_numpy() - ST_EXACT).max() < 0.03, got
        assert ((got["ST_lo"] < ST_EXACT) & (ST_EXACT < got["ST_hi"])).all(), got
    noise = tables["monte carlo noise"].set_index("headline")
    # binomial variance p (1 - p) / n at p ~ 0.5 over the model's variance 185/3 * 1e-6
    assert noise.loc["win_rate[0]", "noise_share"] == pytest.approx(
        0.25 / FAKE_GAMES / (185 / 3 * 1e-6), rel=0.1)
    # two seats: the difference is 2 p0 - 1, so its multinomial variance 4 p0 (1 - p0) / n
    # over 4 var(Y) is the same share
    assert noise.loc["win_rate[0] - win_rate[1]", "noise_share"] == pytest.approx(
        noise.loc["win_rate[0]", "noise_share"], rel=1e-9)
    findings = S.report_findings(data)
    ranked = findings[0].split("moves most with ")[1]             # x1, x3, x4 tie at 54/185
    assert findings[0].startswith("win_rate[0] (sd") and ranked.index("scoring.village") > \
        max(ranked.index(k) for k in ("giants.values[0]", "economy.boon", "valkyrie_harvest"))
    assert not any("Monte Carlo noise is" in f for f in findings)      # 0.4%: no warning


def test_a_total_index_within_the_noise_share_does_not_count_as_moving():
    """Noise of share s gives every input that changes the games ST = ST_true (1 - s) + s: an
    interval [0.25, 0.35] under s = 0.40 is noise, [0.45, 0.55] is not."""
    import pandas as pd
    rows = pd.DataFrame([{"input": "a", "S1": 0.1, "ST": 0.5, "ST_conf": 0.05},
                         {"input": "b", "S1": 0.0, "ST": 0.3, "ST_conf": 0.05}])
    noise = {"noise_share": 0.40, "sd_between_points": 0.02, "games_per_point": 1000}
    text = S._ranked_sobol("win_rate[0]", rows, noise)
    assert "moves most with a (total 0.50 [0.45, 0.55]" in text
    assert "b does not move it measurably (total-index interval reaches the noise share 0.40)" \
        in text
    quiet = S._ranked_sobol("win_rate[0]", rows, {**noise, "noise_share": 0.60})
    assert "no input moves it measurably" in quiet


def test_morris_of_a_linear_model_and_its_noise_floor_by_hand():
    """Y = 3 x0 on [0, 2] (x1 on [0, 1] ignored): every elementary effect, SALib's change per
    whole range, is 3 * 2 = 6, so mu* = 6 and 0. Noise variance 1e-4 per point: the floor is
    sqrt(2e-4) sqrt(2 / pi) / (2/3) = 0.0169257 (4 levels, step 4 / 6 of the range)."""
    from SALib.sample import morris

    problem = {"num_vars": 2, "names": ["a", "b"], "bounds": [[0, 2], [0, 1]]}
    X = morris.sample(problem, 6, num_levels=4, seed=1)
    report = {"method": "morris", "levels": 4, "sample_seed": 1}
    rows = S._indices(report, problem, X, 3 * X[:, 0], "y",
                      {"mean_noise_var": 1e-4, "output_var": float(np.var(3 * X[:, 0]))})
    assert [r["input"] for r in rows] == ["a", "b"]
    assert rows[0]["mu_star"] == pytest.approx(6) and rows[1]["mu_star"] == pytest.approx(0)
    assert rows[0]["mu_star_noise"] == pytest.approx(0.0169257, rel=1e-5)


def test_morris_ranks_the_synthetic_inputs(synthetic, tmp_path):
    data = synthetic("morris", 40)
    idx = S.report_tables(data)["sensitivity indices"]
    got = idx[idx["headline"] == "win_rate[0]"]
    assert list(got["input"])[0] in ("params.giants.values[0]", "params.scoring.village")
    assert (got["mu_star"] > 0).all() and len(got) == 4
    figs = S.report_figures(data, tmp_path)
    assert [p.name for p in figs] == ["sensitivity.png"] and figs[0].stat().st_size > 5000


def test_a_study_of_many_cells_rewrites_its_manifest_a_few_times_only(synthetic, monkeypatch):
    """study.json holds every cell: rewritten after each of them, a 22,528-cell study was
    quadratic in its cells (run._Rewrites: at most one rewrite per MANIFEST_EVERY_S)."""
    writes = []
    real = D.write_json
    monkeypatch.setattr(D, "write_json", lambda path, obj: (writes.append(Path(path).name),
                                                            real(path, obj))[1])
    data = synthetic("sobol", 32, second_order=False)             # 192 cells
    assert data.manifest["complete"] and len(data.manifest["cells"]) == 192
    assert all(c["games_done"] == FAKE_GAMES for c in data.manifest["cells"])
    assert 2 <= writes.count(D.MANIFEST) < 40, writes.count(D.MANIFEST)


def test_a_plain_option_input_is_a_knob_of_every_point(tmp_path):
    """start_gold (an integer option of the raid board) sampled on 10..30: each point's case
    sets it to floor of SALib's sample, which the manifest records as the cell's option."""
    space = tmp_path / "space.toml"
    space.write_text('headlines = ["win_rate[0]"]\n[inputs]\nstart_gold = {low = 10, high = 30}\n'
                     'seat_gold_step = {low = 0, high = 3}\n')
    study, out = S.plan_sensitivity("raidboard", space, samples=8, games=100, seed=4,
                                    out=tmp_path / "rb", second_order=False)
    X = np.asarray(study.report["X"])
    assert [list(c) for c in study.cases] == [["start_gold", "seat_gold_step"]] * 32
    assert [c["start_gold"] for c in study.cases] == [int(np.floor(x)) for x in X[:, 0]]
    assert {c["seat_gold_step"] for c in study.cases} == {0, 1, 2, 3}
    assert (X[:, 0] >= 10).all() and (X[:, 0] < 31).all()
    assert (S.inputs_folder(out) / "rb.toml").is_file() and not out.exists()


def test_sensitivity_kind_is_registered():
    from vikingsim.studies.kinds import KINDS
    assert KINDS["sensitivity"] == "vikingsim.studies.sensitivity"


# ---- a real small game: an input the game ignores ---------------------------------------------
REAL = """players = 2
headlines = ["win_rate[0]", "giant_share"]
[inputs]
"params.giants.values" = {low = -1, high = 2, add = true}
"params.level_a.fury_max" = {low = 0, high = 12}
"""


def test_an_input_the_game_ignores_has_total_index_zero(tmp_path, capsys):
    space = tmp_path / "space.toml"
    space.write_text(REAL)
    out = tmp_path / "real"
    assert main(["sensitivity", "tevragnarok", "--params-space", str(space), "--samples", "16",
                 "--first-order", "-n", "400", "--seed", "3", "--out", str(out), "--quiet",
                 "--workers", "1"]) == 0
    data = open_study(out)
    idx = S.report_tables(data)["sensitivity indices"].set_index(["headline", "input"])
    for head in ("win_rate[0]", "giant_share"):
        null = idx.loc[(head, "params.level_a.fury_max")]     # Level A only (§4.2)
        assert null["ST_lo"] <= 0 <= null["ST_hi"] and abs(null["ST"]) < 1e-12
    giants = idx.loc[("giant_share", "params.giants.values")]
    assert giants["ST_lo"] > 0.2                              # the Giants' VP move their share
    # the stored study replays: every point's file is recorded (hashed) and resumable
    capsys.readouterr()
    assert main(["sensitivity", "tevragnarok", "--params-space", str(space), "--samples", "16",
                 "--first-order", "-n", "400", "--seed", "3", "--out", str(out), "--quiet",
                 "--resume", "--workers", "1", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)                  # one JSON object, all resumed
    assert got["points"] == 16 * 4 and len(got["sensitivity_indices"]) == 2 * 2
    assert main(["sensitivity", "tevragnarok", "--params-space", str(space), "--samples", "16",
                 "--out", str(out)]) == 2                      # taken: refused before planning
    assert "already holds a study: add --resume" in capsys.readouterr().err
    files = data.manifest["cells"][0]["files"]["option.params"]
    assert (S.inputs_folder(out) / files["path"]).is_file()


# ---- bad input: one line, exit 2 -------------------------------------------------------------
GOOD = """players = 2
headlines = ["win_rate[0]"]
[inputs]
"params.giants.values[0]" = {low = 0, high = 4}
"""
BAD = {
    "unknown key": ("colour = 1\n" + GOOD, "unknown key 'colour'"),
    "no such path": (GOOD.replace("values[0]", "valuez[0]"), "no key 'valuez' there"),
    "index beyond": (GOOD.replace("values[0]", "values[9]"), r"no entry \[9\]"),
    "a list": (GOOD.replace("values[0]", "values"), "add = true varies a list"),
    "not an option": (GOOD.replace('"params.', '"parms.'), "'parms' is no tevragnarok option"),
    "choice option": (GOOD + 'era_opener = {low = 0, high = 1}\n', "era_opener is a choice"),
    "option out of range": (GOOD + 'first_seat = {low = 0, high = 5}\n',
                            "'first_seat' = 5: option first_seat=5: must be an integer"),
    "low above high": (GOOD.replace("high = 4", "high = -1"), "low < high"),
    "integer false": (GOOD.replace("high = 4}", "high = 4, integer = false}"),
                      "is an integer: write integer = true"),
    "fractional bounds": (GOOD.replace("high = 4", "high = 4.5"), "needs whole low and high"),
    "range the game refuses": (GOOD.replace("high = 4", "high = 80"),
                               "'params.giants.values\\[0\\]' = 80: params giants.values"),
    "bad input table": (GOOD.replace("{low = 0, high = 4}", "3"), "must be a table"),
    "unknown headline": (GOOD.replace('"win_rate[0]"', '"rounds_mean"'),
                         "rounds_mean is no number of the tevragnarok summary"),
    "bad headline": (GOOD.replace('"win_rate[0]"', '"win_rate[0] + 1"'), "write a metric"),
    "other game": ('game = "raidboard"\n' + GOOD, "game = 'raidboard' but the command"),
    "no inputs": (GOOD.split("[inputs]")[0], "names no input"),
    "not toml": ("players = \n", "not valid TOML"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_params_space_is_one_line_and_exit_2(tmp_path, capsys, case):
    text, match = BAD[case]
    space = tmp_path / "space.toml"
    space.write_text(text)
    code = main(["sensitivity", "tevragnarok", "--params-space", str(space), "--samples", "4",
                 "-n", "10", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and err.startswith("vikingsim: error:"), err
    import re
    assert re.search(match, err), err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("args, match", [
    (["--samples", "12"], "needs a power of 2"),
    (["--method", "fast"], "--method 'fast' is none of: sobol, morris"),
    (["-n", "0"], "-n must be an integer"),
])
def test_bad_arguments_are_one_line_and_exit_2(tmp_path, capsys, args, match):
    space = tmp_path / "space.toml"
    space.write_text(GOOD)
    code = main(["sensitivity", "tevragnarok", "--params-space", str(space),
                 "--out", str(tmp_path / "out"), *args])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and match in err, err


def test_missing_space_file_is_one_line(tmp_path, capsys):
    assert main(["sensitivity", "tevragnarok", "--params-space", str(tmp_path / "no.toml")]) == 2
    assert "does not exist" in capsys.readouterr().err
