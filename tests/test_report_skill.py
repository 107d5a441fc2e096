"""The report's answers by skill level (``[report] skill``, ``studies/report/skill.py``,
docs/reports.md "Answers by skill level").

Every study is a real run by the study runner (``conftest.study_run``). Expected numbers are
worked out here from the per-game rows read straight from the Parquet files
(``test_report.rows_of``), with the textbook formulas: Pearson's chi-square of homogeneity by
hand (expected = row total x column total / N), Holm by hand, Wilson by hand."""
from __future__ import annotations

import html
import os
import re
import shutil

import numpy as np
import pytest
from scipy.stats import chi2 as chi2_dist

from tests.test_report import (CHROMIUM, _chromium, holm, images, read, rows_of, wilson,
                               wins_of)
from vikingsim.core.errors import InputError
from vikingsim.studies import report
from vikingsim.studies.report import skill as S
from vikingsim.studies.spec import study_from_dict

ROOT = os.path.join(os.path.dirname(__file__), "..")

#: The same policy under two level names ("greedy()" resolves to greedy), 3 players, common
#: seeds: both levels play the very same games, so every answer is identical at both levels.
SAME = """name = "same"
game = "raidboard"
players = 3
games = 2000
seed = 21
common_seeds = true
[grid]
policy = ["greedy", "greedy()"]
[report]
skill = "policy"
[report.labels]
"greedy()" = "greedy again"
"""
#: A focus seat: seat 0 plays random, greedy or lookahead among two greedy seats, with 2 and 3
#: players, common seeds, 20,000 games per cell. With 3 players random in seat 0 wins about
#: 36.6% and greedy 39.2% (simulate, seed 5: 20,000 games each): 2.6 points, about five
#: standard errors of a difference at this n (0.49 points), so seat 0's answer changes.
FOCUS = """name = "focus"
game = "raidboard"
games = 20000
seed = 22
common_seeds = true
policies = "greedy"
[grid]
players = [2, 3]
"policy.0" = ["random", "greedy", "lookahead"]
[report]
skill = "policy.0"
"""


def pearson(wins, games) -> tuple[float, float]:
    """Pearson's chi-square of homogeneity of a levels x (won, not won) table, by hand."""
    obs = np.array([[w, n - w] for w, n in zip(wins, games)], float)
    exp = obs.sum(axis=1, keepdims=True) * obs.sum(axis=0, keepdims=True) / obs.sum()
    stat = float(((obs - exp) ** 2 / exp).sum())
    return stat, float(chi2_dist.sf(stat, len(wins) - 1))


def answers_by_hand(folder, manifest_cells, knob):
    """{(situation key, seat): [(level, wins, games), ...]} from the Parquet rows."""
    rows = rows_of(folder)
    out = {}
    for c in manifest_cells:
        k = int(c["players"])
        other = tuple((kk, v) for kk, v in c["grid"].items() if kk != knob)
        wins = wins_of(rows, c["cell"], k)
        n = int((rows["cell"] == c["cell"]).sum())
        for seat in range(k):
            out.setdefault((other, seat), []).append((c["grid"][knob], int(wins[seat]), n))
    return out


def _tables(folder):
    study = report.load_study(folder)
    counts, _ = report.count_games(study)
    tables = report.build_tables(study, counts)
    sf = S.skill_frame(study, tables["contenders"])
    return study, sf, S.skill_tests(sf, S.paired_wins(study, sf))


