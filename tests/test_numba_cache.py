"""The numba cache of a read-only install (issue 19 §4): a copy of the package with every
file and folder ``chmod a-w`` caches its kernels in the per-user folder, says so once on
stderr, and writes nothing into the package.

Tests may run as root, for whom ``chmod`` stops no write: the subprocess then also gets the
documented hook ``VIKINGSIM_PACKAGE_READONLY=1`` (``core/cache.py``), so the test checks the
fallback either way; as another user the read-only copy alone triggers it."""
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from vikingsim.core import cache

ROOT = Path(__file__).resolve().parents[1]
NOTE = "is not writable: compiled kernels are cached in"
#: One small ``@jit`` kernel of the package compiled and called (``core/jit.py`` chooses the
#: cache folder on import, for every kernel alike): a game's kernel took 20 s of CPU to
#: compile here, more than 100 s on the loaded test machine, for the same check.
SMALL_KERNEL = ("import numpy as np\nfrom vikingsim.core import cards\n"
                "assert cards._push(np.zeros(2, np.int16), 0, 7) == 1")


def _read_only_copy(tmp_path) -> Path:
    pkg = tmp_path / "install"
    shutil.copytree(ROOT / "vikingsim", pkg / "vikingsim",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for path in [*pkg.rglob("*"), pkg]:
        mode = path.stat().st_mode
        path.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    return pkg


def _simulate(pkg, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(pkg), "HOME": str(tmp_path / "home"),
           "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env.pop("NUMBA_CACHE_DIR", None)
    env.pop("VIKINGSIM_DISABLE_JIT", None)
    if os.geteuid() == 0:
        env[cache.READONLY_ENV] = "1"
    return subprocess.run([sys.executable, "-c", SMALL_KERNEL], capture_output=True, text=True,
                          env=env, cwd=tmp_path)


@pytest.mark.slow
def test_read_only_install_caches_in_the_user_folder_and_says_so_once(tmp_path):
    pkg = _read_only_copy(tmp_path)
    try:
        first, second = _simulate(pkg, tmp_path), _simulate(pkg, tmp_path)
        assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
        folder = tmp_path / "cache" / "vikingsim" / "numba"
        notes = [line for line in first.stderr.splitlines() if NOTE in line]
        assert len(notes) == 1 and str(folder) in notes[0], first.stderr
        assert NOTE not in second.stderr                  # once: when the folder is made
        assert any(folder.rglob("*.nbi")) and any(folder.rglob("*.nbc"))
        assert not any(pkg.rglob("*.nbi")) and not any(pkg.rglob("*.nbc"))
    finally:
        for path in [pkg, *pkg.rglob("*")]:
            path.chmod(path.stat().st_mode | stat.S_IWUSR)


def test_writability_is_a_real_probe(tmp_path, monkeypatch):
    monkeypatch.delenv(cache.READONLY_ENV, raising=False)
    assert cache.package_writable(tmp_path)
    monkeypatch.setenv(cache.READONLY_ENV, "1")
    assert not cache.package_writable(tmp_path)
    monkeypatch.delenv(cache.READONLY_ENV)
    other = tmp_path / "other"
    other.mkdir()
    (other / "__pycache__").write_text("a file where the folder should be")
    assert os.access(other, os.W_OK) and not cache.package_writable(other)   # the probe says no


def test_a_users_numba_cache_dir_is_left_alone(monkeypatch, tmp_path):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "mine"))
    monkeypatch.setenv(cache.READONLY_ENV, "1")
    assert cache.choose() is None and os.environ["NUMBA_CACHE_DIR"] == str(tmp_path / "mine")
