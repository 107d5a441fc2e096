"""--stop-when-decided: a Wald SPRT per cell after each chunk, in chunk order; the decision and
the chunks kept depend only on the study file."""
import math

import pytest

from vikingsim.studies.dataset import open_study
from vikingsim.studies.run import run_study
from tests.test_studies_run import write

# Seat 0 of a 4-player raid board game wins about 29.5% (notebooks/raidboard_seat_advantage):
# H0 p = 0.25 against H1 p = 0.29 is decided for H1 in a few chunks; when seat 0 moves last
# (first_seat = 1: seat 0 is the fourth to move, about 21%) for H0.
STOP_STUDY = """
name = "stop"
game = "raidboard"
players = 4
games = 200000
seed = 11
chunk_games = 4096
[grid]
first_seat = [0, 1]
[stop]
metric = "win_rate[0]"
p0 = 0.25
p1 = 0.29
"""


def wald(k, n, p0=0.25, p1=0.29, alpha=0.05, beta=0.05):
    """Wald's llr and bounds, by hand."""
    llr = k * math.log(p1 / p0) + (n - k) * math.log((1 - p1) / (1 - p0))
    if llr >= math.log((1 - beta) / alpha):
        return "H1"
    if llr <= math.log(beta / (1 - alpha)):
        return "H0"
    return None


def first_decision(winners, chunk):
    """(decision, games) at the first chunk boundary where Wald's test decides."""
    for n in range(chunk, len(winners) + chunk, chunk):
        n = min(n, len(winners))
        verdict = wald(int((winners[:n] == 0).sum()), n)
        if verdict:
            return verdict, n
    return None, len(winners)


def test_stop_when_decided_matches_wald_by_hand(tmp_path):
    path = write(tmp_path, STOP_STUDY)
    res = run_study(path, tmp_path / "stop", workers=2, stop_when_decided=True)
    full = run_study(path, tmp_path / "full", workers=2)
    rows = open_study(full.root).games(columns=["winner"])
    kept = open_study(res.root).games(columns=["winner"])
    for cell in (0, 1):
        want, n = first_decision(rows[rows.cell == cell]["winner"].to_numpy(), 4096)
        entry = res.manifest["cells"][cell]
        assert (entry["decided"], entry["games_done"]) == (want, n)
        assert len(kept[kept.cell == cell]) == n < 200000
        assert sorted(p.name for p in (res.root / "data" / f"cell={cell}").glob("*.parquet")) == \
            [f"chunk-{k:06d}.parquet" for k in range(-(-n // 4096))]
    assert [c["decided"] for c in res.manifest["cells"]] == ["H1", "H0"]


def test_decision_does_not_depend_on_workers(tmp_path):
    path = write(tmp_path, STOP_STUDY)
    one = run_study(path, tmp_path / "one", workers=1, stop_when_decided=True)
    three = run_study(path, tmp_path / "three", workers=3, stop_when_decided=True)
    assert one.manifest["cells"] == three.manifest["cells"]
    assert one.open().games().equals(three.open().games())


def test_stop_needs_a_stop_table(tmp_path):
    from vikingsim.core.errors import InputError

    path = write(tmp_path, STOP_STUDY.split("[stop]")[0])
    with pytest.raises(InputError, match=r"\[stop\] table"):
        run_study(path, tmp_path / "x", stop_when_decided=True)


def test_stop_metric_must_be_a_proportion(tmp_path):
    from vikingsim.core.errors import InputError

    path = write(tmp_path, STOP_STUDY.replace("win_rate[0]", "mean_rounds"))
    with pytest.raises(InputError, match="no proportion"):
        run_study(path, tmp_path / "x", stop_when_decided=True)


def test_decision_does_not_depend_on_the_order_results_arrive(tmp_path, monkeypatch):
    """Chunks finishing newest first (a backend that hands back the last submitted future)
    give the same decisions and rows as chunks finishing in order."""
    from concurrent.futures import wait

    from vikingsim.studies import backends

    path = write(tmp_path, STOP_STUDY)
    in_order = run_study(path, tmp_path / "in_order", workers=1, stop_when_decided=True)

    def newest_first(self, futures):
        wait(futures)
        return {futures[-1]}

    monkeypatch.setattr(backends.LocalBackend, "wait", newest_first)
    shuffled = run_study(path, tmp_path / "shuffled", workers=3, stop_when_decided=True)
    assert shuffled.manifest["cells"] == in_order.manifest["cells"]
    assert shuffled.open().games().equals(in_order.open().games())
