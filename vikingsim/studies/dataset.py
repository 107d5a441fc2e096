"""A study's dataset on disk: layout, atomic writes, and :func:`open_study` to read it.

Layout (fixed; ``vikingsim report`` and the notebooks read it)::

    results/NAME/
      study.json    # manifest, written first (atomically) and rewritten atomically as cells finish:
                    # {"format": "vikingsim-study/1", "name": NAME, "study_file": path as given,
                    #  "study_toml": full text, "game": game name, "rules_version": ...,
                    #  "versions": {"vikingsim":..,"numpy":..,"numba":..}, "root_seed": int,
                    #  "chunk_games": int, "grid_keys": [names of the varied knobs, in file order],
                    #  "report": {table from the study file, may be empty},
                    #  "cells": [{"cell": int, "label": "players=4 start_gold=20", "players": int,
                    #             "policies": [policy label per seat], "options": {option: value
                    #             for every option}, "grid": {knob: value for the varied knobs},
                    #             "games": games planned, "games_done": int,
                    #             "decided": null or "H0"/"H1", and only for a cell whose
                    #             options or policies name files: "files": {"option.<name>" or
                    #             "policy.<seat>": {"path": as written, "sha256": ...}}}, ...]}
      data/cell=<c>/chunk-<k:06d>.parquet   # per-game rows of that chunk = the game's
                    # GameSpec.frame for it, with game_id = index of the game within its cell;
                    # Parquet key-value metadata "vikingsim" = JSON chunk manifest (study content
                    # hash, cell, chunk, first game, games, seed keys, rules_version)
      data/cell=<c>/chunk-<k:06d>.tally.json # that chunk's additive tally (GameSpec.tally), for
                    # running summaries; its chunk manifest adds "rows_file": {"bytes", "sha256"}
                    # of the chunk's .parquet (--resume plays a chunk again when they differ)
      summary.parquet   # tidy, written at the end: one row per (cell, metric[, seat]) with value,
                        # lo, hi, games, plus the grid knob columns

Also in study.json (beyond the fixed keys): ``study_hash`` (the content hash every chunk
records), ``study_content`` (what that hash covers, so a refused ``--resume`` names what
changed), ``rows`` (false: the study keeps tallies only, no ``.parquet`` chunks),
``stop`` (the ``[stop]`` hypothesis or null), ``stop_when_decided`` and ``complete``.

Reading (this module is the one owner of the folder: ``vikingsim report`` and the notebooks
read through it): :func:`open_study` checks ``study.json`` (:func:`read_manifest`: the folder,
``FORMAT``, the fixed fields of the manifest and of every cell) and returns a
:class:`StudyData`: the cells, the tallies of the finished chunks (:func:`chunk_tallies`,
:func:`cell_tally`), the game's summaries, and the rows of the finished chunks
(``rows_dataset``, ``games``; the ``cell`` column of ``CELL_TYPE``). A chunk is finished when
its ``.tally.json`` exists, wherever it lies (a gap left by an interrupted run included).

Every file is written to a hidden temp name in its own folder (``.<stem>.<pid>.tmp<suffix>``,
which pyarrow's dataset reader ignores), fsynced, renamed with ``os.replace`` and its folder
fsynced (``core.atomic``), so no half-written file ever has its final name. A chunk is finished when its ``.tally.json`` exists: it is
written after the chunk's ``.parquet``, so a crash between the two only re-runs that chunk.
"""
from __future__ import annotations

import functools
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

from vikingsim.core.atomic import atomic_write
from vikingsim.core.errors import InputError
from vikingsim.core.results import add_tallies
from vikingsim.studies.plan import local_path

FORMAT = "vikingsim-study/1"
MANIFEST = "study.json"
SUMMARY = "summary.parquet"
META_KEY = b"vikingsim"
#: Arrow type of the ``cell`` column (the hive partition key of ``data/cell=<c>``), everywhere
#: rows are read.
CELL_TYPE = "int32"


# ---- paths -----------------------------------------------------------------------------------
def cell_dir(root, cell: int) -> Path:
    return Path(root) / "data" / f"cell={cell}"


def chunk_path(root, cell: int, chunk: int) -> Path:
    return cell_dir(root, cell) / f"chunk-{chunk:06d}.parquet"


def tally_path(root, cell: int, chunk: int) -> Path:
    return cell_dir(root, cell) / f"chunk-{chunk:06d}.tally.json"


