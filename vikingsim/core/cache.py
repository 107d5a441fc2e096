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


# --- Stale kernels (numba caches per function file) -------------------------------------------
# numba checks a cached kernel only against the stamp (mtime, size) of the file that defines
# it: a kernel that calls or inlines code from another file (search.py calling kernel.py and
# forward.py) keeps the old machine code after that other file changes. So the whole package's
# stamp is kept beside the cache, and when any source file changed every vikingsim kernel is
# dropped and compiled afresh. Written by hand: numba has no option for it (its pull requests
# #8396 / #9563, "Extend cache invalidation to include changes in other files", are not merged).

#: name of the stamp file kept in the cache folder
STAMP_NAME = "vikingsim-sources.stamp"


def sources_stamp(folder: Path = PACKAGE) -> str:
    """One text naming every ``.py`` file of the package with its mtime and size (numba's own
    stamp, taken package-wide; reading the stats of ~120 files costs about a millisecond)."""
    import hashlib

    h = hashlib.sha256()
    for path in sorted(folder.rglob("*.py")):
        st = path.stat()
        h.update(f"{path.relative_to(folder)}\0{st.st_mtime_ns}\0{st.st_size}\n".encode())
    return h.hexdigest()


def drop_stale(chosen: str | None, folder: Path = PACKAGE) -> int:
    """Delete every cached kernel (``*.nbi`` index, ``*.nbc`` data) of the package when any
    of its source files changed since the stamp was written, then write the new stamp.
    ``chosen`` is what :func:`choose` returned: the per-user folder, or None (numba's default
    ``__pycache__`` beside the sources). A ``NUMBA_CACHE_DIR`` the user set is left alone (it
    may hold other programs' kernels). Returns how many files were deleted. A process that
    loses a race with another one only recompiles: numba treats a vanished file as a miss."""
    if chosen is None and os.environ.get("NUMBA_CACHE_DIR"):
        return 0
    root = Path(chosen) if chosen else folder / "__pycache__"
    stamp_file = root / STAMP_NAME
    stamp = sources_stamp(folder)
    try:
        if stamp_file.read_text() == stamp:
            return 0
    except OSError:
        pass
    base = Path(chosen) if chosen else folder
    dropped = 0
    for pattern in ("*.nbi", "*.nbc"):
        for path in base.rglob(pattern):
            try:
                path.unlink()
                dropped += 1
            except OSError:
                pass
    try:
        root.mkdir(parents=True, exist_ok=True)
        tmp = root / f".{STAMP_NAME}.{os.getpid()}.tmp"
        tmp.write_text(stamp)
        os.replace(tmp, stamp_file)
    except OSError:
        pass                           # not writable: numba cannot cache there either
    return dropped
