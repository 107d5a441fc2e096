"""Benchmark battle878 (base battle: 6 Norsemen + 2 Berserkers vs 3 Housecarls + 4 Thegns).

Usage: python experiments/battle878_bench.py [n_kernel] [n_reference]
Prints kernel battles/s at 1 and 2 threads (median and best of 7 runs after a warm-up) and the
plain-Python reference on the same seed, plus a few expansion configurations.
"""
import statistics
import sys
import time

from vikingsim.core.runner import simulate
from vikingsim.games.battle878 import GAME


def rates(n, repeats, **kw):
    return [n / simulate(GAME, n, seed=1, **kw).elapsed_s for _ in range(repeats)]


def rate(n, repeats=5, **kw):
    return statistics.median(rates(n, repeats, **kw))


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 4_000_000
    n_ref = int(sys.argv[2]) if len(sys.argv) > 2 else 20_000
    opts = GAME.bench_options
    simulate(GAME, 10_000, seed=1, options=opts, threads=1)          # compile / load cache
    r1 = rates(n, 7, options=opts, threads=1)
    r2 = rates(n, 7, options=opts, threads=2)
    k1, k2 = statistics.median(r1), statistics.median(r2)
    ref = rate(n_ref, repeats=3, options=opts, threads=1, reference=True)
    print(f"base battle {opts}")
    print(f"kernel 1 thread : {k1:,.0f} battles/s (median of 7; best {max(r1):,.0f})")
    print(f"kernel 2 threads: {k2:,.0f} battles/s (median of 7; best {max(r2):,.0f})")
    print(f"reference       : {ref:,.0f} battles/s")
    print(f"speed-up 1 thread vs reference: {k1 / ref:,.0f}x; 2 threads: {k2 / ref:,.0f}x")
    for label, o, p in (("fort+ragnar+northumbria", {"fort": 1, "ragnar": True,
                                                    "northumbria": True}, "default"),
                        ("runes_prayer greedy", {"runes_prayer": True}, "greedy"),
                        ("epic_deck=3 + christians_wrath", {"christians_wrath": True,
                                                            "epic_deck": 3}, "default")):
        simulate(GAME, 10_000, seed=1, options={**opts, **o}, policies=p, threads=1)
        r2 = rate(n // 4, repeats=3, options={**opts, **o}, policies=p, threads=2)
        print(f"{label:32s} 2 threads: {r2:,.0f} battles/s")
    kernel_only()


def kernel_only(n=2_000_000, repeats=3):
    """Kernel alone (no runner: one Generator pair per thread, no block setup): best of runs."""
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np

    from vikingsim.core.options import resolve
    from vikingsim.games.battle878 import _args, _outs, kernel

    setup = GAME.setup(resolve(GAME.name, GAME.options, GAME.bench_options),
                       ["default", "default"], 2)
    out = GAME.allocate(setup, n)
    a, o = _args(setup), _outs(out)

    def run(r):
        kernel._play_block(*a, r[0], r[1], np.random.default_rng(r[0]),
                           np.random.default_rng(r[0] + 1), *o)

    run((0, 1000))
    for th in (1, 2):
        best = 0.0
        for _ in range(repeats):
            t = time.perf_counter()
            with ThreadPoolExecutor(th) as ex:
                list(ex.map(run, [(i * n // th, (i + 1) * n // th) for i in range(th)]))
            best = max(best, n / (time.perf_counter() - t))
        print(f"kernel alone, {th} thread(s): {best:,.0f} battles/s (best of {repeats})")


if __name__ == "__main__":
    main()
