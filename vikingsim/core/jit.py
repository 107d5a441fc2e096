"""The one jit decorator (style rule 10): cache, nogil, no fastmath, disable switch.

The cache folder is chosen before numba is imported (``core/cache.py``: beside the sources,
or a per-user folder when the package folder is not writable)."""
from vikingsim.core import cache, config

if not config.DISABLE_JIT:
    cache.drop_stale(cache.choose())

import numba  # noqa: E402  (after cache.choose: numba reads NUMBA_CACHE_DIR when imported)


def jit(fn=None, *, parallel=False, inline="never", nrt=True, internal=False):
    """Compile ``fn`` with numba (``cache=True, nogil=True``) unless VIKINGSIM_DISABLE_JIT=1.

    ``nrt=False`` compiles without numba's reference counting: every array passed between
    kernels otherwise costs atomic increments/decrements (measured: a third of the raid board's
    time). Such kernels must not allocate; their callers pass scratch arrays in.

    ``inline``: ``"never"`` (a real call unless LLVM inlines it), ``"always"`` (numba inlines
    the function's IR at every call site, then types the grown caller again: costly for big
    callers), ``"llvm"`` (compiled once, then inlined by LLVM at every call site, numba's
    ``forceinline``: no call cost, a fraction of the compile time of ``"always"``).
    ``internal=True``: called only from other compiled functions, so no CPython and C
    wrappers are built (each would unbox every argument: most of a small function's compile
    time when it takes a State of dozens of arrays); calling it from Python fails.
    """

    def wrap(f):
        if config.DISABLE_JIT:
            return f
        extra = {"no_cpython_wrapper": True, "no_cfunc_wrapper": True} if internal else {}
        if inline == "llvm":
            inline_, extra["forceinline"] = "never", True
        else:
            inline_ = inline
        return numba.njit(f, cache=True, nogil=True, parallel=parallel, inline=inline_,
                          _nrt=nrt, **extra)

    return wrap if fn is None else wrap(fn)
