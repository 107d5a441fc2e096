"""Run a study: plan its chunks, play them on a backend, keep per-cell running summaries.

Each chunk is one call of :func:`play_chunk` (on a thread of this process, or on a Dask
worker): it plays its games with the compiled kernel on the cell's spawn-keyed streams and
writes its rows and tally files itself, atomically, then returns its tally. Workers write the
files (not the client) so that rows never travel through the scheduler; with a remote
cluster the output folder must be on a filesystem every worker sees at the same path.

The client adds each chunk's tally to its cell's running tally **in chunk order** (results
arriving early wait), so the running summaries, and the ``--stop-when-decided`` decisions
taken after each chunk, do not depend on timing: a decided cell schedules no more chunks,
and chunks beyond its deciding chunk that were already under way are deleted.
"""
from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from vikingsim.core.errors import InputError
from vikingsim.core.game import tally_counts
from vikingsim.core.inputs import changed_file
from vikingsim.core.results import add_tallies, package_versions
from vikingsim.studies import dataset as D
from vikingsim.studies.plan import (Cell, Chunk, changes, chunk_size, content_hash,
                                   plan_cells, plan_chunks, seed_prefix, study_content,
                                   study_hash)
from vikingsim.studies.spec import Study, load_study


@dataclass(frozen=True)
class ChunkTask:
    """Everything a worker needs to play and write one chunk (picklable)."""

    root: str
    game: str
    players: int
    policies: tuple
    options_json: str
    seed: int
    chunk: Chunk
    rows: bool
    meta: dict = field(hash=False)
    prefix: tuple = None             # spawn-key prefix (plan.seed_prefix); None: (cell,)


def play_chunk(task: ChunkTask) -> dict:
    """Play one chunk, write its rows (if kept) then its tally, atomically; return the tally."""
    from vikingsim.core import config
    from vikingsim.core.runner import play_games

    spec, setup = D.cell_setup(task.game, task.players, task.policies, task.options_json)
    c = task.chunk
    out = play_games(spec, setup, task.seed, c.first_game, c.first_game + c.games,
                     spec.allocate(setup, c.games),
                     spawn_prefix=(c.cell,) if task.prefix is None else task.prefix)
    D.cell_dir(task.root, c.cell).mkdir(parents=True, exist_ok=True)
    if task.rows:
        def frames():
            for a in range(0, c.games, config.WRITE_ROWS):
                df = spec.frame(setup, {k: v[a:a + config.WRITE_ROWS] for k, v in out.items()})
                df["game_id"] += c.first_game + a
                yield df

        rows = D.write_rows(D.chunk_path(task.root, c.cell, c.chunk), frames(), task.meta)
        meta = {**task.meta, "rows_file": D.file_digest(rows)}     # checked by --resume
    else:
        meta = task.meta
    tally = spec.tally(setup, out)
    D.write_tally(D.tally_path(task.root, c.cell, c.chunk), tally, meta)
    return tally


# ---- the run ---------------------------------------------------------------------------------
class Borrowed:
    """A caller's started backend lent to one study: closing it is left to the caller."""

    def __init__(self, pool):
        self.pool, self.workers = pool, pool.workers

    def submit(self, fn, task):
        return self.pool.submit(fn, task)

    def wait(self, futures) -> set:
        return self.pool.wait(futures)

    def close(self, cancel: bool = False) -> None:
        """Nothing: the owner closes the backend (with ``cancel`` when it stops)."""


@dataclass
class CellState:
    """A cell's running tally, fed in chunk order."""

    cell: Cell
    chunks: list
    game: tuple                      # (GameSpec, setup)
    stop: object = None              # the study's StopRule with --stop-when-decided
    sprt: object = None
    tally: dict | None = None
    games_done: int = 0
    next_chunk: int = 0
    early: dict = field(default_factory=dict)
    decided: str | None = None

    @property
    def done(self) -> bool:
        return self.decided is not None or self.next_chunk == len(self.chunks)


@dataclass
class StudyRun:
    """What :func:`run_study` returns: the folder, its final manifest, per-cell summaries."""

    root: Path
    manifest: dict
    summaries: dict
    elapsed_s: float
    chunks_run: int
    chunks_resumed: int
    backend_start_s: float = 0.0

    def open(self):
        return D.open_study(self.root)

    def to_json(self) -> dict:
        cells = [{**c, "summary": self.summaries.get(c["cell"])} for c in self.manifest["cells"]]
        return {"study": self.manifest["name"], "out": str(self.root), "game":
                self.manifest["game"], "elapsed_s": round(self.elapsed_s, 3),
                "backend_start_s": round(self.backend_start_s, 3),
                "chunks_run": self.chunks_run, "chunks_resumed": self.chunks_resumed,
                "cells": cells}


