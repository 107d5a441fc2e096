"""Shared test helpers: the command line run in this process.

``run_cli`` calls ``vikingsim.cli.main`` (what ``python -m vikingsim`` runs, after
``sys.exit``) with stdout and stderr captured, so a test of a command's output or of its
one-line error costs no new interpreter (about 1.7 s of CPU each: importing numpy, numba,
pandas and loading the kernels again). A traceback cannot hide here: an exception that
escapes ``main`` fails the test. Tests of what only a separate process shows (signals, memory
growth, the ``-m vikingsim`` entry itself) still start one.
"""
from __future__ import annotations

import contextlib
import io
import subprocess

import pytest


def run_cli(*args: str) -> subprocess.CompletedProcess:
    """``vikingsim ARGS`` in this process: returncode, stdout and stderr as text, like
    ``subprocess.run(..., capture_output=True, text=True)``."""
    from vikingsim.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as e:            # argparse: --help, --version, usage errors
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
    return subprocess.CompletedProcess(["vikingsim", *args], code or 0, out.getvalue(),
                                       err.getvalue())


@pytest.fixture
def cli():
    """The in-process command line (``run_cli``)."""
    return run_cli
