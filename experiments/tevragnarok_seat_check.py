"""Issue 18 check: with the DEFAULT rules, is the win rate per *turn position* the same
whatever seat holds the Chieftain marker at setup (``first_seat``)?

For each of the 4 marker positions, N games (each on its own seed, so the four samples are
independent), wins counted by turn position (0 = the first player); a chi-square test of
independence on the 4 x 4 table (scipy.stats.chi2_contingency, 9 df). Run:
``PYTHONPATH=$PWD python experiments/tevragnarok_seat_check.py [N] [policy ...]``.
"""
import sys

import numpy as np
from scipy.stats import chi2_contingency

from vikingsim.core.runner import simulate

N = int(sys.argv[1]) if len(sys.argv) > 1 else 50_000
POLICIES = sys.argv[2:] or ["greedy_vp"] * 4
table = []
for first in range(4):
    r = simulate("tevragnarok", N, seed=1800 + first, players=4, policies=POLICIES,
                 options={"first_seat": first})
    position = (r.out["winner"].astype(int) - first) % 4
    table.append(np.bincount(position, minlength=4))
table = np.array(table)
chi2, p, dof, _ = chi2_contingency(table)
print("policies", POLICIES, "games per marker position", N)
for first, row in enumerate(table):
    print(f"first_seat={first}: win % by turn position", np.round(100 * row / N, 2).tolist())
print("pooled win % by turn position", np.round(100 * table.sum(0) / table.sum(), 2).tolist())
print(f"chi-square {chi2:.2f} on {dof} df, p = {p:.3f}")
