"""Random streams (style rule 3): one root seed, one Generator per (stream, block).

Block ``b`` of a run uses ``default_rng(SeedSequence(seed, spawn_key=(stream, b)))``. Blocks have a
fixed size (``config.BLOCK_GAMES``), so game ``g`` always sees the same numbers whatever the thread
count or scheduling chunk, and the first N games of a longer run equal a run of N games.
Dice and policy decisions use separate streams, so policies compare on common random numbers.
A study (``vikingsim.studies``) keys cell ``c`` by a spawn-key prefix: block ``b`` of cell ``c``
uses ``SeedSequence(seed, spawn_key=(c, stream, b))`` (``prefix=(c,)``); a plain run has none.
"""
import numpy as np

from vikingsim.core import config
from vikingsim.core.jit import jit

STREAM_DICE, STREAM_POLICY = 0, 1  # append only: renumbering changes every result
#: Streams of the runner's throw-away warm-up game (compiles the kernel; never a run's games).
STREAM_WARMUP = 2


def block_bounds(n_games: int, block_games: int = config.BLOCK_GAMES) -> np.ndarray:
    """Start of every block plus ``n_games``: block b is ``bounds[b]:bounds[b+1]``."""
    return np.append(np.arange(0, n_games, block_games), n_games).astype(np.int64)


def block_generator(seed: int, stream: int, block: int, prefix: tuple = ()) -> np.random.Generator:
    """The Generator of ``stream`` for ``block`` of a run rooted at ``seed`` (spawn key
    ``(*prefix, stream, block)``)."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(*prefix, stream, block)))


def trace_streams(seed: int, game_id: int, block_games: int):
    """``(dice, policy, offset)`` for telling game ``game_id`` of a run rooted at ``seed``: the
    two Generators of its block, and how many earlier games of that block a trace must replay
    silently (drawing their numbers) before game ``game_id`` starts."""
    block, offset = divmod(game_id, block_games)
    return (block_generator(seed, STREAM_DICE, block),
            block_generator(seed, STREAM_POLICY, block), offset)


def reseed(gen: np.random.Generator, seed: int, stream: int, block: int,
           prefix: tuple = ()) -> np.random.Generator:
    """Put ``gen`` in the state ``block_generator(seed, stream, block, prefix)`` starts in, and
    return it: the same numbers, without a new Generator object. Kernels are handed reused
    Generators because numba leaks about 2.7 kB for every *new* Generator object passed to a
    compiled function (measured: 20,000 blocks grew a process by 108 MB; reusing two objects,
    2 MB)."""
    gen.bit_generator.state = np.random.PCG64(
        np.random.SeedSequence(seed, spawn_key=(*prefix, stream, block))).state
    return gen


@jit(inline="always")
def _d6(rng):
    """One d6 from a Generator: the reference engines use the same expression (style rule 4)."""
    return 1 + int(rng.random() * 6.0)


def d6(rng) -> int:
    """Plain-Python twin of the kernel ``_d6``: same draw, same value."""
    return 1 + int(rng.random() * 6.0)
