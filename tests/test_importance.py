"""Restricted play (`vikingsim importance`, issue 20 §2) on the raid board: known answers.

- Greedy never uses Baltic Sea or lost_own (raidboard §10.2-10.3, §10.5): their cells are the
  baseline's games bit for bit and their worth is exactly 0.
- Denied lost_opponent, a greedy seat that lands on Reconquest removes its own settlement
  instead of the richest opponent's (§10.5): by hand, that can only hurt it, so the worth is
  positive (and large enough to show in a few thousand games).
- The paired interval equals scipy's one-sample t interval of the per-game differences built
  here from the stored rows; the unpaired one equals the normal interval of the win counts
  with the baseline's seats taken as one multinomial (its covariance matrix, by hand).
"""
import json
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from vikingsim.cli import main
from vikingsim.core.errors import InputError
from vikingsim.studies import importance as I
from vikingsim.studies.dataset import cell_tally, open_study
from vikingsim.studies.kinds import expand
from vikingsim.studies.plan import chunk_size, plan_cells, study_hash
from vikingsim.studies.run import run_study
from vikingsim.studies.spec import load_study
from tests.test_studies_cli import ROOT
from tests.test_studies_run import same_dataset
from tests.stopping import sigterm_after

ELEMENTS = ["baltic_sea", "lost_own", "lost_opponent", "north_sea"]
N, SEED, PLAYERS = 6000, 5, 3


def make(tmp, name, *, rows=True, elements=ELEMENTS, n=N, chunk=4096):
    study = I.build_study("raidboard", games=n, seed=SEED, players=PLAYERS, elements=elements,
                          rows=rows, chunk_games=chunk, name=name, path=tmp / f"{name}.toml")
    return run_study(study, tmp / name, workers=1)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("importance")
    return make(tmp, "paired"), make(tmp, "counts", rows=False)


def test_cells_are_the_baseline_and_each_element_for_each_seat(runs):
    m = runs[0].manifest
    assert m["kind"] == "importance" and m["study_content"]["common_seeds"] is True
    base, cells = I.cell_map(m)
    assert base == 0 and len(m["cells"]) == 1 + len(ELEMENTS) * PLAYERS
    assert sorted(cells) == sorted((e, s) for e in ELEMENTS for s in range(PLAYERS))
    assert m["cells"][cells[("north_sea", 2)]]["policies"] == \
        ["greedy", "greedy", "greedy(forbid=north_sea)"]
    assert m["cells"][base]["policies"] == ["greedy"] * 3


def test_an_unused_element_has_worth_0_and_its_cells_equal_the_baseline(runs):
    data = open_study(runs[0].root)
    base, cells = I.cell_map(data.manifest)
    rows = data.games()
    want = rows[rows.cell == base].drop(columns="cell").reset_index(drop=True)
    for e in ("baltic_sea", "lost_own"):
        for s in range(PLAYERS):
            got = rows[rows.cell == cells[(e, s)]].drop(columns="cell").reset_index(drop=True)
            pd.testing.assert_frame_equal(got, want)
    t = I.worth_table(data).set_index("element")
    for e in ("baltic_sea", "lost_own"):
        assert t.loc[e, "worth"] == 0 and t.loc[e, "lo"] <= 0 <= t.loc[e, "hi"]
        assert t.loc[e, "unused"] and not t.loc[e, "nonzero"] and t.loc[e, "p_holm"] == 1
    assert not t.loc["north_sea", "unused"]                  # greedy sails there from 9


def test_lost_opponent_has_the_sign_the_hand_argument_predicts(runs):
    t = I.worth_table(open_study(runs[0].root))
    top = t.iloc[0]
    assert top["element"] == "lost_opponent" and top["rank"] == 1
    assert top["lo"] > 0 and top["nonzero"]


def _paired_differences(data):
    """D_g built here from the rows: (1/K) sum_s (1[baseline winner = s] - 1[cell (e, s)
    winner = s]), per element."""
    rows = data.games(columns=["winner"])
    w = rows.pivot(index="game_id", columns="cell", values="winner")
    base, cells = I.cell_map(data.manifest)
    return {e: sum((w[base] == s).astype(float) - (w[cells[(e, s)]] == s).astype(float)
                   for s in range(PLAYERS)) / PLAYERS for e in ELEMENTS}


def _holm(p):
    """Holm's step-down adjustment by hand."""
    order = np.argsort(p)
    adj = np.empty(len(p))
    running = 0.0
    for i, k in enumerate(order):
        running = max(running, min(1.0, (len(p) - i) * p[k]))
        adj[k] = running
    return adj


