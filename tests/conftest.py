"""Shared test helpers: the command line run in this process, and kernels compiled once.

``run_cli`` calls ``vikingsim.cli.main`` (what ``python -m vikingsim`` runs, after
``sys.exit``) with stdout and stderr captured, so a test of a command's output or of its
one-line error costs no new interpreter (about 1.7 s of CPU each: importing numpy, numba,
pandas and loading the kernels again). A traceback cannot hide here: an exception that
escapes ``main`` fails the test. Tests of what only a separate process shows (signals, memory
growth, the ``-m vikingsim`` entry itself) still start one.

Under pytest-xdist (the README's ``pytest -n 2``) each worker is a process of its own and
loads every kernel; with a cold numba cache (any kernel file edited) both workers used to
compile the same kernels side by side, so the slowest compile (Ragnarok's) was paid twice at
once. ``_shared_warm_up`` plays one throw-away game of every game's default and bench
configurations at the start of each worker, one group at a time under a lock file (a group:
one game's configurations that share kernels, see ``_warm_groups``): a worker skips a group
the other is compiling, compiles another, and comes back to load the first from numba's
cache; then one game with a search seat for every game that has search players (their own
kernels, compiled once, not by both workers at once), then one call of every exact solver
(878's are compiled kernels too). A plain
``pytest`` run (no xdist) skips this, so running one file compiles only the kernels that
file uses.
"""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import io
import os
import subprocess
import tempfile
from pathlib import Path

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


#: The search kernels (``games/<game>/search.py`` and ``forward.py``, flat Monte Carlo and
#: ISMCTS in one call graph) are compiled by one game with a ``flatmc`` seat; rollouts=1
#: keeps that game short. Without this, the two workers compiled them side by side whenever
#: both reached a search test at once (Ragnarok's: 9 minutes of wall time under load).
_SEARCH_SEAT = "flatmc(rollouts=1)"
#: The exact solvers (``GameSpec.odds`` and ``.optimal``) are warmed too, on the defaults and
#: on the configurations below: 878's are compiled kernels (``exact.py``, and with Runes and
#: Prayer the DP of ``optimal_rp.py``, here on its docstring's smallest battle: the same
#: signatures as any battle, 9 s of compiling and no solving), which the battle878, bench,
#: experiment and importance tests and the 878 notebook's kernel all reach; a cold cache
#: used to compile them in whichever worker (or notebook kernel) got there first, in both
#: when two got there at once. Not warmed: the kernel pieces a forced-dice or forward-model
#: test calls directly (31 functions after a full run, e.g. ``_resolve_hit``,
#: ``forward.decode``), each compiled by the one file that calls it.
_SOLVERS = ("odds", "optimal")
_SOLVER_OPTIONS = {("battle878", "optimal"): [{"runes_prayer": True, "norsemen": 1,
                                              "berserkers": 0, "housecarls": 0, "thegns": 1}]}


def _warm_configs():
    """(game, options, what) of every registered game's default and bench configurations
    (what None: the default policies), each once (a bench configuration may be the default,
    as raidconquer's ``{}``), then one game with a search seat for every game that has one
    (what: that seat's policies), then every exact solver (what: ``odds`` or ``optimal``)."""
    from vikingsim.games import get, names

    out = []
    for g in names():
        for c in [{}, *get(g).bench_configs]:
            if (g, dict(c), None) not in out:
                out.append((g, dict(c), None))
    for g in names():
        if "flatmc" in get(g).policy_types:
            out.append((g, {}, _SEARCH_SEAT))
    for g in names():
        for solver in _SOLVERS:
            if getattr(get(g), solver, None) is not None:
                out += [(g, c, solver) for c in [{}, *_SOLVER_OPTIONS.get((g, solver), [])]]
    return out


def _warm_groups():
    """``_warm_configs`` grouped by (game, what), in order: a game's default and bench
    configurations compile one kernel, so they are warmed under one lock by one worker (with
    a lock per configuration, one worker compiled raidconquer's kernel for ``{}`` while the
    other compiled it again for ``character_offset=1``: 190 s of CPU twice, cold cache)."""
    groups: dict = {}
    for game, options, what in _warm_configs():
        groups.setdefault((game, what), []).append(options)
    return list(groups.items())


def _warm(game: str, options: dict, what: str | None = None) -> None:
    """One throw-away game (the warm-up streams, never a run's) with policies ``what``, or
    one call of the exact solver ``what``: compiles or loads its kernels."""
    from vikingsim.core.options import resolve
    from vikingsim.core.runner import play_throwaway, resolve_policies
    from vikingsim.games import get

    spec = get(game)
    opts = resolve(spec.name, spec.options, options)
    if what in _SOLVERS:
        getattr(spec, what)(opts)
        return
    play_throwaway(spec, spec.setup(opts, *resolve_policies(spec, what, None)))


