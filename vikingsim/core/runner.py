"""Orchestration: plan RNG blocks, build streams, run the game's kernel over blocks on a thread
pool (kernels release the GIL), and wrap the outcome in a ``Result``.

A run is played in **segments** of about ``config.SEGMENT_GAMES`` games (whole RNG blocks).
Each segment's per-game arrays are reduced to the game's additive *tally* (counts, sums,
histograms), optionally written to Parquet, optionally kept, and then dropped, so memory stays
bounded for any ``n``. Segments change nothing in the results: game ``g`` always uses the
Generators of its RNG block, whatever the segment, thread count or scheduling chunk.
"""
from __future__ import annotations

import functools
import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from vikingsim.core import config, rng
from vikingsim.core.errors import InputError, warn
from vikingsim.core.game import GameSpec, lookup
from vikingsim.core.inputs import file_records
from vikingsim.core.options import resolve
from vikingsim.core.results import Result, ResultsWriter, add_tallies, out_bytes_per_game

MAX_GAMES = 10**12


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
    return [policy_label(spec, p) for p in policies], players


def seat_texts(policies, players: int) -> list:
    """The policy text of each seat as given (before :func:`resolve_policies` turns a file
    into its label): one text for every seat, or one per seat; [] for the default."""
    texts = [policies] if isinstance(policies, str) else list(policies or [])
    return texts * players if len(texts) == 1 else texts


def policy_label(spec: GameSpec, text) -> str:
    """Validate one policy text (``name``, ``name(k=v, ...)`` or a ``.toml`` file) and return
    its canonical label (``core.policies``); InputError naming the problem."""
    from vikingsim.core import policies

    name, params = policies.parse(text)
    if name not in spec.policies:
        raise InputError(
            f"unknown policy {name!r} for {spec.name}; allowed: {', '.join(spec.policies)}")
    if name in spec.policy_types:
        return policies.label(name, policies.build(spec.name, spec.policy_types, text))
    if params:
        raise InputError(f"policy {name} of {spec.name} takes no parameters")
    return name


def simulate(game, n: int = 100_000, *, seed: int = config.SEED, players: int | None = None,
             policies=None, options: dict | None = None, threads: int | None = None,
             chunk_blocks: int = 1, reference: bool = False, progress: bool = False,
             keep="auto", parquet=None, rule_columns: bool = False, announce: bool = False,
             segment_games: int | None = None, warn_truncated: bool = True,
             **option_kwargs) -> Result:
    """Play ``n`` games of ``game`` and return a :class:`Result`.

    Parameters
    ----------
    game : str or GameSpec
        Registered game name (``vikingsim.games.names()``).
    n : int
        Number of games (>= 1; up to 10**12: memory stays bounded, see ``keep``).
    seed : int
        Root seed (>= 0); same seed and options give the same games for any ``threads``,
        ``chunk_blocks`` and ``segment_games``.
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
        Show a progress bar on stderr (only when stderr is a terminal).
    keep : "auto", True or False
        Keep every game's arrays (``res.out``, ``res.frame``). ``"auto"`` keeps them when they
        fit in ``config.KEEP_BYTES``; otherwise only the running tally is kept (the summary is
        exact either way) and ``res.frame`` says the run was too big to hold whole.
    parquet : path, optional
        Write one row per game to this ``.parquet`` file while the run goes on (segment by
        segment, bounded memory), with the manifest embedded and ``<stem>.manifest.json`` beside.
    rule_columns : bool
        With ``parquet``: also store every option as ``rule_*``/``policy_*`` columns.
    announce : bool
        Say on stderr (when it is a terminal) that kernels are being compiled, once the warm-up
        game has taken ``config.COMPILE_NOTICE_S``.
    segment_games : int, optional
        Games per segment (default ``config.SEGMENT_GAMES``; results do not depend on it).
    warn_truncated : bool
        Warn on stderr when every game hit the safety cap (callers that run many lineups,
        like ``tournament``, turn it off and warn once themselves).

    Examples
    --------
    >>> from vikingsim import simulate
    >>> res = simulate("raidboard", n=10_000, seed=1, players=4)
    >>> res.summary["win_rate"]          # doctest: +SKIP
    """
    spec = lookup(game)
    n = check_count("n", n, 1, MAX_GAMES)
    seed = check_count("seed", seed, 0, 2**63 - 1)
    threads = (os.cpu_count() or 1) if threads is None else check_count("threads", threads, 1, 256)
    chunk_blocks = check_count("chunk_blocks", chunk_blocks, 1, 1_000_000)
    if keep not in ("auto", True, False):
        raise InputError(f"keep must be 'auto', True or False, got {keep!r}")
    opts = resolve(spec.name, spec.options, {**(options or {}), **option_kwargs})
    pols, players = resolve_policies(spec, policies, players)
    setup = spec.setup(opts, pols, players)
    files = file_records(opts, seat_texts(policies, players))
    keep = _decide_keep(spec, setup, n, keep)
    play = spec.reference_block if reference else spec.play_block
    seg = _segment_size(spec, segment_games)
    res = Result(spec=spec, setup=setup, out=spec.allocate(setup, n) if keep else None,
                 tally=None, n=n, seed=seed, players=players, policies=pols, options=opts,
                 elapsed_s=0.0, threads=threads, engine="reference" if reference else "kernel",
                 files=files)
    writer = None if parquet is None else ResultsWriter(parquet, rule_columns=rule_columns)
    try:
        res.compile_s = 0.0 if reference else _warm_up(spec, setup, play, announce)
        t0 = time.perf_counter()
        with _progress_bar(n, spec.name, progress) as bar:
            res.tally = _play_segments(spec, setup, play, res, seg, threads, chunk_blocks,
                                       writer, bar)
        res.elapsed_s = time.perf_counter() - t0
        if writer is not None:
            writer.commit(res.manifest)
    except BaseException:
        if writer is not None:
            writer.abort()
        raise
    if warn_truncated:
        _warn_if_all_truncated(res)
    return res


