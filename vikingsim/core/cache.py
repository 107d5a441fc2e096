"""Where numba keeps the compiled kernels (``cache=True``, ``core/jit.py``).

By default numba writes them to ``__pycache__`` beside each kernel's source. When the package
folder is not writable (a shared or system install), :func:`choose` points numba at a per-user
folder instead (``NUMBA_CACHE_DIR`` = the platform's user cache directory + ``/numba``, e.g.
``~/.cache/vikingsim/numba`` on Linux, ``$XDG_CACHE_HOME/vikingsim/numba`` when that is set),
so only the first process compiles, and says so on stderr once: when it makes that folder.
A ``NUMBA_CACHE_DIR`` the user set is left alone.

Writability is tested as numba needs it: ``os.access`` and a real probe file in the package's
``__pycache__`` (``os.access`` alone says yes to root on a read-only mount). Root can write into
a ``chmod a-w`` folder, so a read-only copy of the package cannot show the fallback when the
tests run as root: ``VIKINGSIM_PACKAGE_READONLY=1`` makes :func:`package_writable` answer no
(a documented test hook; it changes where the cache goes, never a result).
"""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]
#: Test hook: "1" = treat the package folder as not writable.
READONLY_ENV = "VIKINGSIM_PACKAGE_READONLY"


def package_writable(folder: Path = PACKAGE) -> bool:
    """Whether numba can write its cache beside the package's sources."""
    if os.environ.get(READONLY_ENV) == "1" or not os.access(folder, os.W_OK):
        return False
    try:
        (folder / "__pycache__").mkdir(exist_ok=True)
        tempfile.TemporaryFile(dir=folder / "__pycache__").close()
    except OSError:
        return False
    return True


def user_cache_dir() -> Path:
    """The platform's per-user cache folder for vikingsim (``platformdirs``)."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("vikingsim", appauthor=False))


def choose() -> str | None:
    """Set ``NUMBA_CACHE_DIR`` to the per-user folder if the package folder is not writable
    (before numba is imported: ``core/jit.py`` calls this first). Returns the folder chosen,
    or None when numba's default (or the user's own ``NUMBA_CACHE_DIR``) stands."""
    if os.environ.get("NUMBA_CACHE_DIR") or package_writable():
        return None
    folder = user_cache_dir() / "numba"
    new = not folder.is_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None                    # numba then tries its own user-wide folder
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    if "numba" in sys.modules:         # imported before vikingsim: tell its config too
        sys.modules["numba"].config.CACHE_DIR = str(folder)
    if new:
        print(f"vikingsim: the package folder {PACKAGE} is not writable: compiled kernels "
              f"are cached in {folder}", file=sys.stderr)
    return str(folder)
