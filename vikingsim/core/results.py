"""A run's arrays → tidy DataFrame, summary and manifest; Parquet + manifest written atomically.

pandas and pyarrow are imported where a frame is made or a file read or written, not at the
top: ``import vikingsim`` and ``vikingsim games`` do not need them."""
from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from vikingsim.core import atomic
from vikingsim.core.errors import InputError



def package_versions() -> dict:
    out = {"python": platform.python_version()}
    for name in ("vikingsim", "numpy", "numba", "pandas", "pyarrow"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def git_commit() -> str | None:
    try:
        r = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                           timeout=5, cwd=Path(__file__).resolve().parent)
        return r.stdout.strip() or None if r.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


def rules_hash(game: str, options: dict, rules_version: str = "1",
               files: dict | None = None) -> str:
    """sha256 of the game, its declared rules version, the resolved options and the bytes of
    every file an option or policy names (``files``, :func:`vikingsim.core.inputs.file_records`;
    the seed is not included): equal hashes mean the same rules. The package's source bytes
    are not hashed, so editing a comment changes nothing; a change of behaviour bumps
    ``GameSpec.rules_version``. Without files the hash is what it was before files were
    hashed, so runs that name no file keep their hashes."""
    payload = {"game": game, "rules_version": rules_version, "options": options}
    if files:
        payload["files"] = {k: r["sha256"] for k, r in files.items()}
    text = json.dumps(payload, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass
class Result:
    """One run: its running ``tally`` (always), per-game arrays ``out`` (when kept), the tidy
    ``frame``, ``summary`` and ``manifest``."""

    spec: Any
    setup: Any
    out: dict | None
    n: int
    seed: int
    players: int
    policies: list
    options: dict
    elapsed_s: float
    threads: int
    engine: str = "kernel"
    tally: dict | None = None
    compile_s: float = 0.0
    files: dict = field(default_factory=dict)
    _frame: pd.DataFrame | None = field(default=None, repr=False)

    @property
    def game(self) -> str:
        return self.spec.name

    def _need_out(self) -> dict:
        if self.out is None:
            gib = self.n * out_bytes_per_game(self.spec, self.setup) / 2**30
            raise InputError(
                f"this run of {self.n:,} games was not kept whole ({gib:.1f} GiB of per-game "
                f"arrays): its summary is exact; for rows, run with parquet=PATH (rows written "
                f"as the run goes) and read them in slices, or use keep=True with a smaller n")
        return self.out

    @property
    def frame(self) -> pd.DataFrame:
        """Tidy per-game frame: one row per game (``game_id`` first)."""
        if self._frame is None:
            self._frame = self.spec.frame(self.setup, self._need_out())
        return self._frame

    def frame_with_options(self) -> pd.DataFrame:
        """``frame`` plus ``rule_*`` and ``policy_*`` columns (one per option and seat) and
        ``seed``, each a one-category Categorical (one byte a row, not an object per row)."""
        return self._add_options(self.frame.copy())

    def _add_options(self, df: pd.DataFrame) -> pd.DataFrame:
        import pandas as pd

        n = len(df)

        def const(value):
            return pd.Categorical.from_codes(np.zeros(n, np.int8), categories=[value])

        for k, v in self.options.items():
            df[f"rule_{k}"] = const(v)
        for seat, p in enumerate(self.policies):
            df[f"policy_{seat}"] = const(p)
        df["seed"] = self.seed
        return df

    def segment_frame(self, out: dict, first_game: int, *, with_options: bool = False):
        """Frame of per-game arrays ``out`` whose row 0 is game ``first_game``."""
        df = self.spec.frame(self.setup, out)
        df["game_id"] += first_game
        return self._add_options(df) if with_options else df

    def iter_frames(self, rows: int = 1_000_000, *, with_options: bool = False):
        """The per-game frame in slices of ``rows`` games (bounded memory for big runs);
        concatenated they equal ``frame`` (or ``frame_with_options``)."""
        out = self._need_out()
        for a in range(0, self.n, rows):
            yield self.segment_frame({k: v[a:a + rows] for k, v in out.items()}, a,
                                     with_options=with_options)

    def _identity(self) -> dict:
        """What was run: shared head of the summary and the manifest."""
        return {"game": self.game, "n": self.n, "seed": self.seed, "players": self.players,
                "policies": list(self.policies), "options": dict(self.options)}

    @property
    def summary(self) -> dict:
        """Headline metrics with intervals plus the run's identity (the ``--json`` object).
        ``elapsed_s`` and ``games_per_s`` exclude ``compile_s`` (the first run's compiling)."""
        if self.spec.tally is not None and self.tally is not None:
            metrics = self.spec.summarize(self.setup, self.tally, self.n)
        else:
            metrics = self.spec.summary(self.setup, self._need_out())
        return {**self._identity(),
                "elapsed_s": round(self.elapsed_s, 4),
                "games_per_s": round(self.n / self.elapsed_s, 1) if self.elapsed_s > 0 else None,
                "compile_s": round(self.compile_s, 4),
                **metrics}

    @property
    def elements(self) -> pd.DataFrame:
        """Tidy per-seat, per-element table of the run (``GameSpec.element_stats`` of the
        tally: e.g. Raid & Conquer's cards bought, played, held at the end, first-buy round,
        win rate when bought vs not; a correlation, not a cause). InputError when the game
        counts no elements."""
        if self.spec.element_stats is None or self.tally is None:
            raise InputError(f"{self.game} counts no per-card or per-action statistics")
        return self.spec.element_stats(self.setup, self.tally)

    @property
    def manifest(self) -> dict:
        """Everything needed to regenerate the run; ``files`` (only when an option or policy
        names a file) records each such file's path and sha256."""
        files = {"files": self.files} if self.files else {}
        return {**self._identity(), **files,
                "rules_version": self.spec.rules_version,
                "rules_hash": rules_hash(self.game, self.options, self.spec.rules_version,
                                         self.files),
                "rng_scheme": self.spec.rng_scheme,
                "engine": self.engine,
                "threads": self.threads,
                "elapsed_s": self.elapsed_s,
                "compile_s": self.compile_s,
                "versions": package_versions(),
                "git_commit": git_commit(),
                "n_rows": self.n}

    def to_parquet(self, path, *, with_options: bool = False) -> Path:
        """Write the per-game frame to ``path`` (manifest embedded) and ``<stem>.manifest.json``
        beside it, atomically. The manifest always holds every option; ``with_options`` also
        adds them as columns."""
        return write_results(self.iter_frames(with_options=with_options), path,
                             manifest=self.manifest)


def add_tallies(a: dict | None, b: dict) -> dict:
    """Element-wise sum of two tallies; histograms (last axis) of different lengths are padded
    with zeros first. ``a`` may be None (the first segment)."""
    if a is None:
        return {k: np.array(v, dtype=np.int64, copy=True) for k, v in b.items()}
    out = {}
    for k, v in b.items():
        x, y = a[k], np.asarray(v, dtype=np.int64)
        if x.shape != y.shape:
            width = max(x.shape[-1], y.shape[-1])
            pad = lambda z: np.pad(z, [(0, 0)] * (z.ndim - 1) + [(0, width - z.shape[-1])])
            x, y = pad(x), pad(y)
        out[k] = x + y
    return out


def out_bytes_per_game(spec, setup) -> int:
    """Bytes of per-game arrays one game takes."""
    return sum(v.nbytes for v in spec.allocate(setup, 1).values())


def outcome_frame(out: dict, outcome_names, truncated_code: int) -> pd.DataFrame:
    """One row per game from per-game arrays: ``game_id``, ``outcome`` (categorical from the
    integer ``out["outcome"]`` codes, named by ``outcome_names``), ``truncated``, then every
    other array of ``out`` as a column."""
    import pandas as pd

    n = len(out["outcome"])
    names = np.array(list(outcome_names))
    df = pd.DataFrame({"game_id": np.arange(n, dtype=np.int64)})
    df["outcome"] = pd.Categorical(names[out["outcome"]], categories=list(names))
    df["truncated"] = out["outcome"] == truncated_code
    for k, v in out.items():
        if k != "outcome":
            df[k] = v
    return df



def manifest_path(path) -> Path:
    path = Path(path)
    return path.with_name(path.stem + ".manifest.json")


def _os_error(path, e: OSError) -> InputError:
    return InputError(f"cannot write {str(path)!r}: {e.strerror or e}")


def check_writable(path, suffix: str = ".parquet", what: str = "--out") -> Path:
    """Raise InputError unless ``path`` can be written: right suffix, not a folder, and a temp
    file can be created (and is removed again) in its folder."""
    path = Path(path)
    if path.suffix != suffix:
        raise InputError(f"{what} must end in {suffix}, got {str(path)!r}")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise InputError(f"cannot write {str(path)!r}: folder {str(folder)!r} does not exist")
    try:
        name_max = os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError):
        name_max = 255
    longest = max(len(path.name.encode()), len(manifest_path(path).name.encode()))
    if longest > name_max:
        raise InputError(f"cannot write {str(path)[:60]!r}...: file name of {longest} bytes is "
                         f"longer than the {name_max} this folder allows")
    if path.is_dir():
        raise InputError(f"cannot write {str(path)!r}: it is a folder")
    probe = atomic.temp_name(path)
    try:
        with open(probe, "wb"):
            pass
        probe.unlink()
    except OSError as e:
        raise _os_error(path, e) from None
    if path.exists() and not os.access(path, os.W_OK):
        raise InputError(f"cannot write {str(path)!r}: permission denied")
    return path


