"""Stale kernels (core/cache.py ``drop_stale``): numba checks a cached kernel only against the
file that defines it, so a change to a file it calls (search.py calling kernel.py) would keep
old machine code. The package-wide stamp drops every cached kernel when any source changed.
Checked on a throw-away package folder: files are planted, not compiled (what is dropped is
decided by file names and stamps alone)."""
from __future__ import annotations

import os

from vikingsim.core import cache


def _package(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "games" / "__pycache__").mkdir(parents=True)
    (pkg / "games" / "kernel.py").write_text("x = 1\n")
    (pkg / "games" / "search.py").write_text("y = 2\n")
    return pkg


def _plant(pkg):
    cached = [pkg / "games" / "__pycache__" / f"search._decide-10.py311.{ext}"
              for ext in ("nbi", "nbc")]
    for path in cached:
        path.write_bytes(b"compiled")
    return cached


def test_a_change_to_any_source_drops_every_cached_kernel(tmp_path, monkeypatch):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    pkg = _package(tmp_path)
    cache.drop_stale(None, pkg)                          # first run: writes the stamp
    cached = _plant(pkg)
    assert cache.drop_stale(None, pkg) == 0              # nothing changed: kept
    assert all(p.exists() for p in cached)
    kernel = pkg / "games" / "kernel.py"                 # another file than search.py's
    kernel.write_text("x = 10\n")
    os.utime(kernel, ns=(1, 1))                          # a new stamp even within one tick
    assert cache.drop_stale(None, pkg) == 2
    assert not any(p.exists() for p in cached)
    assert (pkg / "__pycache__" / cache.STAMP_NAME).read_text() == cache.sources_stamp(pkg)


def test_the_per_user_folder_is_guarded_and_a_users_own_folder_left_alone(tmp_path, monkeypatch):
    pkg = _package(tmp_path)
    user = tmp_path / "user"
    (user / "games_abc").mkdir(parents=True)
    planted = user / "games_abc" / "search._decide-10.py311.nbi"
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    cache.drop_stale(str(user), pkg)
    planted.write_bytes(b"compiled")
    (pkg / "games" / "search.py").write_text("y = 3 # changed\n")
    assert cache.drop_stale(str(user), pkg) == 1 and not planted.exists()
    planted.write_bytes(b"someone else's")              # the user's own NUMBA_CACHE_DIR
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(user))
    (pkg / "games" / "search.py").write_text("y = 4 # changed again\n")
    assert cache.drop_stale(None, pkg) == 0 and planted.exists()


def test_import_checks_the_stamp():
    """jit.py runs the guard on import (before any kernel loads): the package's stamp file
    is the current one (unless the cache is elsewhere by the user's choice)."""
    import vikingsim.core.jit  # noqa: F401
    if os.environ.get("NUMBA_CACHE_DIR") or os.environ.get("VIKINGSIM_DISABLE_JIT") == "1":
        return
    assert (cache.PACKAGE / "__pycache__" / cache.STAMP_NAME).read_text() == \
        cache.sources_stamp()