def write_json(path, obj) -> Path:
    text = json.dumps(obj, indent=1, default=str)
    return atomic_write(path, lambda p: Path(p).write_text(text))


def write_rows(path, frames, meta: dict) -> Path:
    """Frames (same columns) as one Parquet file with ``meta`` as its "vikingsim" key-value
    metadata, atomically."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    def write(tmp):
        writer = None
        try:
            for df in frames:
                table = pa.Table.from_pandas(df, preserve_index=False)
                if writer is None:
                    writer = pq.ParquetWriter(tmp, table.schema)
                writer.write_table(table)
            writer.add_key_value_metadata({META_KEY: json.dumps(meta).encode()})
        finally:
            if writer is not None:
                writer.close()

    return atomic_write(path, write)


def write_tally(path, tally: dict, meta: dict) -> Path:
    return write_json(path, {"chunk": meta, "tally": {k: np.asarray(v).tolist()
                                                      for k, v in tally.items()}})


def read_tally(path) -> tuple[dict, dict]:
    """(tally as int64 arrays, chunk manifest) of a finished chunk; ValueError when the file
    is no tally (damaged)."""
    data = json.loads(Path(path).read_bytes())        # UnicodeDecodeError is a ValueError
    if not isinstance(data, dict) or not isinstance(data.get("tally"), dict) \
            or not isinstance(data.get("chunk"), dict):
        raise ValueError(f"{str(path)!r} holds no tally and chunk record")
    return {k: np.asarray(v, dtype=np.int64) for k, v in data["tally"].items()}, data["chunk"]


def file_digest(path) -> dict:
    """``{"bytes": size, "sha256": hex digest}`` of a file (what a chunk's tally records of
    its rows, so that ``--resume`` can tell a finished chunk from a damaged one)."""
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return {"bytes": Path(path).stat().st_size, "sha256": h.hexdigest()}


def rows_problem(path, meta: dict) -> str | None:
    """Why the rows file ``path`` is not the one its chunk's tally ``meta`` recorded
    ("missing", "changed"), or None when it is. A tally of an older run without the record
    is checked on the file's own chunk metadata."""
    path = Path(path)
    if not path.is_file():
        return "missing"
    want = meta.get("rows_file")
    if want is not None:
        return None if file_digest(path) == want else "changed"
    return None if _footer_meta(path) == {k: meta.get(k) for k in ("study_hash", "cell",
                                                                    "chunk", "games")} \
        else "changed"


def _footer_meta(path: Path) -> dict | None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        got = json.loads(pq.read_metadata(path).metadata[META_KEY])
    except (pa.ArrowException, OSError, KeyError, TypeError, ValueError):
        return None
    return {k: got.get(k) for k in ("study_hash", "cell", "chunk", "games")}


def remove_temp_files(root) -> int:
    """Delete temp files left by a killed run (never a finished file); return how many."""
    n = 0
    for tmp in Path(root).glob("**/.*.tmp*"):      # core.atomic.temp_name (and older .tmp)
        if not tmp.is_file():
            continue
        tmp.unlink()
        n += 1
    return n


def remove_chunk(root, cell: int, chunk: int) -> None:
    """Forget a chunk (tally first, so it is never finished without its rows)."""
    for p in (tally_path(root, cell, chunk), chunk_path(root, cell, chunk)):
        if p.exists():
            p.unlink()


# ---- the tidy summary ------------------------------------------------------------------------
# ---- counts and summaries of the finished chunks ----------------------------------------------
@functools.lru_cache(maxsize=64)
def cell_setup(game: str, players: int, policies: tuple, options_json: str):
    """(GameSpec, compiled setup) of a cell; cached, as every chunk of a cell shares it."""
    from vikingsim.games import get

    spec = get(game)
    return spec, spec.setup(json.loads(options_json), list(policies), players)


def finished_chunks(root, cell: int) -> list[int]:
    """Numbers of a cell's finished chunks (those whose ``.tally.json`` exists), in order."""
    return sorted(int(p.name[len("chunk-"):-len(".tally.json")])
                  for p in cell_dir(root, cell).glob("chunk-*.tally.json"))


def chunk_tallies(root, cell: int):
    """``(path, tally, chunk manifest)`` of each finished chunk of a cell, in chunk order;
    ValueError (or OSError) on a damaged tally."""
    for k in finished_chunks(root, cell):
        path = tally_path(root, cell, k)
        yield (path, *read_tally(path))