def write_atomic(path, write) -> None:
    """``core.atomic.atomic_write`` (temp name, fsync of file and folder, ``os.replace``) with
    OS errors as one-line InputErrors: readers never see a partial file."""
    try:
        atomic.atomic_write(path, write)
    except OSError as e:
        raise _os_error(path, e) from None


class _ContentHash:
    """blake2b of every column's values, in row order, one digest per column combined at the
    end: the same for any slicing of the same rows (categoricals hash their codes and
    categories). Hand-written: Parquet's own checksums cover pages, not the logical rows."""

    def __init__(self):
        self.cols: dict[str, Any] = {}
        self.cats: dict[str, list] = {}

    def update(self, df: pd.DataFrame) -> None:
        import pandas as pd

        for name in df.columns:
            col = df[name]
            numeric = pd.api.types.is_numeric_dtype
            if isinstance(col.dtype, pd.CategoricalDtype) and not numeric(col.cat.categories):
                self.cats[name] = [str(c) for c in col.cat.categories]
                values = col.cat.codes.to_numpy()
            elif isinstance(col.dtype, pd.CategoricalDtype):   # Parquet reads these back plain
                values = col.astype(col.cat.categories.dtype).to_numpy()
            else:
                values = col.to_numpy()
            h = self.cols.setdefault(name, hashlib.blake2b(digest_size=16))
            if numeric(values.dtype):
                h.update(np.ascontiguousarray(values).tobytes())
            else:                                  # one value at a time: slicing-invariant
                h.update("".join(f"{v}\x00" for v in values).encode())

    def hexdigest(self) -> str:
        h = hashlib.blake2b(digest_size=16)
        for name, col in self.cols.items():
            h.update(f"{name}:{col.hexdigest()}:{self.cats.get(name)};".encode())
        return h.hexdigest()


