"""Skill ladder (issue 21 §4): the generated study's cells, its table against independent
``simulate`` runs of the same seeds, its findings, bad input."""
import numpy as np
import pandas as pd
import pytest

from vikingsim.core.errors import InputError
from vikingsim.core.runner import simulate
from vikingsim.studies import ladder
from vikingsim.studies.dataset import open_study

TPL = "ismcts(budget={b})"
N_LADDER = 100                 # games per cell of the ladder run checked against simulate


def test_cells_put_the_doubled_budget_in_each_seat_in_turn():
    st = ladder.ladder_study("raidboard", TPL, start=3, steps=2, n=10, players=3, seed=1)
    assert st.kind == "ladder" and st.common_seeds and len(st.cases) == 6
    from vikingsim.studies.plan import plan_cells

    cells = plan_cells(st)
    for cell in cells:
        step, seat = divmod(cell.cell, 3)
        b = 3 << step
        want = ["ismcts(budget=%d)" % b] * 3
        want[seat] = "ismcts(budget=%d)" % (2 * b)
        assert list(cell.policies) == want, cell.label


def test_table_counts_the_games_simulate_plays(tmp_path):
    """Common seeds: a cell plays exactly simulate(seed=S)'s games, so each step's strong
    wins are the strong seat's wins in K plain runs (counted here from the winner column)."""
    res = ladder.run_ladder("raidboard", TPL, out=tmp_path / "lad", start=2, steps=2, n=N_LADDER,
                            players=2, seed=5)
    t = ladder.ladder_table(res.open())
    for step, b in enumerate((2, 4)):
        wins = 0
        for seat in range(2):
            pols = [f"ismcts(budget={b})"] * 2
            pols[seat] = f"ismcts(budget={2 * b})"
            r = simulate("raidboard", N_LADDER, seed=5, players=2, policies=pols)
            wins += int((r.out["winner"] == seat).sum())
        row = t.iloc[step]
        assert (row.weak, row.strong, row.games, row.strong_wins) == (b, 2 * b, 2 * N_LADDER, wins)
        assert row.excess == pytest.approx(wins / (2 * N_LADDER) - 0.5)
        assert row.lo < row.excess < row.hi and row.complete
    again = ladder.run_ladder("raidboard", TPL, out=tmp_path / "lad", start=2, steps=2,
                              n=N_LADDER, players=2, seed=5, resume=True)
    assert again.chunks_run == 0
    pd.testing.assert_frame_equal(ladder.ladder_table(again.open()), t)
    figs = ladder.report_figures(open_study(tmp_path / "lad"), tmp_path)
    assert figs[0].exists() and figs[0].stat().st_size > 1000


def _fake(monkeypatch, lows, highs):
    k = len(lows)
    t = pd.DataFrame({"step": range(k), "weak": [4 << i for i in range(k)],
                      "strong": [8 << i for i in range(k)], "games": [1000] * k,
                      "strong_wins": [500] * k, "strong_share": [0.5] * k,
                      "excess": [(lo + hi) / 2 for lo, hi in zip(lows, highs)], "lo": lows,
                      "hi": highs, "complete": [True] * k})
    monkeypatch.setattr(ladder, "ladder_table", lambda data: t)

    class Data:
        manifest = {"report": {"players": 2, "template": TPL}}
    return Data()


def test_findings_name_where_strength_stops_growing(monkeypatch):
    data = _fake(monkeypatch, [0.01, 0.02, -0.01, 0.03], [0.03, 0.05, 0.02, 0.06])
    last = ladder.report_findings(data)[-1]
    assert "over 2 step(s), 0 to 1 (budget 4 to 16)" in last
    assert "stops growing at step 2 (budget 16 to 32" in last
    data = _fake(monkeypatch, [-0.01, 0.01, 0.02, 0.01, -0.01], [0.01, 0.03, 0.05, 0.03, 0.01])
    last = ladder.report_findings(data)[-1]
    assert "over 3 step(s), 1 to 3 (budget 8 to 64)" in last and "step 4 (budget 64 to 128" \
        in last
    data = _fake(monkeypatch, [0.01, 0.02], [0.03, 0.05])
    assert "still grows at the top step" in ladder.report_findings(data)[-1]
    data = _fake(monkeypatch, [-0.05], [-0.01])
    found = ladder.report_findings(data)
    assert "weaker" in found[0] and "No step gave a measurable gain" in found[-1]


@pytest.mark.parametrize("args, words", [
    (["raidboard", "--policy", "ismcts(budget=8)"], "{b}"),
    (["raidboard", "--policy", TPL, "--steps", "0"], "--steps"),
    (["raidboard", "--policy", TPL, "--start", "0"], "--start"),
    (["battle878", "--policy", TPL], "seated"),
    (["raidboard", "--policy", "ismcts(budget={b}, depth=2)"], "depth"),
    (["raidboard", "--policy", TPL, "--players", "9"], "players"),
])
def test_bad_input_is_one_line(args, words, cli, tmp_path):
    p = cli("ladder", *args, "-n", "10", "--out", str(tmp_path / "x"))
    assert p.returncode == 2 and words in p.stderr, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()


def test_the_command_prints_the_table_and_findings(cli, tmp_path):
    p = cli("ladder", "raidboard", "--policy", "flatmc(rollouts={b})", "--start", "1",
            "--steps", "2", "-n", "50", "--players", "2", "--out", str(tmp_path / "l"), "--json")
    assert p.returncode == 0, p.stderr
    import json

    got = json.loads(p.stdout)
    assert [s["strong"] for s in got["steps"]] == [2, 4] and len(got["findings"]) == 3
    assert np.isfinite([s["lo"] for s in got["steps"]]).all()
