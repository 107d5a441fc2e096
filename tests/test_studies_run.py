"""Study runs (vikingsim.studies): the dataset depends only on the study file (not on workers,
chunk size, backend or interruptions), the layout is the documented one, the summaries come
from the tallies and equal what the rows say, and the seeds follow the spawn-key scheme."""
import json
import textwrap

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from vikingsim.core import rng
from vikingsim.games import get
from vikingsim.studies import dataset as D
from vikingsim.studies.dataset import open_study
from vikingsim.studies.run import run_study

STUDY = """
name = "seats"
game = "raidboard"
games = 10000
seed = 303
chunk_games = {chunk}
[grid]
players = [2, 3]
"""


def write(tmp_path, text, name="study.toml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def run(tmp_path, out, chunk=4096, text=STUDY, **kw):
    path = write(tmp_path, text.format(chunk=chunk), f"{out}.toml")
    return run_study(path, tmp_path / out, **kw)


def same_dataset(a, b):
    """Same rows, same tallies, same summaries and same cells (chunking may differ)."""
    da, db = open_study(a.root), open_study(b.root)
    pd.testing.assert_frame_equal(da.games(), db.games())
    pd.testing.assert_frame_equal(da.summary(), db.summary())
    keep = ("cell", "label", "players", "policies", "options", "grid", "games_done", "decided")
    assert [{k: c[k] for k in keep} for c in a.manifest["cells"]] == \
        [{k: c[k] for k in keep} for c in b.manifest["cells"]]


def test_same_dataset_for_1_and_2_workers_and_two_chunk_sizes(tmp_path):
    one = run(tmp_path, "w1", chunk=4096, workers=1)
    two = run(tmp_path, "w2", chunk=8192, workers=2)
    assert len(list((one.root / "data" / "cell=0").glob("*.parquet"))) == 3      # 4096+4096+1808
    assert len(list((two.root / "data" / "cell=0").glob("*.parquet"))) == 2      # 8192+1808
    same_dataset(one, two)


def test_rows_follow_the_spawn_key_scheme(tmp_path):
    """Block b of cell c uses SeedSequence(seed, spawn_key=(c, stream, b)): replay block 1 of
    cell 1 (3 players) on the plain-Python reference with those Generators."""
    res = run(tmp_path, "keys", chunk=4096, workers=1)
    spec = get("raidboard")
    setup = spec.setup(res.manifest["cells"][1]["options"], ["greedy"] * 3, 3)
    out = spec.allocate(setup, 4096)
    spec.reference_block(setup, 0, 4096, rng.block_generator(303, rng.STREAM_DICE, 1, (1,)),
                         rng.block_generator(303, rng.STREAM_POLICY, 1, (1,)), out)
    rows = open_study(res.root).games(cell=1)
    got = rows[(rows.game_id >= 4096) & (rows.game_id < 8192)]
    assert np.array_equal(got["winner"].to_numpy(), out["winner"])
    assert np.array_equal(got["gold_2"].to_numpy(), out["gold"][:, 2])


def test_layout_manifest_and_chunk_metadata(tmp_path):
    res = run(tmp_path, "layout", chunk=4096, workers=1)
    m = json.loads((res.root / "study.json").read_text())
    for key in ("format", "name", "study_file", "study_toml", "game", "rules_version",
                "versions", "root_seed", "chunk_games", "grid_keys", "report", "cells"):
        assert key in m, key
    assert m["format"] == "vikingsim-study/1" and m["root_seed"] == 303
    assert m["grid_keys"] == ["players"] and m["chunk_games"] == 4096
    assert m["study_toml"] == (tmp_path / "layout.toml").read_text()
    c1 = m["cells"][1]
    assert c1["label"] == "players=3" and c1["policies"] == ["greedy"] * 3
    assert c1["grid"] == {"players": 3} and c1["games"] == c1["games_done"] == 10000
    assert c1["decided"] is None and c1["options"]["start_gold"] == 20      # every option
    meta = json.loads(pq.read_metadata(D.chunk_path(res.root, 1, 2)).metadata[b"vikingsim"])
    assert meta["cell"] == 1 and meta["chunk"] == 2 and meta["first_game"] == 8192
    assert meta["games"] == 10000 - 8192 and meta["study_hash"] == m["study_hash"]
    assert meta["seed_keys"]["blocks"] == [2, 3] and meta["rules_version"] == m["rules_version"]
    tally = json.loads(D.tally_path(res.root, 1, 2).read_text())["tally"]
    assert sum(tally["wins"]) == 10000 - 8192


def test_summary_from_tallies_equals_the_rows(tmp_path):
    res = run(tmp_path, "sums", chunk=4096, workers=2)
    data = open_study(res.root)
    rows, summ = data.games(), data.summary()
    for cell, players in ((0, 2), (1, 3)):
        g = rows[rows.cell == cell]
        for seat in range(players):
            want = float((g.winner == seat).mean())
            got = summ[(summ.cell == cell) & (summ.metric == "win_rate") & (summ.seat == seat)]
            assert got["value"].item() == pytest.approx(want, abs=1e-12)
            assert got["lo"].item() < want < got["hi"].item()
        mean_rounds = summ[(summ.cell == cell) & (summ.metric == "mean_rounds")]["value"].item()
        assert mean_rounds == pytest.approx(g.rounds.mean(), abs=1e-9)
    assert set(summ["players"]) == {2, 3} and (summ["games"] == 10000).all()


def test_games_union_of_seat_columns_and_cell_filter(tmp_path):
    data = open_study(run(tmp_path, "union", chunk=4096, workers=1).root)
    rows = data.games()
    assert rows.loc[rows.cell == 0, "gold_2"].isna().all()           # 2 players: no seat 2
    assert rows.loc[rows.cell == 1, "gold_2"].notna().all()
    one = data.games(cell=1, columns=["winner"])
    assert list(one.columns) == ["cell", "game_id", "winner"] and len(one) == 10000
    assert list(data.cells["players"]) == [2, 3]


def test_resume_after_an_interruption_equals_an_uninterrupted_run(tmp_path, monkeypatch):
    from vikingsim.studies import run as R

    full = run(tmp_path, "full", chunk=4096, workers=1)
    real, calls = R.play_chunk, []

    def stop_after_three(task):
        if len(calls) == 3:
            raise KeyboardInterrupt
        calls.append(task.chunk)
        return real(task)

    monkeypatch.setattr(R, "play_chunk", stop_after_three)
    with pytest.raises(KeyboardInterrupt):
        run(tmp_path, "cut", chunk=4096, workers=1)
    assert len(list((tmp_path / "cut").glob("data/*/*.tally.json"))) == 3
    monkeypatch.setattr(R, "play_chunk", real)
    with pytest.raises(Exception, match="--resume"):
        run(tmp_path, "cut", chunk=4096, workers=1)
    again = run(tmp_path, "cut", chunk=4096, workers=1, resume=True)
    assert again.chunks_resumed == 3 and again.chunks_run == 3
    same_dataset(full, again)


def test_resume_refuses_another_study(tmp_path):
    from vikingsim.core.errors import InputError

    run(tmp_path, "mine", chunk=4096, workers=1)
    with pytest.raises(InputError, match="different run"):
        run(tmp_path, "mine", chunk=8192, workers=1, resume=True)


def test_no_half_written_chunk_under_its_final_name(tmp_path):
    """A write that fails midway leaves neither the final file nor its temp file."""
    target = tmp_path / "chunk-000000.parquet"

    def frames():
        yield pd.DataFrame({"game_id": np.arange(10)})
        raise OSError("disk full")

    with pytest.raises(OSError):
        D.write_rows(target, frames(), {"cell": 0})
    assert list(tmp_path.iterdir()) == []
    D.write_rows(target, iter([pd.DataFrame({"game_id": np.arange(10)})]), {"cell": 0})
    assert list(tmp_path.iterdir()) == [target]


def test_atomic_write_fsyncs_and_replaces(tmp_path, monkeypatch):
    import os

    seen = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(os, "fsync", lambda fd: (seen.append("fsync"), real_fsync(fd)))
    monkeypatch.setattr(os, "replace", lambda a, b: (seen.append(("replace", str(a), str(b))),
                                                    real_replace(a, b)))
    D.write_json(tmp_path / "x.json", {"a": 1})
    assert seen[0] == "fsync" and seen[1][0] == "replace"
    tmp, final = seen[1][1], seen[1][2]
    assert final == str(tmp_path / "x.json")
    assert os.path.dirname(tmp) == str(tmp_path) and os.path.basename(tmp).startswith(".")


def test_rows_false_keeps_tallies_only(tmp_path):
    text = STUDY.replace("[grid]", "rows = false\n[grid]")
    res = run(tmp_path, "tallies", chunk=4096, workers=1, text=text)
    assert not list(res.root.glob("data/*/*.parquet"))
    rows = run(tmp_path, "rows", chunk=4096, workers=1)
    pd.testing.assert_frame_equal(open_study(res.root).summary(), open_study(rows.root).summary())
    with pytest.raises(Exception, match="tallies only"):
        open_study(res.root).games()


def test_resume_removes_temp_files_of_a_killed_write(tmp_path):
    """A chunk killed while writing leaves only a hidden temp file: the dataset never reads it
    and --resume deletes it (and plays that chunk)."""
    first = run(tmp_path, "stale", chunk=4096, workers=1)
    final = D.chunk_path(first.root, 1, 2)
    D.tally_path(first.root, 1, 2).unlink()
    final.rename(final.with_name(f".{final.name}.999999.tmp"))   # killed before os.replace
    assert len(open_study(first.root).games(cell=1)) == 8192
    again = run(tmp_path, "stale", chunk=4096, workers=1, resume=True)
    assert again.chunks_run == 1 and not list(first.root.glob("**/.*.tmp"))
    same_dataset(first, again)


def test_resume_replays_chunks_whose_rows_were_deleted_or_overwritten(tmp_path, capsys):
    """A finished chunk is one whose rows match the size and hash its tally recorded: a row
    file deleted, overwritten with random bytes of its own size, or cut short, is played
    again by --resume (one line says which), and the dataset equals an uninterrupted run."""
    full = run(tmp_path, "whole", chunk=4096, workers=1)
    hurt = run(tmp_path, "hurt", chunk=4096, workers=1)
    D.chunk_path(hurt.root, 1, 1).unlink()
    same_size = D.chunk_path(hurt.root, 0, 2)
    same_size.write_bytes(np.random.default_rng(1).bytes(same_size.stat().st_size))
    cut = D.chunk_path(hurt.root, 0, 0)
    cut.write_bytes(cut.read_bytes()[:-100])
    capsys.readouterr()
    again = run(tmp_path, "hurt", chunk=4096, workers=1, resume=True)
    assert (again.chunks_resumed, again.chunks_run) == (3, 3)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "3 finished chunks" in err, err
    assert "cell=1/chunk-000001.parquet (missing)" in err, err
    same_dataset(full, again)
    for a, b in zip(sorted(full.root.glob("data/*/*")), sorted(again.root.glob("data/*/*"))):
        assert a.name == b.name and a.read_bytes() == b.read_bytes(), a


def test_resume_replays_a_chunk_whose_tally_is_unreadable(tmp_path):
    full = run(tmp_path, "whole", chunk=4096, workers=1)
    hurt = run(tmp_path, "hurt", chunk=4096, workers=1)
    D.tally_path(hurt.root, 1, 0).write_bytes(np.random.default_rng(2).bytes(300))
    again = run(tmp_path, "hurt", chunk=4096, workers=1, resume=True)
    assert (again.chunks_resumed, again.chunks_run) == (5, 1)
    same_dataset(full, again)


@pytest.mark.parametrize("edit, words", [
    (lambda t: t.replace("chunk_games = 4096", "chunk_games = 8192"),
     "chunk_games 4096 -> 8192"),
    (lambda t: t.replace("games = 10000", "games = 12000"), "games 10000 -> 12000 in cells 0, 1"),
    (lambda t: t.replace("seed = 303", "seed = 304"), "seed 303 -> 304"),
    (lambda t: t.replace("[grid]", "[options]\nstart_gold = 25\n[grid]"),
     "options.start_gold 20 -> 25 in cells 0, 1"),
    (lambda t: t.replace("players = [2, 3]", "players = [2, 4]"),
     "cell 1: label 'players=3' -> 'players=4', players 3 -> 4"),
    (lambda t: t.replace("players = [2, 3]", "players = [2]"), "cells 2 -> 1"),
])
def test_resume_refusal_names_what_changed(tmp_path, edit, words):
    from vikingsim.core.errors import InputError

    run(tmp_path, "mine", chunk=4096, workers=1)
    path = write(tmp_path, edit(STUDY.format(chunk=4096)), "mine.toml")
    with pytest.raises(InputError, match="different run") as e:
        run_study(path, tmp_path / "mine", resume=True)
    assert words in str(e.value) and "\n" not in str(e.value), str(e.value)


COMMON = """
name = "common"
game = "raidboard"
games = 6000
seed = 77
common_seeds = true
chunk_games = 4096
[grid]
policy = ["greedy", "random"]
"""


def test_common_seeds_cells_replay_plain_simulate(tmp_path):
    """common_seeds = true: every cell uses the plain run's spawn keys (stream, block), so each
    cell's games are those of `simulate` with the same seed and configuration (the games of
    both cells share dice streams: a paired comparison), and the flag enters the study hash."""
    from vikingsim.core.runner import simulate

    res = run(tmp_path, "common", text=COMMON, workers=1)
    rows = open_study(res.root).games()
    for cell, policy in ((0, "greedy"), (1, "random")):
        plain = simulate("raidboard", 6000, seed=77, players=4, policies=[policy], keep=True)
        got = rows[rows.cell == cell].sort_values("game_id")
        assert np.array_equal(got["winner"].to_numpy(), plain.out["winner"])
    split = run(tmp_path, "split", text=COMMON.replace("common_seeds = true\n", ""), workers=1)
    assert split.manifest["study_hash"] != res.manifest["study_hash"]
    assert not open_study(split.root).games(cell=0)["winner"].equals(
        open_study(res.root).games(cell=0)["winner"])