def test_holm_adjustment_by_hand():
    # sorted p 0.01, 0.02, 0.03, 0.5 times 4, 3, 2, 1 -> 0.04, 0.06, 0.06, 0.5 (running max);
    # rejected at 0.05: only the first
    adj, reject = I.holm(np.array([0.03, 0.5, 0.01, 0.02]))
    np.testing.assert_allclose(adj, [0.06, 0.5, 0.04, 0.06])
    assert list(reject) == [False, False, True, False]


def test_paired_interval_is_scipys_t_interval_of_the_stored_rows(runs):
    data = open_study(runs[0].root)
    t = I.worth_table(data).set_index("element")
    assert set(t["interval"]) == {I.PAIRED} and (t["games"] == N).all()
    for e, d in _paired_differences(data).items():
        assert t.loc[e, "worth"] == pytest.approx(d.mean(), abs=1e-15)
        if d.std() == 0:
            continue
        res = stats.ttest_1samp(d.to_numpy(), 0.0)
        ci = res.confidence_interval(0.95)
        assert (t.loc[e, "lo"], t.loc[e, "hi"]) == pytest.approx((ci.low, ci.high), rel=1e-9)
        assert t.loc[e, "p"] == pytest.approx(res.pvalue, rel=1e-9)
    np.testing.assert_allclose(t["p_holm"], _holm(t["p"].to_numpy()), rtol=1e-12)


def test_pairs_are_matched_by_game_id_when_a_chunk_is_missing(runs, tmp_path):
    import shutil

    root = tmp_path / "gap"
    shutil.copytree(runs[0].root, root)
    data = open_study(root)
    _, cells = I.cell_map(data.manifest)
    for p in (root / "data" / f"cell={cells[('lost_opponent', 1)]}").glob("chunk-000000.*"):
        p.unlink()                                    # that cell lacks its first chunk
    kept = data.games(cell=cells[("lost_opponent", 1)], columns=["winner"])["game_id"]
    assert 0 < len(kept) < N
    d = _paired_differences(open_study(runs[0].root))["lost_opponent"]
    want = d.loc[kept.to_numpy()]
    t = I.worth_table(data).set_index("element")
    assert t.loc["lost_opponent", "games"] == len(kept)
    assert t.loc["lost_opponent", "worth"] == pytest.approx(want.mean(), abs=1e-15)
    assert t.loc["north_sea", "games"] == N


def test_unpaired_interval_from_the_counts_and_the_same_worth(runs):
    paired, counts = (open_study(r.root) for r in runs)
    t = I.worth_table(counts).set_index("element")
    tp = I.worth_table(paired).set_index("element")
    assert set(t["interval"]) == {I.UNPAIRED} and t["unused"].isna().all()
    base, cells = I.cell_map(counts.manifest)
    z = stats.norm.ppf(0.975)
    wb = cell_tally(counts.root, base)[0]["wins"]
    pb = wb / N
    cov = (np.diag(pb) - np.outer(pb, pb)) / N               # one multinomial: the baseline
    for e in ELEMENTS:
        p = np.array([cell_tally(counts.root, cells[(e, s)])[0]["wins"][s] / N
                      for s in range(PLAYERS)])
        worth = (pb - p).mean()
        se = np.sqrt(cov.sum() + (p * (1 - p) / N).sum()) / PLAYERS
        # same games, so the same point estimate as the paired one
        assert t.loc[e, "worth"] == pytest.approx(worth, abs=1e-15) == tp.loc[e, "worth"]
        if se == 0:
            assert t.loc[e, "lo"] == t.loc[e, "hi"] == worth == 0
            continue
        assert (t.loc[e, "lo"], t.loc[e, "hi"]) == pytest.approx(
            (worth - z * se, worth + z * se), rel=1e-9)
        assert t.loc[e, "p"] == pytest.approx(2 * stats.norm.sf(abs(worth) / se), rel=1e-9)
    # common seeds: in games a restriction leaves unchanged the seats' wins are exclusive
    # across the cells (negatively correlated terms), so the paired interval is narrower
    assert tp.loc["lost_opponent", "se"] < t.loc["lost_opponent", "se"]


def test_report_hooks(runs, tmp_path):
    data = open_study(runs[0].root)
    tables = I.report_tables(data)
    assert list(tables) == ["importance", "importance by seat"]
    by_seat = tables["importance by seat"]
    assert len(by_seat) == len(ELEMENTS) * PLAYERS
    lo = by_seat[by_seat.element == "lost_opponent"]
    assert lo["difference"].mean() == pytest.approx(tables["importance"].iloc[0]["worth"])
    found = I.report_findings(data)
    assert found[0].startswith("Denying a seat lost_opponent costs it ")
    top = tables["importance"].iloc[0]
    assert f"{100 * top['worth']:.2f} points of win rate [{100 * top['lo']:.2f}, " in found[0]
    assert "Never used by the policy" in found[-1] and "baltic_sea" in found[-1]
    paths = I.report_figures(data, tmp_path)
    assert [p.name for p in paths] == ["importance.png"] and paths[0].stat().st_size > 1000


