"""Restricted play for 878 (`vikingsim importance battle878`, issue 20 §2; 878 §5.3): known
answers.

- Greedy never retreats and a Viking policy never has the English choice Convert (878 §5.1):
  denying them changes nothing, the cells are the baseline's battles bit for bit, worth 0.
- Greedy Vikings against default English (who never roll Prayer and never spend the
  Conversions the Runes dice hand them, 878 §5): Runes only ever add Viking choices that
  help (Omens re-rolls non-Hits, Battle Rage swaps a Norseman for a Berserker), so denying
  them lowers the Vikings' win rate: worth > 0. Denied Runes, the battle is the default one,
  whose Viking win chance the exact solver gives (``exact.odds``): the denied cell's rate
  agrees with it within 4 standard errors (8,000 battles: SE about 0.44 points, so the
  check would catch a bias of 2 points).
- The paired interval equals scipy's t interval of D_g built here from the stored outcomes
  under each reading of a side's win; the unpaired one is the normal interval of the two
  cells' counts.
"""
import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from vikingsim.cli import main
from vikingsim.core.errors import InputError
from vikingsim.core.testing import within_k_se
from vikingsim.games.battle878 import sides as S
from vikingsim.games.battle878.exact import odds
from vikingsim.studies import importance as I
from vikingsim.studies import importance_sides as IS
from vikingsim.studies.dataset import cell_tally, open_study
from vikingsim.studies.kinds import expand
from vikingsim.studies.plan import chunk_size, plan_cells, study_hash
from vikingsim.studies.run import run_study
from vikingsim.studies.spec import load_study

N, SEED = 8000, 11
RUNES = {"runes_prayer": True}
ELEMENTS = ["runes", "ragnarok", "convert", "retreat"]


def make(tmp, name, *, side="vikings", side_win=None, policies=("greedy", "default"),
         elements=ELEMENTS, rows=True, n=N):
    study = I.build_study("battle878", games=n, seed=SEED, policies=list(policies),
                          options=RUNES, elements=elements, rows=rows, chunk_games=4096,
                          name=name, path=tmp / f"{name}.toml", side=side, side_win=side_win)
    return run_study(study, tmp / name, workers=1)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("importance878")
    return {"paired": make(tmp, "paired", side_win="strict"),
            "counts": make(tmp, "counts", side_win="strict", rows=False),
            # smart against smart: retreats never, God's Peace often (both readings differ)
            "holds": make(tmp, "holds", side="both", policies=("smart",), elements=None),
            "strict": make(tmp, "strict", side="both", policies=("smart",), elements=None,
                           side_win="strict")}


def test_cells_are_the_baseline_and_each_element_at_the_named_side(runs):
    m = runs["paired"].manifest
    assert m["kind"] == "importance" and m["study_content"]["common_seeds"] is True
    assert m["report"]["side"] == "vikings" and m["report"]["side_win"] == "strict"
    base, cells = I.cell_map(m)
    assert base == 0 and sorted(cells) == sorted((e, 0) for e in ELEMENTS)
    assert m["cells"][cells[("runes", 0)]]["policies"] == ["greedy(forbid=runes)", "default"]
    assert m["cells"][base]["policies"] == ["greedy", "default"]


def test_both_sides_deny_each_element_at_the_sides_whose_rules_give_it(runs):
    m = runs["holds"].manifest
    _, cells = I.cell_map(m)
    offered = m["report"]["elements"]
    assert m["report"]["side_win"] == S.DEFAULT_SIDE_WIN == "holds"
    assert "gods_peace" in offered and "battle_rage" in offered
    want = {("retreat", 0), ("retreat", 1)} | {(e, 0) for e in ("runes", "omens_of_victory",
                                                                "battle_rage", "ragnarok")} | \
        {(e, 1) for e in ("prayer", "faith_in_victory", "defend_the_faith", "convert",
                          "gods_peace")}
    assert set(cells) == want and len(offered) == 10


def test_what_the_policy_never_does_has_worth_0_and_its_cells_equal_the_baseline(runs):
    data = open_study(runs["paired"].root)
    base, cells = I.cell_map(data.manifest)
    rows = data.games()
    want = rows[rows.cell == base].drop(columns="cell").reset_index(drop=True)
    for e in ("convert", "retreat"):
        got = rows[rows.cell == cells[(e, 0)]].drop(columns="cell").reset_index(drop=True)
        pd.testing.assert_frame_equal(got, want)
    t = I.worth_table(data).set_index("element")
    for e in ("convert", "retreat"):
        assert t.loc[e, "worth"] == 0 and t.loc[e, "lo"] <= 0 <= t.loc[e, "hi"]
        assert t.loc[e, "unused"] and not t.loc[e, "nonzero"] and t.loc[e, "p_holm"] == 1
    assert not t.loc["ragnarok", "unused"]                  # greedy buys Ragnarök


