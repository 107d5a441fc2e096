"""The one jit decorator (style rule 10): cache, nogil, no fastmath, disable switch.

The cache folder is chosen before numba is imported (``core/cache.py``: beside the sources,
or a per-user folder when the package folder is not writable)."""
from vikingsim.core import cache, config

if not config.DISABLE_JIT:
    cache.choose()

import numba  # noqa: E402  (after cache.choose: numba reads NUMBA_CACHE_DIR when imported)


def jit(fn=None, *, parallel=False, inline="never", nrt=True):
    """Compile ``fn`` with numba (``cache=True, nogil=True``) unless VIKINGSIM_DISABLE_JIT=1.

    ``nrt=False`` compiles without numba's reference counting: every array passed between
    kernels otherwise costs atomic increments/decrements (measured: a third of the raid board's
    time). Such kernels must not allocate; their callers pass scratch arrays in.
    """

    def wrap(f):
        if config.DISABLE_JIT:
            return f
        return numba.njit(f, cache=True, nogil=True, parallel=parallel, inline=inline,
                          _nrt=nrt)

    return wrap if fn is None else wrap(fn)
