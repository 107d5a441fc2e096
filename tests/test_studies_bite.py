"""Study-layer tests that bite (issue 18 §5): a resume must play every unfinished chunk, also
one lying between finished chunks (a gap, as two workers leave it when the earlier chunk is
still running at the interruption), and only those."""
from __future__ import annotations

import pandas as pd

from tests.test_studies_run import run, same_dataset
from vikingsim.studies import dataset as D
from vikingsim.studies.dataset import open_study


def test_resume_plays_the_unfinished_chunks_of_a_gap(tmp_path, monkeypatch):
    """The study: 2 cells (2 and 3 players) of 10,000 games in chunks of 4,096: chunks 0, 1, 2
    of 4,096, 4,096 and 1,808 games per cell, 6 chunks. Cell 0 loses its middle chunk 1 (a
    gap between the finished 0 and 2), cell 1 its first chunk 0 (before the finished 1 and
    2). The resume plays exactly those two chunks, 2 x 4,096 = 8,192 games, keeps the other 4,
    and the dataset equals the uninterrupted run's."""
    from vikingsim.studies import run as R

    full = run(tmp_path, "full", chunk=4096, workers=1)
    cut = run(tmp_path, "gap", chunk=4096, workers=1)
    for cell, chunk in ((0, 1), (1, 0)):
        D.tally_path(cut.root, cell, chunk).unlink()
        D.chunk_path(cut.root, cell, chunk).unlink()
    assert len(open_study(cut.root).games(cell=0)) == 10000 - 4096
    real, played = R.play_chunk, []

    def spy(task):
        played.append((task.chunk.cell, task.chunk.chunk, task.chunk.games))
        return real(task)

    monkeypatch.setattr(R, "play_chunk", spy)
    again = run(tmp_path, "gap", chunk=4096, workers=1, resume=True)
    assert sorted(played) == [(0, 1, 4096), (1, 0, 4096)]
    assert again.chunks_run == 2 and again.chunks_resumed == 4
    assert [c["games_done"] for c in again.manifest["cells"]] == [10000, 10000]
    for cell in (0, 1):
        ids = open_study(again.root).games(cell=cell, columns=["game_id"])["game_id"]
        assert list(ids) == list(range(10000))
    same_dataset(full, again)
    pd.testing.assert_frame_equal(open_study(full.root).summary(),
                                  open_study(again.root).summary())