def test_the_same_policy_under_two_names_changes_nothing(study_run):
    folder = study_run(SAME)
    study, sf, tests = _tables(folder)
    by_hand = answers_by_hand(folder, study.cells, "policy")
    assert len(tests) == 3 and set(sf["level_words"]) == {"greedy", "greedy again"}
    for t, ((_, seat), levels) in zip(tests.itertuples(), by_hand.items()):
        (_, w0, n0), (_, w1, n1) = levels
        assert (w0, n0) == (w1, n1) and 0 < w0 < n0          # identical games, some won
        assert t.who == f"seat {seat}" and t.stat == 0.0 and t.p == 1.0 and t.p_holm == 1.0
        assert t.test == S.COCHRAN
        assert not t.changes and t.d == 0.0 and t.d_lo < 0 < t.d_hi
    _, words = report.write_report(folder, folder.parent / "same.html")
    said = [w for w in words if "no change with skill beyond noise" in w]
    assert len(said) == 3 and all("greedy again" in w for w in said)
    assert any(w.startswith("By skill level (greedy, greedy again): no answer changes") for w
               in words)


def cochran_by_hand(won: np.ndarray) -> tuple[float, float]:
    """Cochran's Q of a games x levels 0/1 table: (k-1)(k sum C_j^2 - N^2) / (k N - sum R_i^2)
    with column totals C_j, row totals R_i and N wins in all."""
    won = won.astype(float)
    k, c, r = won.shape[1], won.sum(axis=0), won.sum(axis=1)
    big_n = won.sum()
    q = (k - 1) * (k * (c ** 2).sum() - big_n ** 2) / (k * big_n - (r ** 2).sum())
    return float(q), float(chi2_dist.sf(q, k - 1))


#: How FOCUS is stored: as written (common seeds and rows: the paired test), tallies only
#: (rows = false: the same games, the chi-square) and on independent seeds (the chi-square).
FOCUS_WAYS = {"paired": (FOCUS, S.COCHRAN),
              "tallies": (FOCUS.replace("common_seeds = true", "common_seeds = true\nrows = false"),
                          S.CHI2),
              "independent": (FOCUS.replace("common_seeds = true", "common_seeds = false"),
                              S.CHI2)}


@pytest.mark.parametrize("way", list(FOCUS_WAYS))
def test_a_focus_seat_whose_answer_changes_with_skill(study_run, way):
    text, test = FOCUS_WAYS[way]
    folder = study_run(text)
    played = study_run(FOCUS) if way == "tallies" else folder      # whose rows hold its games
    study, sf, tests = _tables(folder)
    by_hand = answers_by_hand(played, study.cells, "policy.0")
    rows = rows_of(played)
    assert len(tests) == 5 and set(tests["test"]) == {test}      # 2 + 3 seats, 3 levels each
    ps = []
    for t, (key, levels) in zip(tests.itertuples(), by_hand.items()):
        assert [lv for lv, _, _ in levels] == ["random", "greedy", "lookahead"]
        if test == S.COCHRAN:
            cells = [c["cell"] for c in study.cells if tuple((k, v) for k, v in c["grid"].items()
                                                            if k != "policy.0") == key[0]]
            won = np.column_stack([rows[rows["cell"] == c].sort_values("game_id")["winner"]
                                   .to_numpy() == key[1] for c in cells])
            stat, p = cochran_by_hand(won)
        else:
            stat, p = pearson([w for _, w, _ in levels], [n for _, _, n in levels])
        assert t.stat == pytest.approx(stat, rel=1e-9) and t.p == pytest.approx(p, rel=1e-9)
        assert t.dof == 2 and t.who == f"seat {key[1]}"
        (_, wa, na), (_, wb, nb) = levels[0], levels[-1]
        assert t.d == pytest.approx(wb / nb - wa / na)
        ps.append(p)
    adj, _ = holm(ps)
    reject = adj < 0.05
    assert np.allclose(tests["p_holm"], adj) and list(tests["changes"]) == list(reject)
    seat0 = tests[(tests["situation"] == "3 players") & (tests["who"] == "seat 0")].iloc[0]
    assert seat0.changes and seat0.d > 0                     # lookahead beats random in seat 0
    cells = {c["cell"]: c for c in study.cells}
    for r in sf.itertuples():                                # the rates and their intervals
        grid = cells[r.cell]["grid"]
        key = (tuple((k, v) for k, v in grid.items() if k != "policy.0"), int(r.who.split()[1]))
        w = {lv: (k, n) for lv, k, n in by_hand[key]}[r.level]
        assert (r.wins, r.games) == w and (r.lo, r.hi) == pytest.approx(wilson(*w))
    _, words = report.write_report(folder, folder.parent / "focus.html")
    line = next(w for w in words if w.startswith("3 players, seat 0 wins"))
    assert f": changes with skill ({test} over the 3 levels" in line
    assert "Holm-adjusted over 5 answers" in line and "lookahead minus random +" in line
    short = next(w for w in words if w.startswith("By skill level (random, greedy, lookahead)"))
    assert f"{int(reject.sum())} of 5 answers change" in short


