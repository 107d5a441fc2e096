"""`vikingsim sensitivity --backend dask` plays the same points as the local backend: the same
stored counts, so the same indices (a small raid board space, the shared `dask_cluster`)."""
import pandas as pd
import pytest

from vikingsim.studies import sensitivity as S

SPACE = """players = 3
headlines = ["win_rate[0]", "win_rate[0] - win_rate[2]"]
[inputs]
start_gold = {low = 0, high = 40}
seat_gold_step = {low = 0, high = 4}
"""


@pytest.mark.slow
def test_dask_gives_the_local_indices(tmp_path, dask_cluster):
    space = tmp_path / "space.toml"
    space.write_text(SPACE)
    kw = dict(samples=4, games=3000, seed=9, second_order=False)
    local = S.run_sensitivity("raidboard", space, out=tmp_path / "local", workers=1, **kw)
    dask = S.run_sensitivity("raidboard", space, out=tmp_path / "dask", backend="dask",
                             scheduler=dask_cluster.scheduler_address, **kw)
    a, b = S.point_values(local.open()), S.point_values(dask.open())
    pd.testing.assert_frame_equal(a, b)
    assert a["value"].nunique() > 4                       # the points differ
    pd.testing.assert_frame_equal(S.report_tables(local.open())["sensitivity indices"],
                                  S.report_tables(dask.open())["sensitivity indices"])