def cell_tally(root, cell: int) -> tuple[dict | None, int]:
    """Summed tally and games of a cell's finished chunks, in chunk order; (None, 0) before
    any."""
    tally, n = None, 0
    for _, t, meta in chunk_tallies(root, cell):
        tally, n = add_tallies(tally, t), n + int(meta["games"])
    return tally, n


def cell_counts(root, manifest: dict) -> dict:
    """{cell: (TallyCounts, games)} of every cell from its finished chunks' tallies (the
    GameSpec's integer counts: wins per seat, outcomes, lengths); a cell with no finished chunk
    yet is one InputError line."""
    from vikingsim.core.game import tally_counts
    from vikingsim.games import get

    spec = get(manifest["game"])
    out = {}
    for c in manifest["cells"]:
        tally, n = cell_tally(root, c["cell"])
        if n == 0:
            raise InputError(f"study {manifest['name']}: cell {c['cell']} has no finished "
                             f"chunk yet")
        out[c["cell"]] = (tally_counts(spec, tally, n), n)
    return out


def cell_summaries(root, manifest: dict) -> dict:
    """``{cell: summary}`` from the tallies of the chunks finished so far."""
    from vikingsim.games import get

    spec = get(manifest["game"])
    out = {}
    for entry in manifest["cells"]:
        tally, n = cell_tally(root, entry["cell"])
        if n:
            _, setup = cell_setup(spec.name, entry["players"], tuple(entry["policies"]),
                                  json.dumps(run_options(manifest, entry), sort_keys=True))
            out[entry["cell"]] = spec.summarize(setup, tally, n)
    return out


def run_options(manifest: dict, entry: dict) -> dict:
    """A cell's options with relative ``.toml`` paths read against the study file's folder."""
    folder = Path(manifest["study_file"]).resolve().parent
    return {k: local_path(folder, v) for k, v in entry["options"].items()}


def summary_rows(cell: int, summary: dict, games: int) -> list[dict]:
    """One row per numeric metric (per seat for lists) with its interval when it has one."""
    rows = []
    for key, value in summary.items():
        if key.endswith(("_ci", "_se")):
            continue
        ci = summary.get(f"{key}_ci")
        if _number(value):
            lo, hi = _bounds(ci)
            rows.append(_row(cell, key, None, value, lo, hi, games))
        elif isinstance(value, (list, tuple)) and value and all(map(_number, value)):
            for seat, v in enumerate(value):
                lo, hi = _bounds(ci[seat] if isinstance(ci, (list, tuple)) else None)
                rows.append(_row(cell, key, seat, v, lo, hi, games))
    return rows


def _number(x) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool)


def _bounds(ci) -> tuple[float, float]:
    if isinstance(ci, (list, tuple)) and len(ci) == 2 and all(map(_number, ci)):
        return float(ci[0]), float(ci[1])
    return math.nan, math.nan


def _row(cell, metric, seat, value, lo, hi, games) -> dict:
    return {"cell": cell, "metric": metric, "seat": seat, "value": float(value), "lo": lo,
            "hi": hi, "games": games}


def summary_frame(manifest: dict, summaries: dict) -> pd.DataFrame:
    """Tidy frame of ``{cell: summary dict}`` plus the grid knob columns."""
    games = {c["cell"]: c["games_done"] for c in manifest["cells"]}
    rows = [r for c, s in sorted(summaries.items()) for r in summary_rows(c, s, games[c])]
    df = pd.DataFrame(rows, columns=["cell", "metric", "seat", "value", "lo", "hi", "games"])
    df["seat"] = df["seat"].astype("Int64")
    return _with_knobs(df, manifest)


def _with_knobs(df: pd.DataFrame, manifest: dict) -> pd.DataFrame:
    for knob in manifest["grid_keys"]:
        values = {c["cell"]: c["grid"].get(knob) for c in manifest["cells"]}
        kinds = {type(v) for v in values.values() if v is not None}
        if len(kinds) > 1 and not kinds <= {int, float}:
            values = {k: None if v is None else str(v) for k, v in values.items()}
        df[knob] = df["cell"].map(values)
    return df


def write_summary(root, df: pd.DataFrame) -> Path:
    return atomic_write(Path(root) / SUMMARY, lambda p: df.to_parquet(p, index=False))