class ResultsWriter:
    """One Parquet file written slice by slice into a hidden temp file, then, on ``commit``,
    the manifest (with row count and content hash) embedded in its metadata, one atomic rename,
    and the ``<stem>.manifest.json`` copy beside it. ``abort`` (any failure, Ctrl-C, SIGTERM)
    removes the temp file and leaves whatever was there before untouched."""

    KEY = b"vikingsim"

    def __init__(self, path, *, rule_columns: bool = False):
        self.path = check_writable(path)
        self.rule_columns = rule_columns
        self.tmp = atomic.temp_name(self.path)
        self.writer, self.n_rows, self.hash = None, 0, _ContentHash()

    def write(self, df: pd.DataFrame) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            table = pa.Table.from_pandas(df, preserve_index=False)
            if self.writer is None:
                self.writer = pq.ParquetWriter(self.tmp, table.schema)
            self.writer.write_table(table.cast(self.writer.schema))
        except OSError as e:
            self.abort()
            raise _os_error(self.path, e) from None
        self.hash.update(df)
        self.n_rows += len(df)

    def commit(self, manifest: dict) -> Path:
        side = {**manifest, "n_rows": self.n_rows, "content_hash": self.hash.hexdigest()}
        text = json.dumps(side, indent=2, default=str)
        try:
            self.writer.add_key_value_metadata({self.KEY: text.encode()})
            self.writer.close()
            self.writer = None
            mpath = manifest_path(self.path)
            atomic.fsync_file(self.tmp)   # on disk before the old manifest goes
            if mpath.exists():
                mpath.unlink()            # never a new data file beside an old manifest
            atomic.commit(self.tmp, self.path)
        except OSError as e:
            self.abort()
            raise _os_error(self.path, e) from None
        write_atomic(manifest_path(self.path), lambda p: p.write_text(text))
        return self.path

    def abort(self) -> None:
        if self.writer is not None:
            try:
                self.writer.close()
            except Exception:             # closing a writer on a full disk may fail too
                pass
            self.writer = None
        atomic.discard(self.tmp)


