"""Orchestration (style rule 1): plan RNG blocks, build streams, allocate, run the game's kernel
over blocks on a thread pool (kernels release the GIL), and wrap the arrays in a ``Result``."""
from __future__ import annotations

import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from vikingsim.core import config, rng
from vikingsim.core.errors import InputError
from vikingsim.core.game import GameSpec
from vikingsim.core.options import resolve
from vikingsim.core.results import Result

MAX_GAMES = 2_000_000_000


def check_count(name: str, value, lo: int, hi: int) -> int:
    """An integer in [lo, hi] (numpy integers accepted, bools and floats not) or InputError."""
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise InputError(f"{name} must be an integer in [{lo}, {hi}], got {value!r}")
    value = int(value.__index__())
    if not lo <= value <= hi:
        raise InputError(f"{name} must be an integer in [{lo}, {hi}], got {value}")
    return value


def resolve_policies(spec: GameSpec, policies, players: int | None) -> tuple[list[str], int]:
    """One policy name per seat: a single name is used for every seat; None uses the default."""
    lo, hi, default_players = spec.players
    if isinstance(policies, str):
        policies = [policies]
    policies = list(policies or [])
    if players is None:
        players = len(policies) if len(policies) > 1 else default_players
    if isinstance(players, bool) or not hasattr(players, "__index__") or not lo <= players <= hi:
        span = f"exactly {lo}" if lo == hi else f"{lo} to {hi}"
        raise InputError(f"{spec.name} takes {span} players, got {players!r}")
    players = int(players)
    if not policies:
        policies = [spec.default_policy]
    if len(policies) == 1:
        policies = policies * players
    if len(policies) != players:
        raise InputError(
            f"{len(policies)} policies given for {players} players; give one, or one per seat"
        )
    for p in policies:
        if p not in spec.policies:
            raise InputError(
                f"unknown policy {p!r} for {spec.name}; allowed: {', '.join(spec.policies)}"
            )
    return policies, players


def simulate(game, n: int = 100_000, *, seed: int = config.SEED, players: int | None = None,
             policies=None, options: dict | None = None, threads: int | None = None,
             chunk_blocks: int = 1, reference: bool = False, progress: bool = False,
             **option_kwargs) -> Result:
    """Play ``n`` games of ``game`` and return a :class:`Result`.

    Parameters
    ----------
    game : str or GameSpec
        Registered game name (``vikingsim.games.names()``).
    n : int
        Number of games (>= 1).
    seed : int
        Root seed (>= 0); same seed and options give the same games for any ``threads``
        and ``chunk_blocks``.
    players : int, optional
        Seat count (default: the game's default, or the number of policies given).
    policies : str or list of str, optional
        One policy name for every seat, or one per seat.
    options : dict, optional
        Game options (``vikingsim games`` lists them); keyword arguments are merged in.
    threads : int, optional
        Worker threads (default: all cores).
    chunk_blocks : int
        RNG blocks per scheduled task (scheduling only; results do not depend on it).
    reference : bool
        Use the plain-Python reference engine instead of the compiled kernel.
    progress : bool
        Show a progress bar on stderr.

    Examples
    --------
    >>> from vikingsim import simulate
    >>> res = simulate("raidboard", n=10_000, seed=1, players=4)
    >>> res.summary["win_rate"]          # doctest: +SKIP
    """
    from vikingsim.games import get

    spec = game if isinstance(game, GameSpec) else get(game)
    n = check_count("n", n, 1, MAX_GAMES)
    seed = check_count("seed", seed, 0, 2**63 - 1)
    threads = (os.cpu_count() or 1) if threads is None else check_count("threads", threads, 1, 256)
    chunk_blocks = check_count("chunk_blocks", chunk_blocks, 1, 1_000_000)
    opts = resolve(spec.name, spec.options, {**(options or {}), **option_kwargs})
    pols, players = resolve_policies(spec, policies, players)
    setup = spec.setup(opts, pols, players)
    out = spec.allocate(setup, n)
    bounds = rng.block_bounds(n, spec.block_games)
    n_blocks = len(bounds) - 1
    play = spec.reference_block if reference else spec.play_block

    def run_chunk(first_block: int) -> int:
        done = 0
        for b in range(first_block, min(first_block + chunk_blocks, n_blocks)):
            g0, g1 = int(bounds[b]), int(bounds[b + 1])
            play(setup, g0, g1, rng.block_generator(seed, rng.STREAM_DICE, b),
                 rng.block_generator(seed, rng.STREAM_POLICY, b), out)
            done += g1 - g0
        return done

    bar = _progress_bar(n, spec.name) if progress else None
    t0 = time.perf_counter()
    chunks = range(0, n_blocks, chunk_blocks)
    if threads == 1 or n_blocks == 1:
        for c in chunks:
            k = run_chunk(c)
            if bar is not None:
                bar.update(k)
    else:
        with ThreadPoolExecutor(max_workers=threads) as pool:
            for k in pool.map(run_chunk, chunks):
                if bar is not None:
                    bar.update(k)
    elapsed = time.perf_counter() - t0
    if bar is not None:
        bar.close()
    return Result(spec=spec, setup=setup, out=out, n=n, seed=seed, players=players,
                  policies=pols, options=opts, elapsed_s=elapsed, threads=threads,
                  engine="reference" if reference else "kernel")


class _ProgressBar:
    """A one-line progress bar on stderr: games done, percent, games/s; cleared at the end."""

    def __init__(self, total: int, name: str, stream=None, min_interval: float = 0.2):
        self.total, self.name, self.done = total, name, 0
        self.stream = stream or sys.stderr
        self.t0 = self.last = time.perf_counter()
        self.min_interval, self.width = min_interval, 0
        self._draw()

    def _draw(self) -> None:
        frac = self.done / self.total
        rate = self.done / max(time.perf_counter() - self.t0, 1e-9)
        bar = "#" * int(frac * 20)
        line = (f"{self.name}: [{bar:<20}] {self.done:,}/{self.total:,} games "
                f"{frac:4.0%} {rate:,.0f}/s")
        self.stream.write("\r" + line.ljust(self.width))
        self.stream.flush()
        self.width = len(line)

    def update(self, k: int) -> None:
        self.done += k
        now = time.perf_counter()
        if now - self.last >= self.min_interval or self.done >= self.total:
            self.last = now
            self._draw()

    def close(self) -> None:
        self.stream.write("\r" + " " * self.width + "\r")
        self.stream.flush()


def _progress_bar(total: int, name: str):
    """A progress bar on stderr, only when stderr is a terminal."""
    if not sys.stderr.isatty():
        return None
    return _ProgressBar(total, name)