def run_study(study, out=None, *, backend: str = "local", workers: int | None = None,
              scheduler: str | None = None, resume: bool = False,
              stop_when_decided: bool = False, progress: bool = False,
              games: int | None = None, pool=None) -> StudyRun:
    """Run a study file (path or :class:`Study`) into ``out`` (default ``results/<name>``).

    The dataset depends only on the study file: not on ``backend`` ("local" threads or
    "dask"), ``workers``, ``scheduler`` (address of a running Dask scheduler) or interruptions
    (``resume=True`` keeps the finished chunks of an earlier run of the same study).
    ``stop_when_decided`` stops each cell once the ``[stop]`` SPRT decides; ``games``
    replaces the file's games per cell (a smaller version of the study: the cells' games and
    so the study hash change; study.json records ``games_override`` = {file, games}).

    ``elapsed_s`` of the result is the time spent playing chunks once the backend was up;
    ``backend_start_s`` the time it took to start it (a LocalCluster takes seconds).

    ``pool``: a backend already started by the caller (``backends.make_backend``), shared by
    several small studies (balance batches); it is left open (the caller closes it)."""
    from vikingsim.studies.backends import check_backend, make_backend

    check_backend(backend, workers, scheduler)
    study = study if isinstance(study, Study) else load_study(study)
    file_games = study.games
    if games is not None:
        study = replace(study, games=_games(games))
    root = Path(out) if out is not None else Path("results") / study.name
    try:
        spec, states, manifest = _plan_run(study, stop_when_decided)
        if games is not None:                # the file's games and the ones played instead
            manifest["games_override"] = {"file": file_games, "games": study.games}
        _check_out(root, manifest, resume)
    except KeyboardInterrupt:                  # Ctrl-C or SIGTERM while planning
        _say_not_started(root, "before it started", part=pool is not None)
        raise
    t_start = time.perf_counter()
    try:                                                  # reached before anything is written
        pool = make_backend(backend, workers, scheduler) if pool is None else Borrowed(pool)
    except KeyboardInterrupt:                  # Ctrl-C or SIGTERM while the backend starts
        _say_not_started(root, "while its backend started", part=False)
        raise
    start_s = time.perf_counter() - t_start
    try:
        _prepare(root, manifest)
        resumed = _feed_finished(root, states, manifest)
    except BaseException as e:
        pool.close(cancel=True)
        if isinstance(e, KeyboardInterrupt):    # stopped while reading the finished chunks
            _say_interrupted(root, states)
        raise
    return _play(root, study, spec, states, manifest, resumed, pool, start_s, progress)


def _plan_run(study: Study, stop_when_decided: bool):
    """(GameSpec, one CellState per cell, the manifest) of a study about to run."""
    from vikingsim.games import get

    if stop_when_decided and study.stop is None:
        raise InputError("--stop-when-decided needs a [stop] table (metric, p0, p1) in the "
                         "study file")
    spec = get(study.game)
    cells = plan_cells(study)
    size = chunk_size(spec, study.chunk_games)
    states = [CellState(c, plan_chunks(c, size),
                        D.cell_setup(spec.name, c.players, c.policies, _options_json(c))) for c in cells]
    if stop_when_decided:
        _check_metric(spec, states[0].game[1], study.stop, cells[0].players)
        for s in states:
            s.stop, s.sprt = study.stop, study.stop.sprt()
    return spec, states, _manifest(study, spec, cells, size, stop_when_decided)


def _play(root, study, spec, states, manifest, resumed, pool, start_s, progress) -> StudyRun:
    """Play the chunks left on the started backend ``pool``, write the summaries."""
    t0 = time.perf_counter()
    try:
        ran = _schedule(root, study, states, manifest, pool, progress)
    except BaseException:
        pool.close(cancel=True)
        _say_interrupted(root, states)
        raise
    try:
        pool.close()
        summaries = _finish(root, spec, states, manifest)
    except KeyboardInterrupt:                  # every chunk saved; the summary not yet
        _say_interrupted(root, states)
        raise
    return StudyRun(root, manifest, summaries, time.perf_counter() - t0, ran, resumed,
                    start_s)


def _games(games) -> int:
    from vikingsim.core.runner import check_count
    from vikingsim.studies.spec import MAX_GAMES

    return check_count("games", games, 1, MAX_GAMES)


