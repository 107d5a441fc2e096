"""``vikingsim bench``: games/s of each game's compiled kernel at 1 and 2 threads and of its
plain-Python reference on the same seed (style rule 16). Never run by the test suite's asserts.

Each figure is the median of ``repeats`` timings of one ``simulate`` call whose size is chosen
so a timing lasts about ``seconds``; the kernel is compiled (or loaded from cache) first,
untimed. The reference plays a prefix of the same seed's games.

The **RNG limit** line: the reference counts how many uniform draws a game takes (dice and
policy streams, through a counting proxy of the Generator), and the same run times a compiled
loop that does nothing but draw d6 the kernels' way (``1 + int(rng.random() * 6.0)``) on one
thread. ``rng_limit_1t`` = that d6 rate / draws per game is the games/s no kernel could beat
on one thread; ``of_rng_limit`` = kernel 1 thread / that limit.
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


class _CountingGenerator:
    """Stands in for a numpy Generator in a reference engine and counts its draws."""

    def __init__(self, rng):
        self.rng, self.draws = rng, 0

    def random(self):
        self.draws += 1
        return self.rng.random()


def draws_per_game(spec, options, n: int = 200) -> tuple[float, float]:
    """Mean (dice, policy) uniform draws per game of the reference engine, first n games."""
    from vikingsim.core import rng
    from vikingsim.core.options import resolve
    from vikingsim.core.runner import resolve_policies

    opts = resolve(spec.name, spec.options, options)
    pols, players = resolve_policies(spec, None, spec.bench_players)
    setup = spec.setup(opts, pols, players)
    dice = _CountingGenerator(rng.block_generator(config.SEED, rng.STREAM_DICE, 0))
    pol = _CountingGenerator(rng.block_generator(config.SEED, rng.STREAM_POLICY, 0))
    n = min(n, spec.block_games)
    spec.reference_block(setup, 0, n, dice, pol, spec.allocate(setup, n))
    return dice.draws / n, pol.draws / n


def _d6_loop(rng, n):
    total = 0
    for _ in range(n):
        total += 1 + int(rng.random() * 6.0)
    return total


def d6_rate(seconds: float = 0.5) -> float:
    """d6 per second of a compiled loop that only draws (one thread, this machine, now)."""
    from vikingsim.core import rng
    from vikingsim.core.jit import jit

    loop = jit(nrt=False)(_d6_loop)
    gen = rng.block_generator(config.SEED, rng.STREAM_WARMUP, 9)
    loop(gen, 1000)
    n, best = 1_000_000, 0.0
    while True:
        t0 = time.perf_counter()
        loop(gen, n)
        dt = time.perf_counter() - t0
        best = max(best, n / dt)
        if dt >= seconds / 3:
            return best
        n *= 4


def bench(games=None, *, seconds: float = 1.0, repeats: int = 3) -> list[dict]:
    from vikingsim.core.errors import InputError
    from vikingsim.games import get, names

    if not (isinstance(seconds, (int, float)) and math.isfinite(seconds)
            and 0 < seconds <= 3600) or isinstance(repeats, bool) or not 1 <= repeats <= 1000:
        raise InputError(f"--seconds must be a number in (0, 3600] and --repeats an integer in "
                         f"[1, 1000], got {seconds!r} and {repeats!r}")
    rows = []
    d6_per_s = d6_rate(min(seconds, 1.0))
    for name in games or names():
        spec = get(name)
        for options in spec.bench_configs or (spec.bench_options,):
            _rate(spec, options, 1000, threads=1, reference=False, repeats=1)   # compile
            kw = dict(reference=False, repeats=repeats)
            n1, k1 = _sized(spec, options, seconds, threads=1, start=20_000, **kw)
            n2, k2 = _sized(spec, options, seconds, threads=2, start=n1, **kw)
            nr, ref = _sized(spec, options, seconds, threads=1, reference=True, repeats=1,
                             start=50)
            dice, pol = draws_per_game(spec, options)
            limit = d6_per_s / max(dice + pol, 1e-9)
            rows.append({"game": name, "options": dict(options),
                         "players": spec.bench_players, "kernel_1t": k1, "kernel_2t": k2,
                         "reference": ref, "threads_ratio": k2 / k1, "speedup_1t": k1 / ref,
                         "n_kernel": n2, "n_reference": nr, "dice_draws_per_game": dice,
                         "policy_draws_per_game": pol, "d6_per_s_1t": d6_per_s,
                         "rng_limit_1t": limit, "of_rng_limit": k1 / limit})
    return rows


def markdown_table(rows) -> str:
    out = ["| game | config | kernel 1 thread (games/s) | kernel 2 threads | 2t/1t | "
           "reference (games/s) | kernel 1t / reference | draws/game | RNG limit 1t "
           "(games/s) | kernel / RNG limit |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        cfg = ", ".join(f"{k}={v}" for k, v in r["options"].items()) or "defaults"
        if r["players"]:
            cfg += f", {r['players']} players"
        out.append(f"| {r['game']} | {cfg} | {r['kernel_1t']:,.0f} | {r['kernel_2t']:,.0f} | "
                   f"{r['threads_ratio']:.2f} | {r['reference']:,.0f} | {r['speedup_1t']:,.0f}x | "
                   f"{r['dice_draws_per_game'] + r['policy_draws_per_game']:,.1f} | "
                   f"{r['rng_limit_1t']:,.0f} | {r['of_rng_limit']:.0%} |")
    if rows:
        out.append(f"\nRNG limit: {rows[0]['d6_per_s_1t'] / 1e6:,.0f} million d6/s on one "
                   f"thread (a compiled loop that only draws), in the same run.")
    return "\n".join(out)
