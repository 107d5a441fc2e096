"""Ravenfeast duel benchmark (bench_options: Jarl v Berserker) through the runner.

Usage: ``python experiments/ravenfeast_bench.py [n_games] [repeats]`` (from the repo root).
Prints a markdown table for docs/benchmarks.md: median duels/s of the compiled
kernel at 1 and 2 threads (runner, RNG block set-up included) and of the plain-Python reference
on a prefix of the same seed, with ratios.
"""
import os
import platform
import statistics
import sys

from vikingsim.core.runner import simulate
from vikingsim.games.ravenfeast import GAME


def rate(n, repeats, **kw):
    runs = [simulate(GAME, n=n, seed=20260, options=GAME.bench_options, **kw).elapsed_s
            for _ in range(repeats)]
    return n / statistics.median(runs), runs


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000_000
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    simulate(GAME, n=100_000, seed=1, options=GAME.bench_options, threads=2)   # compile / cache
    k1, _ = rate(n, repeats, threads=1)
    k2, _ = rate(n, repeats, threads=2)
    n_ref = max(n // 200, 10_000)
    ref, _ = rate(n_ref, 3, threads=1, reference=True)
    print(f"| configuration | engine | threads | n | median duels/s | vs reference |")
    print(f"|---|---|---|---|---|---|")
    print(f"| Jarl v Berserker (bench_options) | kernel | 1 | {n:,} | {k1:,.0f} | {k1 / ref:,.0f}x |")
    print(f"| Jarl v Berserker (bench_options) | kernel | 2 | {n:,} | {k2:,.0f} | {k2 / ref:,.0f}x |")
    print(f"| Jarl v Berserker (bench_options) | reference | 1 | {n_ref:,} | {ref:,.0f} | 1x |")
    print()
    print(f"machine: {os.cpu_count()} CPUs, {platform.processor() or platform.machine()}, "
          f"Python {platform.python_version()}; median of {repeats} runs (reference: 3)")


if __name__ == "__main__":
    main()