@pytest.fixture(scope="module")
def focus_page(study_run, tmp_path_factory):
    """The FOCUS study's page, rendered once for the two tests that only read it."""
    out = tmp_path_factory.mktemp("focus") / "page.html"
    return report.write_report(study_run(FOCUS), out)[0]


def test_the_page_has_the_section_with_a_column_per_level(study_run, focus_page, tmp_path):
    page = read(focus_page)
    sec = page[page.index("<h2>By skill</h2>"):]
    sec = sec[:sec.index("</section>")]
    head = re.findall(r"<th>([^<]*)</th>", sec)
    assert head[:5] == ["situation", "seat", "random", "greedy", "lookahead"]
    assert "lookahead − random (points)" in head and "changes with skill" in head
    assert sec.count(f"<td>{html.escape(S.COCHRAN)}</td>") == 5
    assert sec.count("<tr>") == 1 + 5 and len(images(sec)) == 1
    assert "policy.0</code>: seat 0 plays the level" in sec
    # a study without a skill axis has no such section
    plain = study_run(SAME.replace('[report]\nskill = "policy"\n', "[report]\n"))
    p2, _ = report.write_report(plain, tmp_path / "plain.html")
    assert "By skill" not in read(p2)


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (.ci/run installs it)")
def test_the_page_renders_with_the_skill_figure_in_chromium(focus_page, tmp_path):
    path = focus_page
    n = len(images(read(path)))
    p = _chromium([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                   "--disable-background-networking", "--disable-extensions", "--disable-sync",
                   "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}",
                   "--window-size=1200,900", "--virtual-time-budget=5000", "--dump-dom",
                   path.resolve().as_uri()])
    assert p.returncode == 0, p.stderr[-2000:]
    dom = p.stdout
    assert f'data-images="{n}/{n}"' in dom and "By skill" in dom
    skill_img = re.search(r'<img[^>]*alt="Win rate by skill level[^>]*>', dom).group(0)
    font = float(re.search(r'data-min-font-px="([\d.]+)"', skill_img).group(1))
    scale = float(re.search(r'data-scale="([\d.]+)"', skill_img).group(1))
    assert 'data-rendered="1"' in skill_img and font * scale >= 11


#: A second knob (the board) at three levels, the first two the same policy: the board's
#: paired effect on each seat is identical at those two levels.
EFFECT = """name = "effect"
game = "raidboard"
players = 2
games = 4000
seed = 23
common_seeds = true
[grid]
policy = ["greedy", "greedy()", "random"]
variant = ["circular", "ends-of-earth"]
[report]
skill = "policy"
"""