def ensure_study(path, *, games: int, results="results", progress: bool = False):
    """The dataset of the study file ``path``, for notebooks: ``results/<name>`` when it holds
    this study complete; otherwise the study at ``games`` per cell in ``results/<name>-<games>``,
    run (or finished) now if needed; a stale one there (another version of the study) is
    replaced. Returns :func:`vikingsim.studies.dataset.open_study` of the folder used."""
    import shutil

    from vikingsim.studies.kinds import expand

    study = expand(load_study(path))
    full = Path(results) / study.name
    if _holds(full, study):
        return D.open_study(full)
    small = Path(results) / f"{study.name}-{_games(games)}"
    study = replace(study, games=games)
    if not _holds(small, study, complete=False) and small.exists():
        shutil.rmtree(small)
    if not _holds(small, study):
        run_study(study, small, resume=True, progress=progress)
    return D.open_study(small)


def _holds(root: Path, study: Study, complete: bool = True) -> bool:
    """Whether ``root`` holds (a complete, or any) run of exactly this study."""
    from vikingsim.games import get

    if not (root / D.MANIFEST).exists():
        return False
    m = D.read_manifest(root)
    spec = get(study.game)
    size = chunk_size(spec, study.chunk_games)
    same = m.get("study_hash") == study_hash(study, plan_cells(study), size, spec.rules_version)
    return same and (m.get("complete") or not complete) and not m.get("stop_when_decided")


def _manifest(study: Study, spec, cells: list, size: int, stop_when_decided: bool) -> dict:
    stop = None if study.stop is None else {k: getattr(study.stop, k) for k in
                                            ("metric", "p0", "p1", "alpha", "beta")}
    content = study_content(study, cells, size, spec.rules_version)
    return {"format": D.FORMAT, "name": study.name, "title": study.title,
            "study_file": study.path, "study_toml": study.text, "game": spec.name,
            "rules_version": spec.rules_version, "versions": package_versions(),
            "root_seed": study.seed, "chunk_games": size, "grid_keys": study.grid_keys,
            "report": study.report, "kind": study.kind, "rows": study.rows, "stop": stop,
            "stop_when_decided": stop_when_decided,
            "study_hash": content_hash(content), "study_content": content,
            "complete": False,
            "cells": [{**c.manifest(), "games_done": 0, "decided": None} for c in cells]}


def _check_out(root: Path, manifest: dict, resume: bool) -> None:
    """InputError unless ``root`` is a fresh folder, or (``resume``) one holding the same
    study (nothing written)."""
    if root.exists() and not root.is_dir():
        raise InputError(f"--out {str(root)!r} is a file, not a folder")
    if (root / D.MANIFEST).exists():
        old = D.read_manifest(root)
        if not resume:
            raise InputError(f"{str(root)!r} already holds study {old['name']!r}: add --resume "
                             f"to continue it, or give another --out")
        _refuse_changed_files(root, old, manifest)
        if old.get("study_hash") != manifest["study_hash"]:
            what = (changes(old["study_content"], manifest["study_content"])
                    if isinstance(old.get("study_content"), dict) else
                    f"study_hash {old.get('study_hash')!r}, this one "
                    f"{manifest['study_hash']!r}")
            raise InputError(f"{str(root)!r} holds a different run ({what}): give another "
                             f"--out")
        if old.get("stop_when_decided") != manifest["stop_when_decided"]:
            raise InputError(f"{str(root)!r} holds a different run (stop_when_decided "
                             f"{old.get('stop_when_decided')!r}, this one "
                             f"{manifest['stop_when_decided']!r}): give another --out")
    elif root.exists() and any(root.iterdir()):
        raise InputError(f"--out {str(root)!r} is a non-empty folder without {D.MANIFEST}")


def _prepare(root: Path, manifest: dict) -> None:
    """The folder checked by :func:`_check_out` with its manifest; stale temp files removed."""
    (root / "data").mkdir(parents=True, exist_ok=True)
    D.remove_temp_files(root)
    D.write_json(root / D.MANIFEST, manifest)


def _refuse_changed_files(root: Path, old: dict, manifest: dict) -> None:
    """InputError naming the first file (an option's or a policy's) whose bytes differ from
    those the folder's run recorded: resuming would mix games of two inputs."""
    for was, now in zip(old.get("cells", []), manifest["cells"]):
        why = changed_file(was.get("files", {}), now.get("files", {}))
        if why is not None:
            raise InputError(f"cannot resume {str(root)!r}: {why}; restore the file, or give "
                             f"another --out")