def test_no_distinguishable_element_is_said_so(tmp_path):
    res = make(tmp_path, "none", elements=["baltic_sea", "lost_own"], n=1024)
    found = I.report_findings(open_study(res.root))
    assert found[0].startswith("No element is distinguishable from 0")


def test_a_kind_importance_study_file_makes_the_same_study(tmp_path):
    path = tmp_path / "imp.toml"
    path.write_text('kind = "importance"\ngame = "raidboard"\nplayers = 3\ngames = 6000\n'
                    'seed = 5\nchunk_games = 4096\n[report]\n'
                    'elements = ["baltic_sea", "lost_own", "lost_opponent", "north_sea"]\n')
    from_file = expand(load_study(path))
    built = I.build_study("raidboard", games=N, seed=SEED, players=PLAYERS, elements=ELEMENTS,
                          chunk_games=4096, path=path)
    size = chunk_size(__import__("vikingsim.games", fromlist=["get"]).get("raidboard"), 4096)
    hashes = [study_hash(s, plan_cells(s), size, "x") for s in (from_file, built)]
    assert hashes[0] == hashes[1] and from_file.kind == "importance"
    bad = tmp_path / "bad.toml"
    bad.write_text(path.read_text().replace("[report]", "[grid]\nstart_gold = [10, 20]\n"
                                            "[report]"))
    assert main(["experiment", str(bad), "--out", str(tmp_path / "o")]) == 2
    # the text a run keeps (its cases written out) reads back as the same study
    kept = tmp_path / "kept.toml"
    kept.write_text(built.text)
    again = expand(load_study(kept))
    assert again.cases == built.cases and again.kind == "importance"
    other = tmp_path / "other.toml"
    other.write_text(built.text.replace('"policy.2.forbid"', '"policy.1.forbid"', 1))
    with pytest.raises(InputError, match="drop \\[grid\\] and \\[\\[cases\\]\\]"):
        expand(load_study(other))


def one_line(capsys, args):
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


def test_bad_input_is_one_line_exit_2(tmp_path, capsys, monkeypatch):
    out = ["--out", str(tmp_path / "o"), "--quiet"]
    line = one_line(capsys, ["importance", "raidboard", "--elements", "north_sea,nope", *out])
    assert "unknown element 'nope' for raidboard; elements: norwegian_sea" in line
    assert "is seated" in one_line(capsys, ["importance", "raidboard", "--side", "vikings",
                                            *out])       # battle878: test_importance_878.py
    assert "-n must be an integer in [1," in one_line(capsys, ["importance", "raidboard",
                                                               "-n", "0", *out])
    assert "already forbids" in one_line(capsys, ["importance", "raidboard", "--policy",
                                                  "greedy(forbid=north_sea)", *out])
    assert "twice" in one_line(capsys, ["importance", "raidboard", "--elements",
                                        "north_sea,north_sea", *out])
    import vikingsim.games.raidboard as rb

    monkeypatch.setattr(rb, "GAME", replace(rb.GAME, elements=None))
    assert "has no elements" in one_line(capsys, ["importance", "raidboard", *out])
    assert not (tmp_path / "o").exists()


def test_json_and_text_output(tmp_path, capsys):
    args = ["importance", "raidboard", "--players", "2", "-n", "2048", "--elements",
            "lost_opponent,baltic_sea", "--out", str(tmp_path / "o"), "--quiet"]
    assert main([*args, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["cells"] == 5 and [r["element"] for r in doc["importance"]][1] == "baltic_sea"
    assert main([*args, "--resume"]) == 0
    text = capsys.readouterr().out
    assert "lost_opponent" in text and "0 chunks played, 5 resumed" in text


def test_sigterm_then_resume_equals_an_uninterrupted_run(tmp_path):
    args = ["importance", "raidboard", "--players", "2", "-n", "40960", "--chunk-games",
            "4096", "--elements", "lost_opponent,north_sea", "--workers", "1", "--quiet"]
    out = tmp_path / "killed"
    sigterm_after([*args, "--out", out], out, at_least=3)
    done = len(list(out.glob("data/*/*.tally.json")))
    assert 3 <= done < 50                                  # 5 cells x 10 chunks
    assert main([*args, "--out", str(out), "--resume"]) == 0
    assert main([*args, "--out", str(tmp_path / "whole")]) == 0

    class R:                                               # what same_dataset reads
        def __init__(self, root):
            self.root, self.manifest = root, open_study(root).manifest

    same_dataset(R(tmp_path / "whole"), R(out))
    pd.testing.assert_frame_equal(I.worth_table(open_study(out)),
                                  I.worth_table(open_study(tmp_path / "whole")))