def test_a_paired_effect_is_compared_across_the_levels(study_run, tmp_path):
    """The board's effect (ends-of-earth minus circular) on each seat at each level, and
    Cochran's Q of equal effects, by hand: weights 1 / var with the Agresti-Caffo rates
    (w + 1) / (n + 2), Q = sum w (d - weighted mean)^2 on L - 1 degrees of freedom."""
    folder = study_run(EFFECT)
    study = report.load_study(folder)
    counts, _ = report.count_games(study)
    cf = report.build_tables(study, counts)["contenders"]
    ef = S.effect_frame(study, cf)
    et = S.effect_tests(ef)
    rows = rows_of(folder)
    cell = {(c["grid"]["policy"], c["grid"]["variant"]): c["cell"] for c in study.cells}
    n = 4000
    ps = []
    for seat, t in zip((0, 1), et.itertuples()):
        d, var = [], []
        for level in ("greedy", "greedy()", "random"):
            wa = wins_of(rows, cell[(level, "circular")], 2)[seat]
            wb = wins_of(rows, cell[(level, "ends-of-earth")], 2)[seat]
            d.append(wb / n - wa / n)
            pa, pb = (wa + 1) / (n + 2), (wb + 1) / (n + 2)
            var.append(pa * (1 - pa) / n + pb * (1 - pb) / n)
        w = 1 / np.array(var)
        mean = (w * d).sum() / w.sum()
        q = float((w * (np.array(d) - mean) ** 2).sum())
        assert d[0] == d[1]                                  # the same games
        assert t.who == f"seat {seat}" and t.q == pytest.approx(q, rel=1e-9)
        assert t.p == pytest.approx(chi2_dist.sf(q, 2), rel=1e-9) and t.levels == 3
        g = ef[ef["who"] == f"seat {seat}"].sort_values("level_index")
        assert np.allclose(g["d"], d) and list(g["level_words"]) == ["greedy", "greedy()",
                                                                      "random"]
        ps.append(t.p)
    adj, _ = holm(ps)
    assert np.allclose(et["p_holm"], adj) and list(et["changes"]) == list(adj < 0.05)
    path, words = report.write_report(folder, tmp_path / "effect.html")
    assert "<h3>Paired effects by skill level</h3>" in read(path)
    said = [x for x in words if x.startswith("Variant ends-of-earth vs variant circular, seat")]
    assert len(said) == 2 and all("Cochran's Q over the 3 levels" in x for x in said)


def test_the_homogeneity_test_of_rates_without_a_win_or_a_loss():
    assert S.homogeneity([0, 0, 0], [10, 20, 30]) == (0.0, 1.0, 2)
    assert S.homogeneity([10, 20], [10, 20]) == (0.0, 1.0, 1)
    stat, p, dof = S.homogeneity([5, 15], [20, 20])
    assert (stat, p) == pytest.approx(pearson([5, 15], [20, 20])) and dof == 1


def test_cochrans_q_of_games_without_a_discordant_level():
    same = np.array([[1, 1, 1], [0, 0, 0], [1, 1, 1]], bool)
    assert S.cochran(same) == (0.0, 1.0, 2)
    won = np.random.default_rng(4).random((200, 3)) < [0.3, 0.4, 0.5]
    stat, p, dof = S.cochran(won)
    assert (stat, p) == pytest.approx(cochran_by_hand(won), rel=1e-12) and dof == 2


BASE = {"name": "x", "game": "raidboard", "games": 10, "seed": 1}


@pytest.mark.parametrize("grid, cases, skill, words", [
    ({"players": [2, 3]}, [], "players", "must name a policy knob of [grid]"),
    ({"policy": ["greedy", "random"]}, [], "policy.0", "the grid's policy knobs: policy"),
    ({"policy": ["greedy"]}, [], "policy", "one level"),
    ({"policy": ["greedy", "random"]}, [{"policy": "lookahead"}], "policy", "[[cases]]"),
    ({"policy": ["greedy", "random"]}, [], 3, "must name a policy knob"),
])
def test_a_bad_skill_axis_is_one_line(grid, cases, skill, words):
    data = {**BASE, "grid": grid, "report": {"skill": skill}, **({"cases": cases} if cases
                                                                else {})}
    with pytest.raises(InputError, match=re.escape(words)) as e:
        study_from_dict(data, "x.toml")
    assert "\n" not in str(e.value)


