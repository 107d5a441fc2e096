"""Time the exact battle878 solver (figures in docs/battle878-exact-solver.md). From the repo root:

    PYTHONPATH=. .venv/bin/python experiments/bench_878_exact.py
"""
import statistics
import time

from vikingsim.games.battle878.exact import odds

ARMY = dict(norsemen=5, berserkers=5, housecarls=3, thegns=3, fyrd=4)   # 10 a side, most states
CASES = {
    "10v10 default rules (5N5B v 3H3T4F)": {},
    "10v10 Fort+Ragnar+Northumbria+Faith card+Edmund": dict(
        fort=1, ragnar=True, northumbria=True, epic_card="faith", edmunds_faith=True),
    "10v10 Settlement+Seidr, English attack": dict(settlement=1, seidr=True, attacker="english"),
    "10v10 Raven Banner + Fyrd card (3-way x 4-way mixture)": dict(raven_banner=True,
                                                                   fyrd_card=True),
    "10v10 Foul Weather (8 bank values, 16x16 cycle solves)": dict(epic_card="foul_weather"),
    "10v10 Foul Weather + Fort + Ragnar + Northumbria": dict(
        epic_card="foul_weather", fort=1, ragnar=True, northumbria=True),
}

t = time.perf_counter()
odds({"norsemen": 1, "berserkers": 0, "housecarls": 0, "thegns": 1})
print(f"first call (load numba cache): {time.perf_counter() - t:.2f} s")
for name, extra in CASES.items():
    ts = []
    for _ in range(5):
        t = time.perf_counter()
        odds({**ARMY, **extra})
        ts.append(time.perf_counter() - t)
    print(f"{name}: median {statistics.median(ts) * 1000:.0f} ms, max {max(ts) * 1000:.0f} ms")
t = time.perf_counter()
for a in range(1, 11):
    for b in range(1, 11):
        odds({"norsemen": a, "housecarls": b})
print("CLI grid norsemen=1:10 x housecarls=1:10 (other options default: 2 Berserkers, 4 Thegns):"
      f" 100 cells in {time.perf_counter() - t:.2f} s")
