"""--backend dask gives the same dataset, bit for bit, as the local backend (the shared
LocalCluster of 2 single-threaded worker processes, ``dask_cluster`` in tests/conftest.py)."""
import pandas as pd
import pytest

from vikingsim.studies.dataset import open_study
from vikingsim.studies.run import run_study
from tests.test_studies_run import STUDY, same_dataset, write


@pytest.fixture
def cluster(dask_cluster):
    return dask_cluster


def test_dask_equals_local(tmp_path, cluster):
    path = write(tmp_path, STUDY.format(chunk=4096))
    local = run_study(path, tmp_path / "local", workers=1)
    dask = run_study(path, tmp_path / "dask", backend="dask", scheduler=cluster.scheduler_address)
    same_dataset(local, dask)
    for cell in (0, 1):                            # file by file, not only the whole frame
        for k in range(3):
            a = pd.read_parquet(local.root / "data" / f"cell={cell}" / f"chunk-{k:06d}.parquet")
            b = pd.read_parquet(dask.root / "data" / f"cell={cell}" / f"chunk-{k:06d}.parquet")
            pd.testing.assert_frame_equal(a, b)


def test_dask_stop_when_decided_equals_local(tmp_path, cluster):
    from tests.test_studies_stop import STOP_STUDY

    path = write(tmp_path, STOP_STUDY)
    local = run_study(path, tmp_path / "local", workers=2, stop_when_decided=True)
    dask = run_study(path, tmp_path / "dask", backend="dask", scheduler=cluster.scheduler_address,
                     stop_when_decided=True)
    same_dataset(local, dask)
    assert [c["decided"] for c in dask.manifest["cells"]] == ["H1", "H0"]


def test_dask_resumes_a_local_run(tmp_path, cluster):
    """Backends share one dataset format: a study begun locally finishes on Dask."""
    path = write(tmp_path, STUDY.format(chunk=4096))
    whole = run_study(path, tmp_path / "whole", workers=1)
    half = tmp_path / "half"
    run_study(path, half, workers=1)
    for p in sorted(half.glob("data/cell=1/chunk-00000[12].*")):
        p.unlink()
    again = run_study(path, half, backend="dask", scheduler=cluster.scheduler_address, resume=True)
    assert again.chunks_run == 2 and again.chunks_resumed == 4
    same_dataset(whole, again)
    assert len(open_study(half).games(cell=1)) == 10000


@pytest.mark.slow
@pytest.mark.parametrize("sig, to_group, code", [
    ("SIGTERM", False, 143), ("SIGTERM", True, 143), ("SIGINT", True, 130),
    ("SIGINT", False, 130)])
def test_stopping_a_dask_run_prints_one_line(tmp_path, sig, to_group, code):
    """Issue 22: SIGTERM or Ctrl-C (SIGINT to the terminal's whole process group) of
    ``experiment --backend dask`` once a chunk is saved printed about 30 lines of worker
    traceback (Ctrl-C: every time; SIGTERM: a worker's failed heartbeat, about one run in
    four) before the one-line message. Now: that line only, and the saved chunks kept. Port
    8787 is held as on a machine where another Dask cluster runs (it added a warning).

    The child gets SIGINT's default action back (``preexec_fn``): a test run started as a
    shell's background job (``pytest &``, as the full-suite runs were) has SIGINT ignored,
    the child inherited that, played all its 30 million games and exited 0 with nothing on
    stderr (the flaky failure of issue 19; reproduced every time under ``trap '' INT``). No
    clock: the signal goes once 3 chunks are saved (each worker has finished one and the
    runner keeps 2 x 2 in flight, so both are mid-chunk); the run is finite (3 x 10 million
    games), so one that ends first fails the test."""
    import os
    import signal
    import socket
    import subprocess
    import sys
    import time
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    out = tmp_path / "out"
    busy = socket.socket()
    try:
        busy.bind(("127.0.0.1", 8787))
        busy.listen()
    except OSError:                                    # already taken: the same situation
        pass
    p = subprocess.Popen([sys.executable, "-m", "vikingsim", "experiment",
                          str(root / "experiments" / "raidboard_seat0_edge.toml"), "--backend",
                          "dask", "--workers", "2", "--out", str(out), "--quiet"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True, cwd=tmp_path,
                         env={**os.environ, "PYTHONPATH": str(root)},
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        while len(list(out.glob("data/cell=*/chunk-*.tally.json"))) < 3:
            assert p.poll() is None, p.communicate()     # ended before it saved 3 chunks
            time.sleep(0.05)
        signum = getattr(signal, sig)
        os.killpg(p.pid, signum) if to_group else p.send_signal(signum)
        _, err = p.communicate(timeout=120)
    finally:
        busy.close()
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    lines = err.strip().splitlines()
    assert p.returncode == code and "Traceback" not in err and len(lines) <= 2, err[-3000:]
    assert "chunks are saved" in lines[-1] and "--resume" in lines[-1]
    assert list(out.glob("data/cell=*/chunk-*.tally.json"))