def test_a_bad_skill_axis_in_a_study_file_exits_2(cli, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(SAME.replace('skill = "policy"', 'skill = "players"'))
    p = cli("experiment", str(bad), "--out", str(tmp_path / "out"))
    assert p.returncode == 2 and "skill" in p.stderr and len(p.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


# ---- the shipped study file --------------------------------------------------------------------
def test_the_seats_by_skill_experiment_runs_resumes_and_reports(tmp_path):
    """experiments/raidboard_seats_by_skill.toml at 300 games per cell (6 cells): a chunk
    removed is the only one played again by --resume, and the report is the same."""
    from vikingsim.studies.run import run_study

    path = os.path.join(ROOT, "experiments", "raidboard_seats_by_skill.toml")
    out = tmp_path / "byskill"
    first = run_study(path, out, games=300, workers=1)
    assert first.chunks_run == 6
    page1, words1 = report.write_report(out, tmp_path / "a.html")
    for f in (out / "data" / "cell=4").glob("chunk-*"):
        f.unlink()
    again = run_study(path, out, games=300, workers=1, resume=True)
    assert again.chunks_run == 1
    page2, words2 = report.write_report(out, tmp_path / "b.html")
    assert words1 == words2
    shown = read(page2)
    assert "<h2>By skill</h2>" in shown
    for words in ("scripted (greedy)", "mid (ismcts 16)", "top (ismcts 128)"):
        assert f"<th>{words}</th>" in shown
    assert sum(w.startswith(("2 players, seat", "4 players, seat")) for w in words2) == 6
    shutil.rmtree(out)


def test_the_search_strength_study_rotates_each_player_over_every_seat(tmp_path):
    """experiments/raidboard_search_strength.toml (docs/benchmarks.md): each player alone
    among three lookahead seats, once in every seat, common seeds; at 40 games per cell it
    runs and the report pools each player's seat-games."""
    from vikingsim.studies.plan import plan_cells
    from vikingsim.studies.run import run_study
    from vikingsim.studies.spec import load_study

    path = os.path.join(ROOT, "experiments", "raidboard_search_strength.toml")
    study = load_study(path)
    assert study.common_seeds and study.players == 4
    seen = {}
    for cell in plan_cells(study):
        odd = [(s, p) for s, p in enumerate(cell.policies) if p != "lookahead"]
        assert len(odd) == 1, cell.policies
        seen.setdefault(odd[0][1], []).append(odd[0][0])
    assert len(seen) == 7 and all(seats == [0, 1, 2, 3] for seats in seen.values())
    out = tmp_path / "strength"
    run_study(path, out, games=40, workers=1)
    st = report.load_study(out)
    counts, _ = report.count_games(st)
    pf = report.build_tables(st, counts)["policies"].set_index("policy")
    assert set(pf.index) == {"lookahead", *seen} and (pf.loc[list(seen), "games"] == 160).all()


def test_rates_of_0_or_1_compare_without_warnings(monkeypatch):
    """A side that always or never wins in both cells (Wald variance 0): no RuntimeWarning
    reaches the user; equal rates are no finding (p read as 1), 0 against 1 is one."""
    import warnings

    import pandas as pd

    from vikingsim.studies import findings as F

    monkeypatch.setattr(F, "knob_pairs", lambda study, knob: [({"cell": 0}, {"cell": 1})])
    cf = pd.DataFrame({"cell": [0, 0, 1, 1], "who": ["seat 0", "seat 1"] * 2,
                       "wins": [0, 50, 0, 0], "games": [50, 50, 50, 50]})
    cf["rate"] = cf["wins"] / cf["games"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = F.comparisons(None, cf, "k").set_index("who")
        et = S.effect_tests(pd.DataFrame({
            "knob": "k", "effect": "e", "situation": "s", "who": "seat 0",
            "level_index": [0, 1], "d": [0.0, 0.0], "var": [0.0, 0.0]}))
    assert out.loc["seat 0", "p_holm"] == 1 and not out.loc["seat 0", "finding"]
    assert out.loc["seat 1", "d"] == -1 and out.loc["seat 1", "finding"]
    assert len(et) == 1
