"""Issue 21 §2 strength check (raidconquer §15.6): ``ismcts(budget=64, buys=1)`` against
``ismcts(budget=64)``, one search seat among three ``hints`` seats, the seat rotated (N games
per seat, seed 20260 + seat), common seeds (the same games for both policies until their
choices differ). A win = the search seat is the winner of a game that was not truncated.
Paired per-game differences: mean and 95% t interval (scipy.stats.ttest_1samp). Run:
``PYTHONPATH=$PWD python experiments/raidconquer_buys_paired.py [N]`` (docs/benchmarks.md used
N = 150: 600 games per policy, about 60 s of CPU).
"""
import json
import os
import sys
import time

import numpy as np
from scipy import stats

from vikingsim.core.runner import simulate

n_seat = int(sys.argv[1]) if len(sys.argv) > 1 else 150
A, B = "ismcts(budget=64, buys=1)", "ismcts(budget=64)"
t0, c0 = time.strftime("%H:%M", time.gmtime()), time.process_time()
wins = {A: [], B: []}
for q in range(4):
    for pol in (A, B):
        pols = ["hints"] * 4
        pols[q] = pol
        r = simulate("raidconquer", n_seat, seed=20260 + q, players=4, policies=pols, threads=1)
        w = (np.asarray(r.out["winner"]) == q) & ~np.asarray(r.out["truncated"], bool)
        wins[pol].append(w.astype(float))
a, b = np.concatenate(wins[A]), np.concatenate(wins[B])
d = a - b
res = stats.ttest_1samp(d, 0.0)
ci = res.confidence_interval(0.95)
print(json.dumps({"start": t0, "end": time.strftime("%H:%M", time.gmtime()),
                  "cpu_s": time.process_time() - c0, "load": os.getloadavg(),
                  "games_per_policy": int(a.size), "win_A": a.mean(), "win_B": b.mean(),
                  "diff": d.mean(), "ci95": [ci.low, ci.high], "p": res.pvalue,
                  "se_A": a.std(ddof=1) / np.sqrt(a.size), "same_outcome": float((d == 0).mean())}))