def _feed_finished(root: Path, states: list, manifest: dict) -> int:
    """Feed the tallies of chunks an earlier run finished; return how many there were. A
    chunk whose tally is unreadable, or whose rows are not the file its tally recorded (size
    and SHA-256), is not finished: it is removed (one line says which) and played again."""
    n, damaged = 0, []
    for s in states:
        for c in s.chunks:
            path = D.tally_path(root, c.cell, c.chunk)
            if not path.exists():
                continue
            problem, tally = _finished_chunk(root, c, path, manifest)
            if problem is not None:
                damaged.append(problem)
                D.remove_chunk(root, c.cell, c.chunk)
                continue
            _accept(root, s, c, tally)
            n += 1
    if damaged:
        print(f"vikingsim: {len(damaged)} finished chunk{'s' * (len(damaged) != 1)} did not "
              f"match {'their tallies' if len(damaged) != 1 else 'its tally'}, playing "
              f"again: {', '.join(damaged)}", file=sys.stderr)
    return n


def _finished_chunk(root: Path, c: Chunk, path: Path, manifest: dict):
    """(None, tally) of a sound finished chunk, or (what is wrong, None)."""
    try:
        tally, meta = D.read_tally(path)
    except ValueError:
        return f"{path.relative_to(root)} (unreadable)", None
    if meta.get("study_hash") != manifest["study_hash"]:
        raise InputError(f"{str(path)!r} belongs to another study: give another --out")
    if manifest["rows"]:
        rows = D.chunk_path(root, c.cell, c.chunk)
        problem = D.rows_problem(rows, meta)
        if problem is not None:
            return f"{rows.relative_to(root)} ({problem})", None
    return None, tally


def _accept(root: Path, s: CellState, c: Chunk, tally: dict) -> None:
    """Take chunk ``c``'s tally; fold every waiting chunk that is next in order."""
    if s.decided is not None:
        D.remove_chunk(root, c.cell, c.chunk)          # beyond the deciding chunk
        return
    s.early[c.chunk] = tally
    while s.next_chunk in s.early and s.decided is None:
        s.tally = add_tallies(s.tally, s.early.pop(s.next_chunk))
        s.games_done += s.chunks[s.next_chunk].games
        s.next_chunk += 1
        if s.sprt is not None:
            s.decided = _decide(s)
    if s.decided is not None:
        for k in s.early:
            D.remove_chunk(root, c.cell, k)
        s.early.clear()


def _decide(s: CellState) -> str | None:
    """The SPRT's verdict on the cell's running tally: "H0", "H1" or None (go on)."""
    spec, _ = s.game
    k = _metric_count(spec, s.tally, s.stop, s.games_done)
    return {"accept_h0": "H0", "accept_h1": "H1"}.get(s.sprt.update(k, s.games_done))


def _metric_count(spec, tally: dict, stop, n: int) -> int:
    """Games counted by the proportion ``stop.metric`` in a tally of n games: wins of a seat
    (``win_rate[seat]``) or games of an outcome (``p_<outcome>``), read as integers from the
    tally (``core.game.tally_counts``)."""
    counts = tally_counts(spec, tally, n)
    if stop.key == "win_rate":
        return int(counts.wins[stop.seat])
    return int(counts.outcomes[stop.key[2:]])


def _counted_metrics(spec, players: int) -> list[str]:
    """The proportions a stop rule can test: each seat's win rate and each outcome's rate."""
    seats = [f"win_rate[{k}]" for k in range(players)] if spec.seated else []
    return seats + [f"p_{o}" for o in spec.outcomes]


def _check_metric(spec, setup, stop, players: int) -> None:
    """InputError unless ``stop.metric`` names a proportion the tally counts (a seat's win
    rate or an outcome's rate), so the SPRT reads integer counts."""
    allowed = _counted_metrics(spec, players)
    if (stop.key if stop.seat is None else f"{stop.key}[{stop.seat}]") not in allowed:
        raise InputError(f"[stop] metric {stop.metric!r} is no proportion of the {spec.name} "
                         f"summary that its tally counts; try one of: {', '.join(allowed)}")


