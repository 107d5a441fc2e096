"""Issue 20 §4 benchmark: every cost of ``vikingsim sensitivity`` but the kernel, at full scale.

The real sample, the point files, the generated study, the runner (cells planned and set up,
one tally written per point, the summary) and SALib's analysis of the shipped params-space
file, with the chunk player replaced by one that writes the tally a chunk leaves without
playing its games (seat wins spread a little so every analysis runs). Prints wall and CPU
seconds per part and the peak memory (docs/benchmarks.md). Run:
``PYTHONPATH=$PWD python experiments/tevragnarok_sensitivity_overhead.py [SAMPLES] [GAMES] [OUT]``
(default 1024 1250 /tmp/sensitivity-overhead: 22,528 points).
"""
import os
import resource
import shutil
import sys
import time
from pathlib import Path

import numpy as np

from vikingsim.studies import dataset as D
from vikingsim.studies import run as R
from vikingsim.studies import sensitivity as S

SAMPLES = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
GAMES = int(sys.argv[2]) if len(sys.argv) > 2 else 1250
OUT = Path(sys.argv[3] if len(sys.argv) > 3 else "/tmp/sensitivity-overhead")
SPACE = Path(__file__).with_name("tevragnarok_sensitivity.toml")


def tally_only(task):
    """What play_chunk leaves on disk, without the games."""
    spec, setup = D.cell_setup(task.game, task.players, task.policies, task.options_json)
    tally = spec.tally(setup, spec.allocate(setup, 1))
    n, k = task.chunk.games, task.chunk.cell % 7
    tally["wins"] = np.array([n // 4 + k, n // 4 - k, n // 4, n - 3 * (n // 4)])
    D.cell_dir(task.root, task.chunk.cell).mkdir(parents=True, exist_ok=True)
    D.write_tally(D.tally_path(task.root, task.chunk.cell, task.chunk.chunk), tally, task.meta)
    return tally


R.play_chunk = tally_only
shutil.rmtree(OUT, ignore_errors=True)
shutil.rmtree(S.inputs_folder(OUT), ignore_errors=True)
print(f"load average {os.getloadavg()}", flush=True)
clock = [(time.perf_counter(), time.process_time())]


def lap(what: str) -> None:
    clock.append((time.perf_counter(), time.process_time()))
    (w0, c0), (w1, c1) = clock[-2], clock[-1]
    print(f"{what}: {w1 - w0:.1f} s wall, {c1 - c0:.1f} s CPU", flush=True)


study, out = S.plan_sensitivity("tevragnarok", SPACE, samples=SAMPLES, games=GAMES, out=OUT)
lap("sample, point files, generated study")
res = R.run_study(study, out, workers=2)
lap("runner without games")
data = res.open()
S.report_tables(data), S.report_findings(data)
lap("analysis")
(w0, c0), (w1, c1) = clock[0], clock[-1]
print(f"{len(res.manifest['cells']):,} points: {w1 - w0:.1f} s wall, {c1 - c0:.1f} s CPU; peak "
      f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB; manifest "
      f"{(out / D.MANIFEST).stat().st_size / 1e6:.1f} MB; load average {os.getloadavg()}")