def test_runes_help_greedy_vikings_and_denied_they_fight_the_exact_default_battle(runs):
    data = open_study(runs["paired"].root)
    t = I.worth_table(data).set_index("element")
    r = t.loc["runes"]
    assert t.index[0] == "runes" and r["lo"] > 0 and r["nonzero"]
    exact = odds(RUNES)["p_vikings_win"]
    p = r["denied_win_rate"]
    assert within_k_se(p, exact, (exact * (1 - exact) / N) ** 0.5)
    assert r["baseline_win_rate"] > exact


def _d(data, reading):
    """D_g by hand from the rows: 1[side wins the baseline battle] - 1[it wins the cell's]."""
    rows = data.games(columns=["outcome"])
    o = rows.pivot(index="game_id", columns="cell", values="outcome").astype(str)
    base, cells = I.cell_map(data.manifest)
    names = {0: "vikings", 1: "english"}
    out = {}
    for (e, seat), c in cells.items():
        won = S.SIDE_WIN[reading][names[seat]]
        out[(e, names[seat])] = o[base].isin(won).astype(float) - o[c].isin(won)
    return out


@pytest.mark.parametrize("which", ["paired", "holds", "strict"])
def test_paired_interval_is_scipys_t_interval_of_the_stored_outcomes(runs, which):
    data = open_study(runs[which].root)
    reading = data.manifest["report"]["side_win"]
    t = I.worth_table(data).set_index(["element", "side"])
    assert set(t["interval"]) == {I.PAIRED} and (t["games"] == N).all()
    for key, d in _d(data, reading).items():
        assert t.loc[key, "worth"] == pytest.approx(d.mean(), abs=1e-15)
        if d.std() == 0:
            assert t.loc[key, "lo"] == t.loc[key, "hi"] == t.loc[key, "worth"]
            continue
        res = stats.ttest_1samp(d.to_numpy(), 0.0)
        ci = res.confidence_interval(0.95)
        assert (t.loc[key, "lo"], t.loc[key, "hi"]) == pytest.approx((ci.low, ci.high),
                                                                     rel=1e-9)
        assert t.loc[key, "p"] == pytest.approx(res.pvalue, rel=1e-9)


def test_the_readings_differ_where_gods_peace_ends_battles(runs):
    holds, strict = (open_study(runs[k].root) for k in ("holds", "strict"))
    read = IS.reading_table(holds).set_index("outcome")
    assert read.loc["gods_peace", "games"] > 0                # smart English buy it
    assert read.loc["gods_peace", "counts_as_win_of"] == "english"
    assert read.loc["english_retreat", "counts_as_win_of"] == "vikings"
    assert read.loc["both_eliminated", "counts_as_win_of"] == "nobody"
    assert read.loc["truncated", "counts_as_win_of"] == "nobody"
    assert IS.reading_table(strict).set_index("outcome").loc["gods_peace",
                                                             "counts_as_win_of"] == "nobody"
    th = I.worth_table(holds).set_index(["element", "side"])
    ts = I.worth_table(strict).set_index(["element", "side"])
    # same battles (common seeds, same cells): the English baseline rate differs by exactly
    # the God's Peace share
    gp = read.loc["gods_peace", "share"]
    assert th.loc[("gods_peace", "english"), "baseline_win_rate"] == pytest.approx(
        ts.loc[("gods_peace", "english"), "baseline_win_rate"] + gp, abs=1e-15)
    # denied God's Peace, the English keep the shire by it no longer: worth > 0 under holds
    assert th.loc[("gods_peace", "english"), "lo"] > 0


def test_unpaired_interval_from_the_counts_and_the_same_worth(runs):
    counts, paired = (open_study(runs[k].root) for k in ("counts", "paired"))
    t = I.worth_table(counts).set_index("element")
    tp = I.worth_table(paired).set_index("element")
    assert set(t["interval"]) == {I.UNPAIRED} and t["unused"].isna().all()
    base, cells = I.cell_map(counts.manifest)
    z = stats.norm.ppf(0.975)
    pb = cell_tally(counts.root, base)[0]["outcome"][0] / N        # vikings_win (strict)
    for e in ELEMENTS:
        pc = cell_tally(counts.root, cells[(e, 0)])[0]["outcome"][0] / N
        worth, se = pb - pc, np.sqrt(pb * (1 - pb) / N + pc * (1 - pc) / N)
        assert t.loc[e, "worth"] == pytest.approx(worth, abs=1e-15)
        assert t.loc[e, "worth"] == pytest.approx(tp.loc[e, "worth"], abs=1e-15)
        assert (t.loc[e, "lo"], t.loc[e, "hi"]) == pytest.approx(
            (worth - z * se, worth + z * se), rel=1e-9)
        assert t.loc[e, "p"] == pytest.approx(2 * stats.norm.sf(abs(worth) / se), rel=1e-9)


