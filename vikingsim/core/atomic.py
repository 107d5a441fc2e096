"""Atomic writes: a file (or a folder of files) is written under a hidden temp name in its own
folder, fsynced, renamed onto its final name with ``os.replace`` and the folder fsynced, so a
reader never sees a half-written file under its final name and a crash or a full disk leaves
the previous file as it was. Used by plain ``simulate --out`` runs (``core.results``), study
folders (``studies.dataset``), tournament result sets and reports.

Errors are OSError (callers that face a user turn them into one-line InputErrors)."""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path


def temp_name(path) -> Path:
    """Hidden temp file beside ``path`` (same folder, so the same file system): it starts with
    a dot (pyarrow's dataset reader skips it), holds ``.tmp`` and keeps the suffix (writers
    such as matplotlib choose the format by it); short enough for any name the folder
    allows."""
    path = Path(path)
    return path.with_name(f".{path.stem[:40]}.{os.getpid()}.tmp{path.suffix}")


def fsync_file(path) -> None:
    with open(path, "rb") as f:
        os.fsync(f.fileno())


def fsync_dir(folder) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def commit(tmp, path) -> Path:
    """Put the finished temp file ``tmp`` in place: fsync it, ``os.replace`` it onto ``path``,
    fsync the folder."""
    path = Path(path)
    fsync_file(tmp)
    os.replace(tmp, path)
    fsync_dir(path.parent if str(path.parent) else Path("."))
    return path


def discard(tmp) -> None:
    """Remove a temp file if it is there (after a failure)."""
    tmp = Path(tmp)
    if tmp.exists():
        tmp.unlink()


def atomic_write(path, write) -> Path:
    """``write(tmp)`` into :func:`temp_name` of ``path``, then :func:`commit`; any failure
    (an OSError, Ctrl-C) removes the temp file and leaves ``path`` as it was."""
    path = Path(path)
    tmp = temp_name(path)
    try:
        write(tmp)
        return commit(tmp, path)
    finally:
        discard(tmp)


def write_folder(out, files: dict) -> list[Path]:
    """A result set written as a whole: ``files`` maps each name to ``write(path)``; all are
    written into a hidden temp folder beside ``out`` (same parent, so the same file system),
    each file and the folder fsynced, then the folder renamed to ``out``. An existing ``out``
    is first renamed aside and removed only once the new one is in place, so ``out`` always
    holds one whole result set, the old or the new (a crash between the two renames leaves
    the old one under its hidden ``.<name>.*.old`` name). Any failure (a full disk, Ctrl-C)
    removes the temp folder and leaves ``out`` as it was."""
    given = Path(out)
    out = Path(os.path.abspath(given))
    parent = out.parent
    stem = f".{out.name[:40]}."
    parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=stem, suffix=".tmp", dir=parent))
    try:
        for name, write in files.items():
            write(tmp / name)
            fsync_file(tmp / name)
        fsync_dir(tmp)
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=stem, suffix=".old", dir=parent))
            os.replace(out, old)                 # onto the empty placeholder folder
            try:
                os.rename(tmp, out)
            except BaseException:
                os.replace(old, out)
                raise
            fsync_dir(parent)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.rename(tmp, out)
        fsync_dir(parent)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return [given / name for name in files]