# ---- reading ---------------------------------------------------------------------------------
class StudyData:
    """A study folder opened for reading (see :func:`open_study`)."""

    def __init__(self, root: Path, manifest: dict):
        self.root, self.manifest = root, manifest

    def __repr__(self) -> str:
        m = self.manifest
        return (f"<study {m['name']}: {m['game']}, {len(m['cells'])} cells, "
                f"{sum(c.get('games_done', 0) for c in m['cells']):,} games done>")

    @property
    def name(self) -> str:
        return str(self.manifest["name"])

    @property
    def kind(self) -> str:
        """The command that generated the study ("" for a study file)."""
        return str(self.manifest.get("kind") or "")

    @property
    def grid_keys(self) -> list[str]:
        return list(self.manifest.get("grid_keys") or [])

    @property
    def entries(self) -> list[dict]:
        """The manifest's cell records (``study.json`` ``cells``), in cell order."""
        return self.manifest["cells"]

    @functools.cached_property
    def spec(self):
        """The game's :class:`~vikingsim.core.game.GameSpec` (InputError for an unknown game)."""
        from vikingsim.games import get

        return get(self.manifest["game"])

    @property
    def has_rows(self) -> bool:
        """Whether the study keeps per-game rows (``rows = false`` keeps tallies only)."""
        return self.manifest.get("rows", True) is not False

    @property
    def cells(self) -> pd.DataFrame:
        """One row per cell: cell, label, players, policies, games, games_done, decided and
        one column per grid knob."""
        keys = ("cell", "label", "players", "policies", "games", "games_done", "decided")
        df = pd.DataFrame([{k: c.get(k) for k in keys} for c in self.manifest["cells"]])
        df["policies"] = df["policies"].map(", ".join)
        return _with_knobs(df, self.manifest)

    def chunk_tallies(self, cell: int):
        """``(path, tally, chunk manifest)`` of the cell's finished chunks (:func:`chunk_tallies`)."""
        return chunk_tallies(self.root, cell)

    def cell_tally(self, cell: int) -> tuple[dict | None, int]:
        """Summed tally and games of the cell's finished chunks (:func:`cell_tally`)."""
        return cell_tally(self.root, cell)

    def summaries(self) -> dict:
        """``{cell: the game's summary}`` of the finished chunks (:func:`cell_summaries`)."""
        return cell_summaries(self.root, self.manifest)

    def stray_cells(self) -> list[int | str]:
        """Cell folders under ``data/`` that the manifest does not list (a folder that does
        not hold together)."""
        known = {str(c["cell"]) for c in self.manifest["cells"]}
        found = [p.name[len("cell="):] for p in sorted((self.root / "data").glob("cell=*"))]
        return [int(c) if c.isdigit() else c for c in found if c not in known]

    def row_files(self, cells=None) -> list[Path]:
        """The ``.parquet`` rows of the finished chunks of ``cells`` (default all)."""
        return [chunk_path(self.root, c, k) for c in self._cell_list(cells)
                for k in finished_chunks(self.root, c)
                if chunk_path(self.root, c, k).is_file()]

    def rows_dataset(self, cells=None):
        """A ``pyarrow.dataset`` over the finished chunks' rows (``cell`` column of
        ``CELL_TYPE`` from the hive partition, one schema over cells whose frames differ);
        InputError when the study keeps no rows or none is finished."""
        import pyarrow.dataset as ds

        if not self.has_rows:
            raise InputError(f"study {self.name!r} keeps tallies only (rows = false): it has "
                             f"no per-game rows (use .summary())")
        cells = self._cell_list(cells)
        files = self.row_files(cells)
        if not files:
            raise InputError(f"study {self.name!r} has no games yet: no "
                             f"finished data/cell=*/chunk-*.parquet in {str(self.root)!r}")
        return ds.dataset([str(f) for f in files], format="parquet",
                          schema=self._schema(files), partitioning=cell_partitioning(),
                          partition_base_dir=str(self.root / "data"))

    def games(self, cell=None, columns=None) -> pd.DataFrame:
        """Per-game rows (``cell``, ``game_id`` and the game's frame columns) of the finished
        chunks, sorted by cell and game; ``cell`` one cell index or a list; ``columns`` a
        subset to read."""
        want = None if columns is None else list(dict.fromkeys(["cell", "game_id", *columns]))
        table = self.rows_dataset(cell).to_table(columns=want).sort_by(
            [("cell", "ascending"), ("game_id", "ascending")])
        return table.to_pandas()

    def _cell_list(self, cell) -> list[int]:
        known = [c["cell"] for c in self.manifest["cells"]]
        cells = known if cell is None else [cell] if np.ndim(cell) == 0 else list(cell)
        bad = [c for c in cells if c not in known]
        if bad:
            raise InputError(f"study {self.manifest['name']} has no cell {bad[0]!r}; cells: "
                             f"0..{len(known) - 1}")
        return [int(c) for c in cells]

    def _schema(self, files: list[Path]):
        """One schema over cells whose frames differ (e.g. per-seat columns by player count):
        the first finished chunk of each cell."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        firsts = {}
        for f in files:
            firsts.setdefault(f.parent, f)
        try:
            schemas = [pq.read_schema(f).remove_metadata() for f in firsts.values()]
        except (pa.ArrowException, OSError) as e:
            raise InputError(f"corrupt study data in {str(self.root / 'data')!r}: "
                             f"{one_line(e)}") from None
        return pa.unify_schemas([pa.schema([("cell", CELL_TYPE)]), *schemas])

    def summary(self) -> pd.DataFrame:
        """The tidy summary: ``summary.parquet`` once the study finished, else computed from
        the tallies of the chunks finished so far."""
        path = self.root / SUMMARY
        if path.exists() and self.manifest.get("complete"):
            return pd.read_parquet(path)
        return summary_frame(self.manifest, self.summaries())


def cell_partitioning():
    """The hive partitioning of ``data/`` (``cell=<c>``, of ``CELL_TYPE``)."""
    import pyarrow as pa
    import pyarrow.dataset as ds

    return ds.partitioning(pa.schema([("cell", CELL_TYPE)]), flavor="hive")


def one_line(e: Exception) -> str:
    """An exception's message on one printable line (Arrow's may span several)."""
    return " ".join("".join(ch if ch.isprintable() else " " for ch in str(e)).split())


# ---- the manifest ------------------------------------------------------------------------------
#: Fields every manifest and every cell record of it must have, with their types.
_TOP = {"name": str, "game": str, "cells": list, "grid_keys": list}
_CELL = {"cell": int, "players": int, "policies": list, "grid": dict, "games": int}


def read_manifest(root) -> dict:
    """``study.json`` of the study folder ``root``, checked (:func:`check_manifest`);
    InputError naming the problem when ``root`` is no study folder or its manifest is bad."""
    root = Path(root)
    if not root.exists():
        raise InputError(f"study folder {str(root)!r} does not exist")
    if not root.is_dir():
        raise InputError(f"{str(root)!r} is not a study: a file, not a folder")
    path = root / MANIFEST
    if not path.is_file():
        raise InputError(f"{str(root)!r} is not a study: it has no {MANIFEST}")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:              # UnicodeDecodeError is a ValueError
        raise InputError(f"corrupt study manifest {str(path)!r}: {one_line(e)}") from None
    check_manifest(manifest, f"corrupt study manifest {str(path)!r}")
    return manifest


def check_manifest(m, bad: str) -> None:
    """InputError (``bad: what``) unless ``m`` is a manifest of this ``FORMAT`` with the
    fixed fields, at least one cell and no cell number twice."""
    if not isinstance(m, dict):
        raise InputError(f"{bad}: not a JSON object")
    if m.get("format") != FORMAT:
        raise InputError(f"{bad}: format is {m.get('format')!r}, expected {FORMAT!r}")
    _check_fields(m, _TOP, bad)
    if not m["cells"]:
        raise InputError(f"{bad}: it lists no cells")
    for c in m["cells"]:
        _check_fields(c, _CELL, f"{bad}: cell {c.get('cell') if isinstance(c, dict) else c!r}")
    ids = [c["cell"] for c in m["cells"]]
    if len(set(ids)) != len(ids):
        raise InputError(f"{bad}: cell numbers repeat")


def _check_fields(d, want: dict, where: str) -> None:
    if not isinstance(d, dict):
        raise InputError(f"{where}: not a JSON object")
    for key, typ in want.items():
        if key not in d:
            raise InputError(f"{where}: no {key!r}")
        if not isinstance(d[key], typ) or (typ is int and isinstance(d[key], bool)):
            raise InputError(f"{where}: {key!r} must be a {typ.__name__}, got {d[key]!r}")


def open_study(path) -> StudyData:
    """Open a study folder (``results/NAME``) for reading: ``.manifest``, ``.cells``,
    ``.games(cell=None, columns=None)``, ``.summary()``, ``.cell_tally(cell)``,
    ``.summaries()``, ``.rows_dataset()``."""
    root = Path(path)
    return StudyData(root, read_manifest(root))