def _task(root: Path, study: Study, s: CellState, c: Chunk, manifest: dict) -> ChunkTask:
    meta = {"study_hash": manifest["study_hash"], "cell": c.cell, "chunk": c.chunk,
            "first_game": c.first_game, "games": c.games,
            "seed_keys": {"entropy": study.seed,
                          "spawn_key": [*seed_prefix(study, c.cell), "stream", "block"],
                          "blocks": [c.first_game // s.game[0].block_games,
                                     -(-(c.first_game + c.games) // s.game[0].block_games)]},
            "rules_version": manifest["rules_version"]}
    return ChunkTask(str(root), study.game, s.cell.players, s.cell.policies,
                     _options_json(s.cell), study.seed, c, study.rows, meta,
                     seed_prefix(study, c.cell))


def _options_json(cell: Cell) -> str:
    return json.dumps(cell.run_options, sort_keys=True)


def _queue(states: list) -> list:
    """Chunks to play, round robin over cells (chunk 0 of every cell first), so that
    ``--stop-when-decided`` can stop cells early."""
    depth = max((len(s.chunks) for s in states), default=0)
    return [(s, s.chunks[k]) for k in range(depth) for s in states
            if k < len(s.chunks) and k >= s.next_chunk and k not in s.early]


def _schedule(root: Path, study: Study, states: list, manifest: dict, pool, progress: bool):
    """Keep ``2 x workers`` chunks in flight; fold results in as they come; return how many
    chunks were played."""
    queue, running, ran, rewrite = _queue(states), {}, 0, _Rewrites()
    with _bar(states, study.name, progress) as bar:
        while queue or running:
            while queue and len(running) < 2 * pool.workers:
                s, c = queue.pop(0)
                if s.decided is None:
                    running[pool.submit(play_chunk, _task(root, study, s, c, manifest))] = (s, c)
            for fut in pool.wait(list(running)):
                s, c = running.pop(fut)
                was_done = s.done
                _accept(root, s, c, fut.result())
                ran += 1
                bar.update(c.games)
                if s.done and not was_done:
                    _cell_finished(root, s, manifest, bar, rewrite)
    return ran


@dataclass
class _Rewrites:
    """When study.json is rewritten as cells finish: at most once per
    ``config.MANIFEST_EVERY_S`` seconds and per 20 times the last rewrite's duration. The
    manifest grows with the cells (tens of MB for a 20,000-cell sensitivity study), so a
    rewrite after every cell made a run quadratic in its cells. The rewrites show progress
    only: ``--resume`` reads the chunks' tallies, and :func:`_finish` writes the final one."""

    due: float = 0.0

    def __call__(self, root: Path, manifest: dict) -> None:
        from vikingsim.core import config

        now = time.monotonic()
        if now >= self.due:
            D.write_json(root / D.MANIFEST, manifest)
            self.due = now + max(config.MANIFEST_EVERY_S, 20 * (time.monotonic() - now))


def _cell_finished(root: Path, s: CellState, manifest: dict, bar, rewrite) -> None:
    """Record the cell's games and decision in study.json (rewritten atomically, when
    ``rewrite`` says it is due)."""
    entry = manifest["cells"][s.cell.cell]
    entry["games_done"], entry["decided"] = s.games_done, s.decided
    rewrite(root, manifest)
    if s.decided is not None and bar.total is not None:
        bar.total -= s.cell.games - s.games_done
        bar.refresh()


def _bar(states: list, name: str, wanted: bool):
    """One tqdm bar over every chunk's games (ETA), on stderr and only on a terminal."""
    from tqdm import tqdm

    total = sum(s.cell.games for s in states if s.decided is None)
    done = sum(s.games_done for s in states if s.decided is None)
    return tqdm(total=total, initial=done, desc=name, unit=" games", unit_scale=True,
                file=sys.stderr, mininterval=0.5, disable=not (wanted and sys.stderr.isatty()))


def _say_not_started(root: Path, when: str, part: bool) -> None:
    """The one line of a stop before the study wrote anything. ``part``: the study is one
    batch of a bigger run (a balance search, on a borrowed backend) whose finished batches
    are saved, so the line says how to finish that run."""
    more = (": the finished studies beside it are saved; rerun with --resume to finish"
            if part else "")
    print(f"vikingsim: study stopped {when}; nothing was written to {root}{more}",
          file=sys.stderr)


def _say_interrupted(root: Path, states: list) -> None:
    """How many chunks are saved (on disk: chunks under way when stopped were finished)."""
    kept = len(list(root.glob("data/cell=*/chunk-*.tally.json")))
    total = sum(len(s.chunks) for s in states)
    print(f"vikingsim: study stopped; {kept} of {total} chunks are saved in {root}: rerun "
          f"with --resume to finish it", file=sys.stderr)


def _finish(root: Path, spec, states: list, manifest: dict) -> dict:
    """Final manifest and summary.parquet; the per-cell summaries."""
    summaries = {}
    for s in states:
        entry = manifest["cells"][s.cell.cell]
        entry["games_done"], entry["decided"] = s.games_done, s.decided
        if s.games_done:
            summaries[s.cell.cell] = spec.summarize(s.game[1], s.tally, s.games_done)
    D.write_summary(root, D.summary_frame(manifest, summaries))
    manifest["complete"] = True
    D.write_json(root / D.MANIFEST, manifest)
    return summaries