def write_results(frames, path, *, manifest: dict) -> Path:
    """Parquet (manifest embedded) + ``<stem>.manifest.json``, see :class:`ResultsWriter`.

    ``frames`` is one DataFrame or an iterable of DataFrames with the same columns (written as
    row groups one after another, so a big run never needs its whole frame in memory)."""
    import pandas as pd

    writer = ResultsWriter(path)
    try:
        for df in [frames] if isinstance(frames, pd.DataFrame) else frames:
            writer.write(df)
        return writer.commit(manifest)
    except BaseException:
        writer.abort()
        raise


def read_results(path) -> tuple[pd.DataFrame, dict]:
    """Read a results file and its manifest, checking that they agree: the manifest embedded in
    the Parquet file, the ``.manifest.json`` copy beside it (if present), the row count, the
    seed column (if stored) and the content hash. Refuse a file without an embedded manifest."""
    import pandas as pd
    import pyarrow.parquet as pq

    path = Path(path)
    if not path.is_file():
        raise InputError(f"cannot read {str(path)!r}: no such file")
    try:
        meta = pq.read_metadata(path).metadata or {}
        df = pd.read_parquet(path)
    except (OSError, ValueError) as e:
        raise InputError(f"cannot read {str(path)!r}: {e}") from None
    if ResultsWriter.KEY not in meta:
        raise InputError(f"{str(path)!r} has no embedded vikingsim manifest: not a vikingsim "
                         f"results file (or written by an older version)")
    manifest = json.loads(meta[ResultsWriter.KEY])
    _check_agrees(path, df, manifest)
    return df, manifest


def _check_agrees(path: Path, df: pd.DataFrame, manifest: dict) -> None:
    bad = f"{str(path)!r} and its manifest disagree"
    side = manifest_path(path)
    if side.exists():
        try:
            copy = json.loads(side.read_text())
        except (OSError, ValueError) as e:
            raise InputError(f"cannot read {str(side)!r}: {e}") from None
        if copy != manifest:
            raise InputError(f"{bad}: {side.name} is not the manifest embedded in the data "
                             f"(an interrupted or mixed write?); delete it or rerun")
    if len(df) != manifest.get("n_rows"):
        raise InputError(f"{bad}: {len(df)} rows, manifest says {manifest.get('n_rows')}")
    if "seed" in df.columns and len(df) and not (df["seed"] == manifest.get("seed")).all():
        raise InputError(f"{bad}: seed column differs from manifest seed {manifest.get('seed')}")
    h = _ContentHash()
    h.update(df)
    if h.hexdigest() != manifest.get("content_hash"):
        raise InputError(f"{bad}: content hash differs (rows changed after writing)")