def _decide_keep(spec: GameSpec, setup, n: int, keep) -> bool:
    """Whether to hold every game's arrays; games without a tally must."""
    size = n * out_bytes_per_game(spec, setup)
    if keep == "auto":
        keep = size <= config.KEEP_BYTES
    if not keep and spec.tally is None:
        keep = True
    if keep and size > config.KEEP_LIMIT_BYTES:
        raise InputError(f"{n:,} games of {spec.name} need {size / 2**30:.1f} GiB to hold whole "
                         f"(limit {config.KEEP_LIMIT_BYTES / 2**30:.0f} GiB): use keep=False "
                         f"(summary only) or write them with parquet=PATH")
    return bool(keep)


def _segment_size(spec: GameSpec, segment_games: int | None) -> int:
    """Games per segment: a whole number of RNG blocks."""
    want = config.SEGMENT_GAMES if segment_games is None else check_count(
        "segment_games", segment_games, 1, MAX_GAMES)
    blocks = max(1, -(-want // spec.block_games))
    return blocks * spec.block_games


def _play_segments(spec, setup, play, res, seg, threads, chunk_blocks, writer, bar):
    """Play every segment; return the run's tally (or None for games without one)."""
    n, seed, tally = res.n, res.seed, None
    pool = ThreadPoolExecutor(max_workers=threads) if threads > 1 else None
    try:
        for s0 in range(0, n, seg):
            s1 = min(n, s0 + seg)
            out = ({k: v[s0:s1] for k, v in res.out.items()} if res.out is not None
                   else spec.allocate(setup, s1 - s0))
            part = _play_segment(_with_game0(spec, play, s0), setup, seed, spec.block_games, s0,
                                 s1, out, pool, chunk_blocks, bar, tally=spec.tally)
            if part is not None:
                tally = add_tallies(tally, part)
            if writer is not None:
                _write_segment(writer, res, out, s0)
    except BaseException:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
            pool = None
        raise
    finally:
        if pool is not None:
            pool.shutdown(wait=True)
    return tally


def _write_segment(writer, res, out, s0) -> None:
    """A segment's rows in slices of ``config.WRITE_ROWS`` (a frame is several times the size
    of the arrays it is made from)."""
    n = len(next(iter(out.values())))
    for a in range(0, n, config.WRITE_ROWS):
        part = {k: v[a:a + config.WRITE_ROWS] for k, v in out.items()}
        writer.write(res.segment_frame(part, s0 + a, with_options=writer.rule_columns))


def play_games(spec: GameSpec, setup, seed: int, g0: int, g1: int, out: dict, *,
               spawn_prefix: tuple = (), threads: int = 1) -> dict:
    """Games g0..g1 of the run keyed ``SeedSequence(seed, spawn_key=(*spawn_prefix, stream,
    block))`` into ``out`` (rows 0..g1-g0), by the compiled kernel; ``g0`` starts an RNG block.
    A study plays each chunk of a cell this way (``spawn_prefix=(cell,)``), so its games do
    not depend on how the cell is cut into chunks."""
    if g0 % spec.block_games:
        raise InputError(f"first game {g0} is not on an RNG block boundary "
                         f"({spec.block_games} games)")
    pool = ThreadPoolExecutor(max_workers=threads) if threads > 1 else None
    try:
        _play_segment(_with_game0(spec, spec.play_block, g0), setup, seed, spec.block_games,
                      g0, g1, out, pool, 1, _NoBar(), spawn_prefix)
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
    return out


def _with_game0(spec: GameSpec, play, s0: int):
    """``play`` told that ``out`` row 0 is the run's game ``s0``, for games whose options read
    the game id (``GameSpec.game_id_options``); rows are segment- or chunk-relative, ids not."""
    return functools.partial(play, game0=s0) if spec.game_id_options else play


def _play_segment(play, setup, seed, block_games, s0, s1, out, pool, chunk_blocks, bar,
                  prefix=(), tally=None):
    """Games s0..s1 (global ids, whole blocks) into ``out`` (rows 0..s1-s0); block ``b`` uses
    the streams of spawn key ``(*prefix, stream, b)``. With ``tally``: each chunk's worker
    tallies its own rows as soon as they are played (so the tally runs beside the other
    threads' games, not after them) and the segment's tally is returned; tallies are integer
    sums, so they do not depend on how the segment is cut into chunks."""
    b0, b1 = s0 // block_games, -(-s1 // block_games)

    def run_chunk(first: int):
        dice, pol = _thread_generators()
        last = min(first + chunk_blocks, b1)
        for b in range(first, last):
            g0, g1 = b * block_games, min(s1, (b + 1) * block_games)
            play(setup, g0 - s0, g1 - s0, rng.reseed(dice, seed, rng.STREAM_DICE, b, prefix),
                 rng.reseed(pol, seed, rng.STREAM_POLICY, b, prefix), out)
        r0, r1 = first * block_games - s0, min(s1, last * block_games) - s0
        part = None if tally is None else tally(setup, {k: v[r0:r1] for k, v in out.items()})
        return r1 - r0, part

    chunks = range(b0, b1, chunk_blocks)
    results = map(run_chunk, chunks) if pool is None or len(chunks) == 1 else \
        pool.map(run_chunk, chunks)
    total = None
    for k, part in results:
        bar.update(k)
        if part is not None:
            total = add_tallies(total, part)
    return total


_LOCAL = threading.local()


def _thread_generators():
    """This thread's two reusable Generators (reseeded per block; see ``rng.reseed``)."""
    if not hasattr(_LOCAL, "pair"):
        _LOCAL.pair = (np.random.default_rng(0), np.random.default_rng(0))
    return _LOCAL.pair


def play_throwaway(spec, setup, play=None) -> dict:
    """Per-game arrays of one throw-away game on the warm-up streams (never a run's streams):
    compiles the kernel, or probes what a summary holds, without changing any result."""
    out = spec.allocate(setup, 1)
    (play or spec.play_block)(setup, 0, 1, rng.block_generator(0, rng.STREAM_WARMUP, 0),
                              rng.block_generator(0, rng.STREAM_WARMUP, 1), out)
    return out


def _warm_up(spec: GameSpec, setup, play, announce: bool) -> float:
    """Play one throw-away game so the kernel is compiled (or loaded from numba's cache) before
    the timed run; return the seconds it took. Its streams are the warm-up stream, never a
    run's, and its output is discarded, so it changes no result."""
    note = threading.Timer(config.COMPILE_NOTICE_S, lambda: print(
        "vikingsim: compiling kernels (first run only; cached afterwards)...", file=sys.stderr,
        flush=True)) if announce and sys.stderr.isatty() else None
    t0 = time.perf_counter()
    if note is not None:
        note.start()
    try:
        play_throwaway(spec, setup, play)
    finally:
        if note is not None:
            note.cancel()
    return time.perf_counter() - t0


def _warn_if_all_truncated(res: Result) -> None:
    s = res.summary
    if s.get("p_truncated") == 1.0 or s.get("truncated") == res.n:
        warn(f"all {res.n:,} games hit the safety cap and were truncated (no result): "
             f"raise the cap option (max_rounds / max_rolls / max_turns) or check the options")


class _NoBar:
    def update(self, k: int) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _progress_bar(total: int, name: str, wanted: bool):
    """A tqdm bar on stderr, only when wanted and stderr is a terminal."""
    if not wanted or not sys.stderr.isatty():
        return _NoBar()
    import shutil

    from tqdm import tqdm

    cols, rows = shutil.get_terminal_size(fallback=(80, 24))
    # a terminal of unknown size (0 x 0) would make tqdm hide its bar: give it one
    return tqdm(total=total, desc=name, unit=" games", unit_scale=True, leave=False,
                file=sys.stderr, mininterval=0.2, ncols=min(cols or 80, 100), nrows=rows or 24)