def test_report_hooks_and_page(runs, tmp_path):
    data = open_study(runs["paired"].root)
    tables = I.report_tables(data)
    assert list(tables) == ["importance", "side-win reading"]
    found = I.report_findings(data)
    top = tables["importance"].iloc[0]
    assert found[0].startswith("Denying the Vikings runes costs them ")
    assert f"{100 * top['worth']:.2f} points of win rate [{100 * top['lo']:.2f}, " in found[0]
    assert "'strict'" in found[0]
    assert "Never used by the policy" in found[-1] and "convert (vikings)" in found[-1]
    paths = I.report_figures(data, tmp_path)
    assert [p.name for p in paths] == ["importance.png"] and paths[0].stat().st_size > 1000
    assert main(["report", str(runs["paired"].root), "--out", str(tmp_path / "r.html"),
                 "--quiet"]) == 0
    assert "Denying the Vikings runes" in (tmp_path / "r.html").read_text()


def test_a_kind_importance_study_file_makes_the_same_study(tmp_path):
    path = tmp_path / "imp.toml"
    path.write_text('kind = "importance"\ngame = "battle878"\npolicies = ["greedy", "default"]'
                    '\ngames = 8000\nseed = 11\nchunk_games = 4096\n[options]\n'
                    'runes_prayer = true\n[report]\nside = "vikings"\nside_win = "strict"\n'
                    'elements = ["runes", "ragnarok", "convert", "retreat"]\n')
    from_file = expand(load_study(path))
    built = I.build_study("battle878", games=N, seed=SEED, policies=["greedy", "default"],
                          options=RUNES, elements=ELEMENTS, chunk_games=4096, path=path,
                          side="vikings", side_win="strict")
    size = chunk_size(__import__("vikingsim.games", fromlist=["get"]).get("battle878"), 4096)
    hashes = [study_hash(s, plan_cells(s), size, "x") for s in (from_file, built)]
    assert hashes[0] == hashes[1] and from_file.kind == "importance"
    kept = tmp_path / "kept.toml"                 # the text a run keeps reads back the same
    kept.write_text(built.text)
    again = expand(load_study(kept))
    assert again.cases == built.cases and again.report == built.report


def test_the_shipped_experiment_file_expands():
    from tests.test_studies_cli import ROOT

    study = expand(load_study(ROOT / "experiments" / "battle878_importance.toml"))
    base, cells = study.cases[0], study.cases[1:]
    assert base == I.BASELINE and study.report["side"] == "both" and len(cells) == 11


def one_line(capsys, args):
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


def test_bad_input_is_one_line_exit_2(tmp_path, capsys):
    out = ["--out", str(tmp_path / "o"), "--quiet"]
    rp = ["--set", "runes_prayer=true"]
    line = one_line(capsys, ["importance", "battle878", "--elements", "runes", *out])
    assert "unknown element 'runes' for battle878; elements: retreat" in line
    line = one_line(capsys, ["importance", "battle878", *rp, "--elements", "runes,nope", *out])
    assert "unknown element 'nope' for battle878; elements: retreat, runes" in line
    assert "is seated: restricted play rotates every seat; side (--side)" in one_line(
        capsys, ["importance", "raidboard", "--side", "vikings", *out])
    assert "side_win (--side-win) is for a game with sides" in one_line(
        capsys, ["importance", "raidboard", "--side-win", "holds", *out])
    assert "not seated: players (--players) does not apply; its sides are vikings (seat 0)" \
        in one_line(capsys, ["importance", "battle878", "--players", "2", *out])
    assert "unknown side 'danes' for battle878; sides: vikings, english, both" in one_line(
        capsys, ["importance", "battle878", "--side", "danes", *out])
    assert "unknown side_win reading 'won' for battle878; readings: holds, strict" in \
        one_line(capsys, ["importance", "battle878", "--side-win", "won", *out])
    assert "already forbids" in one_line(capsys, ["importance", "battle878", *rp, "--policy",
                                                  "greedy(forbid=runes)", "default", *out])
    assert not (tmp_path / "o").exists()
    with pytest.raises(InputError, match="neither seated nor has sides"):
        IS.sides_module("raidboard")


def test_json_text_and_resume(tmp_path, capsys):
    args = ["importance", "battle878", "--set", "runes_prayer=true", "--policy", "greedy",
            "default", "--side", "vikings", "-n", "2048", "--elements", "runes,convert",
            "--out", str(tmp_path / "o"), "--quiet"]
    assert main([*args, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["cells"] == 3 and [r["element"] for r in doc["importance"]] == ["runes",
                                                                               "convert"]
    assert {r["side"] for r in doc["importance"]} == {"vikings"}
    assert main([*args, "--resume"]) == 0
    text = capsys.readouterr().out
    assert "runes" in text and "vikings" in text and "(win = 'holds')" in text
    assert "0 chunks played, 3 resumed" in text