def _lock_path(game: str, what: str | None = None) -> Path:
    key = f"{Path(__file__).resolve().parent}|{game}|{what}"
    return Path(tempfile.gettempdir()) / f"vikingsim-warm-{hashlib.sha1(key.encode()).hexdigest()[:16]}.lock"


def _warm_under_lock(group, block: bool) -> bool:
    """Warm every configuration of ``group`` ((game, what), [options, ...]) holding its lock
    file; False when another worker holds it and ``block`` is False. A failing warm-up is
    left for the tests to report."""
    (game, what), configs = group
    with open(_lock_path(game, what), "w") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | (0 if block else fcntl.LOCK_NB))
        except BlockingIOError:
            return False
        try:
            for options in configs:
                with contextlib.suppress(Exception):   # the game's own tests say what is wrong
                    _warm(game, options, what)
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)
    return True


@pytest.fixture(scope="session", autouse=True)
def _shared_warm_up():
    """Under xdist only: every kernel compiled once across the workers (see module doc)."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    pending = _warm_groups()
    while pending:
        left = [g for g in pending if not _warm_under_lock(g, block=False)]
        if len(left) == len(pending):      # all held by the other worker: wait for one
            _warm_under_lock(left.pop(0), block=True)
        pending = left


def pytest_configure(config):
    """``pytest -n 2`` (the README's command) schedules by work stealing: each worker starts on
    one contiguous half of the suite (a module's tests stay together, so a module-scoped
    fixture is built once, not once per worker) and a worker that runs dry takes half of what
    the other has left, so the run does not end on one worker while the other idles. An
    explicit ``--dist`` is kept; without xdist (``-p no:xdist``) this does nothing."""
    opt = config.option
    explicit = any(a == "--dist" or a.startswith("--dist=")
                   for a in config.invocation_params.args)
    if getattr(opt, "dist", "no") == "load" and not getattr(opt, "distload", False) \
            and not explicit:
        opt.dist = "worksteal"


# ---- real study runs, once per session ---------------------------------------------------------
def _reference_games(spec, setup, seed, g0, g1, out, *, spawn_prefix=(), threads=1):
    """``core.runner.play_games`` by the plain-Python reference engine (bit-identical to the
    kernel on the same streams; no compiling, for a few games of every game)."""
    from vikingsim.core import runner as R

    R._play_segment(R._with_game0(spec, spec.reference_block, g0), setup, seed,
                    spec.block_games, g0, g1, out, None, 1, R._NoBar(), spawn_prefix)
    return out


@pytest.fixture(scope="session")
def study_run(tmp_path_factory):
    """``study_run(toml_text, reference=False)``: the folder of that study file run by the
    study runner (``studies.run.run_study``, one worker), run once per session and shared:
    read it, or copy it before changing it. ``reference=True`` plays the games with the
    plain-Python reference engine instead of the compiled kernel (the same games)."""
    import tomllib

    from vikingsim.studies.run import run_study

    cache = {}

    def run(text: str, *, reference: bool = False) -> Path:
        key = (text, reference)
        if key not in cache:
            root = tmp_path_factory.mktemp("study")
            name = tomllib.loads(text)["name"]
            (root / f"{name}.toml").write_text(text)
            with pytest.MonkeyPatch.context() as mp:
                if reference:
                    mp.setattr("vikingsim.core.runner.play_games", _reference_games)
                run_study(root / f"{name}.toml", root / name, workers=1)
            cache[key] = root / name
        return cache[key]

    return run


# ---- one Dask cluster per test process ---------------------------------------------------------
@pytest.fixture(scope="session")
def dask_cluster():
    """A ``LocalCluster`` of 2 single-threaded worker processes, shared by every test of this
    process that runs a study on ``--backend dask --scheduler ADDRESS`` (each test used to
    start its own: 2 new interpreters importing vikingsim and loading the kernel, 5 times a
    run). Made with the runner's quiet Dask settings (``backends.QUIET_DASK``: an idle
    cluster then costs 1.5% of a core, not 11%) and the scheduler's HTTP routes on a free local
    port (8787 may be taken by another run): the very cluster ``--backend dask`` makes."""
    from vikingsim.studies.backends import _local_cluster

    cluster = _local_cluster(2)
    with cluster:
        yield cluster
