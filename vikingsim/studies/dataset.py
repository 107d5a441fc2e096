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


def cell_tally(root, cell: int) -> tuple[dict | None, int]:
    """Summed tally and games of a cell's finished chunks, in chunk order up to the first
    missing one (as the run folds them); (None, 0) before any."""
    tally, n, k = None, 0, 0
    while tally_path(root, cell, k).exists():
        t, meta = read_tally(tally_path(root, cell, k))
        tally, n, k = add_tallies(tally, t), n + int(meta["games"]), k + 1
    return tally, n


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
                f"{sum(c['games_done'] for c in m['cells']):,} games done>")

    @property
    def cells(self) -> pd.DataFrame:
        """One row per cell: cell, label, players, policies, games, games_done, decided and
        one column per grid knob."""
        keys = ("cell", "label", "players", "policies", "games", "games_done", "decided")
        df = pd.DataFrame([{k: c[k] for k in keys} for c in self.manifest["cells"]])
        df["policies"] = df["policies"].map(", ".join)
        return _with_knobs(df, self.manifest)

    def games(self, cell=None, columns=None) -> pd.DataFrame:
        """Per-game rows (``cell``, ``game_id`` and the game's frame columns), sorted by cell
        and game; ``cell`` one cell index or a list; ``columns`` a subset to read."""
        import pyarrow.dataset as ds

        if not self.manifest.get("rows", True):
            raise InputError(f"study {self.manifest['name']} keeps tallies only (rows = false): "
                             f"no per-game rows; use .summary()")
        cells = self._cell_list(cell)
        files = sorted(str(p) for c in cells
                       for p in cell_dir(self.root, c).glob("chunk-*.parquet"))
        if not files:
            raise InputError(f"study {self.manifest['name']}: no finished chunk in cells {cells}")
        dataset = ds.dataset(files, format="parquet", schema=self._schema(cells),
                             partitioning=_hive(), partition_base_dir=str(self.root / "data"))
        want = None if columns is None else list(dict.fromkeys(["cell", "game_id", *columns]))
        table = dataset.to_table(columns=want).sort_by([("cell", "ascending"),
                                                        ("game_id", "ascending")])
        return table.to_pandas()

    def _cell_list(self, cell) -> list[int]:
        known = [c["cell"] for c in self.manifest["cells"]]
        cells = known if cell is None else [cell] if np.ndim(cell) == 0 else list(cell)
        bad = [c for c in cells if c not in known]
        if bad:
            raise InputError(f"study {self.manifest['name']} has no cell {bad[0]!r}; cells: "
                             f"0..{len(known) - 1}")
        return [int(c) for c in cells]

    def _schema(self, cells):
        """One schema over cells whose frames differ (e.g. per-seat columns by player count)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        firsts = [next(iter(sorted(cell_dir(self.root, c).glob("chunk-*.parquet"))), None)
                  for c in cells]
        schemas = [pq.read_schema(p).remove_metadata() for p in firsts if p is not None]
        return pa.unify_schemas([pa.schema([("cell", pa.int32())]), *schemas])

    def summary(self) -> pd.DataFrame:
        """The tidy summary: ``summary.parquet`` once the study finished, else computed from
        the tallies of the chunks finished so far."""
        path = self.root / SUMMARY
        if path.exists() and self.manifest.get("complete"):
            return pd.read_parquet(path)
        return summary_frame(self.manifest, cell_summaries(self.root, self.manifest))


def _hive():
    import pyarrow as pa
    import pyarrow.dataset as ds

    return ds.partitioning(pa.schema([("cell", pa.int32())]), flavor="hive")


def read_manifest(root) -> dict:
    path = Path(root) / MANIFEST
    try:
        manifest = json.loads(path.read_text())
    except FileNotFoundError:
        raise InputError(f"{str(root)!r} is no study folder (no {MANIFEST})") from None
    except (OSError, ValueError) as e:
        raise InputError(f"cannot read {str(path)!r}: {e}") from None
    if manifest.get("format") != FORMAT:
        raise InputError(f"{str(path)!r}: format {manifest.get('format')!r}, expected {FORMAT}")
    return manifest


def open_study(path) -> StudyData:
    """Open a study folder (``results/NAME``) for reading: ``.manifest``, ``.cells``,
    ``.games(cell=None, columns=None)``, ``.summary()``."""
    root = Path(path)
    return StudyData(root, read_manifest(root))
