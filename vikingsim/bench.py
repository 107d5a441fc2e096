"""``vikingsim bench``: games/s of each game's compiled kernel at 1 and 2 threads and of its
plain-Python reference on the same seed (style rule 16). Never run by the test suite's asserts.

Each figure is the median of ``repeats`` timings of one ``simulate`` call whose size is chosen
so a timing lasts about ``seconds`` (grown by 4x from a few games: a search seat plays tens of
games/s, a fast kernel millions); first one game, timed apart as ``first_call_s`` (compile or
cache load, and the set-up: the ``optimal`` policy's solve). The reference plays a prefix of
the same seed's games; draws per game are counted on at most 200 of them (at most 4x the
reference's timed games). A timing of fewer than two RNG blocks (``GameSpec.block_games``) runs
on one thread whatever the thread count: the table says which rows. Configurations: the game's
``bench_configs`` (or ``bench_options``), or one given with ``options``/``players``/
``policies`` (``vikingsim bench GAME --set k=v --policy P``).

``bench_search`` (the search lines of ``vikingsim bench``): per search player of a game that has
them (``SEARCH_BENCH``), one seat among the default policy's: decisions/s, rollouts/s and the
search's own overhead, (search time - rollout time) / rollout time (issue 21 "Speed"; how each
is measured: the game's ``bench_rows``).

``bench_exact`` (``vikingsim bench --exact``) times a game's exact solver (``GameSpec.odds``)
instead: the first call of the process apart (it loads or compiles the solver), then the
median and maximum of ``repeats`` calls.

``bench_compile`` (``vikingsim bench --compile``) times each configuration's first run: a fresh
process with ``NUMBA_CACHE_DIR`` an empty temporary folder sets the game up and plays one
throw-away game (numba compiles every kernel it reaches), wall and CPU seconds; then a second
process on the same folder does the same (numba loads the cached kernels): the start of every
later run.

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


def _rate(spec, run: dict, n, *, threads, reference, repeats) -> float:
    """Games/s of ``simulate`` with ``run`` (options, players, policies), median of repeats."""
    from vikingsim.core.runner import simulate

    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        simulate(spec, n, seed=config.SEED, threads=threads, reference=reference, **run)
        times.append(time.perf_counter() - t0)
    return n / statistics.median(times)


def _sized(spec, run, seconds, *, threads, reference, repeats, start) -> tuple[int, float]:
    """Grow n until one run takes >= seconds/4, then time at the size for ``seconds``."""
    n = start
    while True:
        rate = _rate(spec, run, n, threads=threads, reference=reference, repeats=1)
        if n / rate >= seconds / 4 or n >= 50_000_000:
            break
        n *= 4
    n = max(1, int(rate * seconds))
    return n, _rate(spec, run, n, threads=threads, reference=reference, repeats=repeats)


class _CountingGenerator:
    """Stands in for a numpy Generator in a reference engine and counts its draws."""

    def __init__(self, rng):
        self.rng, self.draws = rng, 0

    def random(self):
        self.draws += 1
        return self.rng.random()


def draws_per_game(spec, options, n: int = 200, *, players=None,
                   policies=None) -> tuple[float, float]:
    """Mean (dice, policy) uniform draws per game of the reference engine, first n games
    (``players`` defaults to the game's ``bench_players``)."""
    from vikingsim.core import rng
    from vikingsim.core.options import resolve
    from vikingsim.core.runner import resolve_policies

    opts = resolve(spec.name, spec.options, options)
    pols, players = resolve_policies(spec, policies, players or spec.bench_players)
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


def _check_sizes(seconds, repeats) -> None:
    from vikingsim.core.errors import InputError

    if not (isinstance(seconds, (int, float)) and math.isfinite(seconds)
            and 0 < seconds <= 3600) or isinstance(repeats, bool) or not 1 <= repeats <= 1000:
        raise InputError(f"--seconds must be a number in (0, 3600] and --repeats an integer in "
                         f"[1, 1000], got {seconds!r} and {repeats!r}")


def _configs(games, options, players, policies) -> list[tuple]:
    """(spec, run) pairs: each game's bench configurations, or the one configuration given."""
    from vikingsim.core.errors import InputError
    from vikingsim.games import get, names

    given = options is not None or players is not None or policies is not None
    if given and len(games or ()) != 1:
        raise InputError("--set, --players and --policy bench one configuration: name exactly "
                         "one game")
    out = []
    for name in games or names():
        spec = get(name)
        if given:
            runs = [{"options": dict(options or {}), "players": players or spec.bench_players,
                     "policies": policies}]
        else:
            runs = [{"options": dict(o), "players": spec.bench_players, "policies": None}
                    for o in spec.bench_configs or (spec.bench_options,)]
        out += [(spec, run) for run in runs]
    return out


def bench(games=None, *, seconds: float = 1.0, repeats: int = 3, options: dict | None = None,
          players: int | None = None, policies=None) -> list[dict]:
    """One row per configuration (see the module docstring): kernel games/s at 1 and 2
    threads, reference games/s, draws per game and the RNG limit."""
    _check_sizes(seconds, repeats)
    rows = []
    configs = _configs(games, options, players, policies)
    d6_per_s = d6_rate(min(seconds, 1.0))
    for spec, run in configs:
        first = 1 / _rate(spec, run, 1, threads=1, reference=False, repeats=1)  # compile
        kw = dict(reference=False, repeats=repeats)
        n1, k1 = _sized(spec, run, seconds, threads=1, start=16, **kw)
        n2, k2 = _sized(spec, run, seconds, threads=2, start=n1, **kw)
        nr, ref = _sized(spec, run, seconds, threads=1, reference=True, repeats=1, start=1)
        dice, pol = draws_per_game(spec, run["options"], min(200, 4 * nr),
                                   players=run["players"], policies=run["policies"])
        limit = d6_per_s / max(dice + pol, 1e-9)
        rows.append({"game": spec.name, "options": run["options"],
                     "players": run["players"], "policies": _labels(spec, run),
                     "kernel_1t": k1, "kernel_2t": k2,
                     "reference": ref, "threads_ratio": k2 / k1, "speedup_1t": k1 / ref,
                     "n_kernel": n2, "blocks_2t": -(-n2 // spec.block_games),
                     "n_reference": nr, "dice_draws_per_game": dice,
                     "policy_draws_per_game": pol, "d6_per_s_1t": d6_per_s, "first_call_s": first,
                     "rng_limit_1t": limit, "of_rng_limit": k1 / limit})
    return rows


#: game -> module with ``bench_rows(seconds, repeats)`` for its search players.
SEARCH_BENCH = {"raidboard": "vikingsim.games.raidboard.search",
                "tevragnarok": "vikingsim.games.tevragnarok.search",
                "raidconquer": "vikingsim.games.raidconquer.search"}


def bench_search(games=None, *, seconds: float = 1.0, repeats: int = 3) -> list[dict]:
    """The search players' rows of the games named (default: all) that have search players."""
    import importlib

    _check_sizes(seconds, repeats)
    rows = []
    for name in games or list(SEARCH_BENCH):
        if name in SEARCH_BENCH:
            rows += importlib.import_module(SEARCH_BENCH[name]).bench_rows(seconds, repeats)
    return rows


def markdown_search(rows) -> str:
    """Markdown table of ``bench_search`` rows."""
    out = ["| game | search seat (others default) | games/s | decisions/s | rollouts/s | "
           "rollouts/decision | overhead |", "|---|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        out.append(f"| {r['game']} | {r['policy']}, {r['players']} players | "
                   f"{r['games_per_s']:,.0f} | {r['decisions_per_s']:,.0f} | "
                   f"{r['rollouts_per_s']:,.0f} | {r['rollouts_per_decision']} | "
                   f"{r['overhead']:.0%} |")
    out.append("overhead = (search time - rollout time) / rollout time, 1 thread (goal <= 50%)")
    return "\n".join(out)


def _labels(spec, run) -> list[str]:
    from vikingsim.core.runner import resolve_policies

    return resolve_policies(spec, run["policies"], run["players"])[0]


def bench_exact(games=None, *, repeats: int = 3, options: dict | None = None) -> list[dict]:
    """Seconds per call of each game's exact solver, on its bench configurations or on the
    one given: ``first_call_s`` (loads or compiles the solver), then ``median_s``/``max_s`` of
    ``repeats`` calls. A configuration the solver refuses gets its ``error`` instead."""
    from vikingsim.core.errors import InputError
    from vikingsim.core.options import resolve
    from vikingsim.games import get, names

    _check_sizes(1.0, repeats)
    specs = [get(g) for g in games or names()]
    if games and any(s.odds is None for s in specs):
        have = [n for n in names() if get(n).odds is not None]
        raise InputError(f"--exact: {', '.join(s.name for s in specs if s.odds is None)} "
                         f"has no exact solver; games with one: {', '.join(have)}")
    rows = []
    for spec, run in _configs([s.name for s in specs if s.odds is not None], options, None,
                              None):
        row = {"game": spec.name, "options": run["options"]}
        opts = resolve(spec.name, spec.options, run["options"])
        times = []
        try:
            for _ in range(repeats + 1):
                t0 = time.perf_counter()
                spec.odds(opts)
                times.append(time.perf_counter() - t0)
        except InputError as e:
            rows.append({**row, "error": str(e)})
            continue
        rows.append({**row, "first_call_s": times[0], "median_s": statistics.median(times[1:]),
                     "max_s": max(times[1:]), "calls": repeats})
    return rows


_FIRST_RUN = """
import json, sys, time
from vikingsim.core.options import resolve
from vikingsim.core.runner import play_throwaway, resolve_policies
from vikingsim.games import get

spec, run = get(sys.argv[1]), json.loads(sys.argv[2])
w0, c0 = time.perf_counter(), time.process_time()
setup = spec.setup(resolve(spec.name, spec.options, run["options"]),
                   *resolve_policies(spec, run["policies"], run["players"]))
play_throwaway(spec, setup)
print(json.dumps({"wall_s": time.perf_counter() - w0, "cpu_s": time.process_time() - c0}))
"""


def _first_run(spec, run, cache_dir: str) -> dict:
    """Wall and CPU seconds of set-up + one game in a fresh process on numba cache
    ``cache_dir``."""
    import json
    import os
    import subprocess
    import sys

    from vikingsim.core.cache import PACKAGE

    path = os.pathsep.join(filter(None, [str(PACKAGE.parent), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir, "PYTHONPATH": path}
    p = subprocess.run([sys.executable, "-c", _FIRST_RUN, spec.name, json.dumps(run)],
                       capture_output=True, text=True, env=env, check=True)
    return json.loads(p.stdout.strip().splitlines()[-1])


def bench_compile(games=None, *, options: dict | None = None, players: int | None = None,
                  policies=None) -> list[dict]:
    """One row per configuration: ``compile_s``/``compile_cpu_s`` (wall/CPU seconds of the
    first run with an empty numba cache) and ``cached_s`` (wall seconds of the same start
    once the cache holds the kernels); see the module docstring."""
    import tempfile

    rows = []
    for spec, run in _configs(games, options, players, policies):
        with tempfile.TemporaryDirectory(prefix="vikingsim-compile-") as folder:
            cold = _first_run(spec, run, folder)
            warm = _first_run(spec, run, folder)
        rows.append({"game": spec.name, "options": run["options"], "players": run["players"],
                     "policies": _labels(spec, run), "compile_s": cold["wall_s"],
                     "compile_cpu_s": cold["cpu_s"], "cached_s": warm["wall_s"]})
    return rows


def markdown_compile(rows) -> str:
    """Markdown table of ``bench_compile`` rows."""
    out = ["| game | config | first run, empty cache (s) | its CPU (s) | from the cache (s) |",
           "|---|---|---:|---:|---:|"]
    for r in rows:
        out.append(f"| {r['game']} | {_config_text(r)} | {r['compile_s']:.1f} | "
                   f"{r['compile_cpu_s']:.1f} | {r['cached_s']:.2f} |")
    out.append(machine())
    return "\n".join(out)


def machine() -> str:
    """One line: CPUs, load average, Python, numpy and numba versions (figures move with load)."""
    import os
    import platform

    import numba
    import numpy

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (f"machine: {os.cpu_count()} CPUs, load average {load:.2f}, Python "
            f"{platform.python_version()}, numpy {numpy.__version__}, numba {numba.__version__}")


def _config_text(r) -> str:
    from vikingsim.games import get

    cfg = ", ".join(f"{k}={v}" for k, v in r["options"].items()) or "defaults"
    if r.get("players"):
        cfg += f", {r['players']} players"
    pols = r.get("policies") or []
    if any(p != get(r["game"]).default_policy for p in pols):
        cfg += f", policies {' / '.join(dict.fromkeys(pols))}"
    return cfg


def markdown_table(rows) -> str:
    out = ["| game | config | kernel 1 thread (games/s) | kernel 2 threads | 2t/1t | "
           "reference (games/s) | kernel 1t / reference | draws/game | RNG limit 1t "
           "(games/s) | kernel / RNG limit | first call (s) |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        out.append(f"| {r['game']} | {_config_text(r)} | {r['kernel_1t']:,.0f} | "
                   f"{r['kernel_2t']:,.0f} | "
                   f"{r['threads_ratio']:.2f} | {r['reference']:,.0f} | {r['speedup_1t']:,.0f}x | "
                   f"{r['dice_draws_per_game'] + r['policy_draws_per_game']:,.1f} | "
                   f"{r['rng_limit_1t']:,.0f} | {r['of_rng_limit']:.0%} | "
                   f"{r['first_call_s']:.1f} |")
    one = [f"{r['game']} ({_config_text(r)})" for r in rows if r.get("blocks_2t", 2) < 2]
    if one:
        out.append(f"\nOne RNG block timed (fewer games than 2 x the game's block size), so "
                   f"2 threads cannot beat 1 (a larger `--seconds` gives a 2-thread "
                   f"figure): {'; '.join(one)}.")
    if rows:
        out.append(f"\nRNG limit: {rows[0]['d6_per_s_1t'] / 1e6:,.0f} million d6/s on one "
                   f"thread (a compiled loop that only draws), in the same run.")
    out.append(machine())
    return "\n".join(out)


def markdown_exact(rows) -> str:
    """Markdown table of ``bench_exact`` rows."""
    out = ["| game | config | first call (s) | median (ms) | max (ms) | calls |",
           "|---|---|---:|---:|---:|---:|"]
    for r in rows:
        if "error" in r:
            out.append(f"| {r['game']} | {_config_text(r)} | — | — | — | {r['error']} |")
            continue
        out.append(f"| {r['game']} | {_config_text(r)} | {r['first_call_s']:.2f} | "
                   f"{r['median_s'] * 1000:,.1f} | {r['max_s'] * 1000:,.1f} | {r['calls']} |")
    out.append(machine())
    return "\n".join(out)
