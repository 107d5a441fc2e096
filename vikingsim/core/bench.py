"""``vikingsim bench``: games/s of each game's compiled kernel at 1 and 2 threads and of its
plain-Python reference on the same seed (style rule 16). Never run by the test suite's asserts.

Each figure is the median of ``repeats`` timings of one ``simulate`` call whose size is chosen
so a timing lasts about ``seconds``; the kernel is compiled (or loaded from cache) first,
untimed. The reference plays a prefix of the same seed's games.
"""
from __future__ import annotations

import math
import statistics
import time

from vikingsim.core import config


def _rate(spec, options, n, *, threads, reference, repeats) -> float:
    from vikingsim.core.runner import simulate

    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        simulate(spec, n, seed=config.SEED, options=options,
                 players=spec.bench_players, threads=threads, reference=reference)
        times.append(time.perf_counter() - t0)
    return n / statistics.median(times)


def _sized(spec, options, seconds, *, threads, reference, repeats, start) -> tuple[int, float]:
    """Grow n until one run takes >= seconds/4, then time at the size for ``seconds``."""
    n = start
    while True:
        rate = _rate(spec, options, n, threads=threads, reference=reference, repeats=1)
        if n / rate >= seconds / 4 or n >= 50_000_000:
            break
        n *= 4
    n = max(1, int(rate * seconds))
    return n, _rate(spec, options, n, threads=threads, reference=reference, repeats=repeats)


def bench(games=None, *, seconds: float = 1.0, repeats: int = 3) -> list[dict]:
    from vikingsim.core.errors import InputError
    from vikingsim.games import get, names

    if not (isinstance(seconds, (int, float)) and math.isfinite(seconds)
            and 0 < seconds <= 3600) or isinstance(repeats, bool) or not 1 <= repeats <= 1000:
        raise InputError(f"--seconds must be a number in (0, 3600] and --repeats an integer in "
                         f"[1, 1000], got {seconds!r} and {repeats!r}")
    rows = []
    for name in games or names():
        spec = get(name)
        for options in spec.bench_configs or (spec.bench_options,):
            _rate(spec, options, 1000, threads=1, reference=False, repeats=1)   # compile
            kw = dict(reference=False, repeats=repeats)
            n1, k1 = _sized(spec, options, seconds, threads=1, start=20_000, **kw)
            n2, k2 = _sized(spec, options, seconds, threads=2, start=n1, **kw)
            nr, ref = _sized(spec, options, seconds, threads=1, reference=True, repeats=1,
                             start=50)
            rows.append({"game": name, "options": dict(options),
                         "players": spec.bench_players, "kernel_1t": k1, "kernel_2t": k2,
                         "reference": ref, "threads_ratio": k2 / k1, "speedup_1t": k1 / ref,
                         "n_kernel": n2, "n_reference": nr})
    return rows


def markdown_table(rows) -> str:
    out = ["| game | config | kernel 1 thread (games/s) | kernel 2 threads | 2t/1t | "
           "reference (games/s) | kernel 1t / reference |",
           "|---|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        cfg = ", ".join(f"{k}={v}" for k, v in r["options"].items()) or "defaults"
        if r["players"]:
            cfg += f", {r['players']} players"
        out.append(f"| {r['game']} | {cfg} | {r['kernel_1t']:,.0f} | {r['kernel_2t']:,.0f} | "
                   f"{r['threads_ratio']:.2f} | {r['reference']:,.0f} | {r['speedup_1t']:,.0f}x |")
    return "\n".join(out)
