"""A run's arrays → tidy DataFrame, summary and manifest; Parquet + manifest written atomically."""
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
import pandas as pd

from vikingsim.core.errors import InputError

_RULES_DIR = Path(__file__).resolve().parents[1] / "games"


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


def rules_hash(game: str, options: dict) -> str:
    """sha256 of the game's rules data (its package's source files, which hold the rule tables
    and kernels) and the resolved options; the seed is not included."""
    h = hashlib.sha256(json.dumps(options, sort_keys=True, default=str).encode())
    pkg = _RULES_DIR / game
    if pkg.is_dir():
        for f in sorted(pkg.rglob("*")):
            if f.suffix in (".py", ".json", ".toml", ".csv") and f.is_file():
                h.update(f.name.encode())
                h.update(f.read_bytes())
    return h.hexdigest()[:16]


@dataclass
class Result:
    """One run: per-game arrays (``out``), the tidy ``frame``, ``summary`` and ``manifest``."""

    spec: Any
    setup: Any
    out: dict
    n: int
    seed: int
    players: int
    policies: list
    options: dict
    elapsed_s: float
    threads: int
    engine: str = "kernel"
    _frame: pd.DataFrame | None = field(default=None, repr=False)

    @property
    def game(self) -> str:
        return self.spec.name

    @property
    def frame(self) -> pd.DataFrame:
        """Tidy per-game frame: one row per game (``game_id`` first)."""
        if self._frame is None:
            self._frame = self.spec.frame(self.setup, self.out)
        return self._frame

    def frame_with_options(self) -> pd.DataFrame:
        """``frame`` plus ``rule_*`` and ``policy_*`` columns (one per option and seat) and
        ``seed``, each a one-category Categorical (one byte a row, not an object per row)."""
        return self._add_options(self.frame.copy())

    def _add_options(self, df: pd.DataFrame) -> pd.DataFrame:
        n = len(df)

        def const(value):
            return pd.Categorical.from_codes(np.zeros(n, np.int8), categories=[value])

        for k, v in self.options.items():
            df[f"rule_{k}"] = const(v)
        for seat, p in enumerate(self.policies):
            df[f"policy_{seat}"] = const(p)
        df["seed"] = self.seed
        return df

    def iter_frames(self, rows: int = 1_000_000, *, with_options: bool = False):
        """The per-game frame in slices of ``rows`` games (bounded memory for big runs);
        concatenated they equal ``frame`` (or ``frame_with_options``)."""
        for a in range(0, self.n, rows):
            df = self.spec.frame(self.setup, {k: v[a:a + rows] for k, v in self.out.items()})
            df["game_id"] += a
            yield self._add_options(df) if with_options else df

    def _identity(self) -> dict:
        """What was run: shared head of the summary and the manifest."""
        return {"game": self.game, "n": self.n, "seed": self.seed, "players": self.players,
                "policies": list(self.policies), "options": dict(self.options)}

    @property
    def summary(self) -> dict:
        """Headline metrics with intervals plus the run's identity (the ``--json`` object)."""
        return {**self._identity(),
                "elapsed_s": round(self.elapsed_s, 4),
                "games_per_s": round(self.n / self.elapsed_s, 1) if self.elapsed_s > 0 else None,
                **self.spec.summary(self.setup, self.out)}

    @property
    def manifest(self) -> dict:
        """Everything needed to regenerate the run (style rule 15)."""
        return {**self._identity(),
                "rules_hash": rules_hash(self.game, self.options),
                "rng_scheme": self.spec.rng_scheme,
                "engine": self.engine,
                "threads": self.threads,
                "elapsed_s": self.elapsed_s,
                "versions": package_versions(),
                "git_commit": git_commit(),
                "n_rows": self.n}

    def to_parquet(self, path, *, with_options: bool = False) -> Path:
        """Write the per-game frame to ``path`` and ``path.manifest.json`` beside it, atomically.
        The manifest always holds every option; ``with_options`` also adds them as columns."""
        return write_results(self.iter_frames(with_options=with_options), path,
                             manifest=self.manifest)


def outcome_frame(out: dict, outcome_names, truncated_code: int) -> pd.DataFrame:
    """One row per game from per-game arrays: ``game_id``, ``outcome`` (categorical from the
    integer ``out["outcome"]`` codes, named by ``outcome_names``), ``truncated``, then every
    other array of ``out`` as a column."""
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


def check_writable(path) -> Path:
    """Raise InputError unless ``path`` can be created (its folder exists and is writable)."""
    path = Path(path)
    if path.suffix != ".parquet":
        raise InputError(f"--out must end in .parquet, got {str(path)!r}")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise InputError(f"cannot write {str(path)!r}: folder {str(folder)!r} does not exist")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise InputError(f"cannot write {str(path)!r}: permission denied")
    return path


def _atomic_write(path: Path, write) -> None:
    """Temp file + rename: readers never see a partial file."""
    tmp = path.with_name(f".{path.stem}.{os.getpid()}.tmp{path.suffix}")   # keeps the format
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def write_results(frames, path, *, manifest: dict) -> Path:
    """Parquet + ``<stem>.manifest.json``; both atomic, manifest first, data last.

    ``frames`` is one DataFrame or an iterable of DataFrames with the same columns (written as
    row groups one after another, so a big run never needs its whole frame in memory)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = check_writable(path)
    side = dict(manifest)
    if isinstance(frames, pd.DataFrame):
        side.setdefault("n_rows", len(frames))
        frames = [frames]

    def write_parquet(p: Path) -> int:
        writer, n_rows = None, 0
        try:
            for df in frames:
                table = pa.Table.from_pandas(df, preserve_index=False)
                if writer is None:
                    writer = pq.ParquetWriter(p, table.schema)
                writer.write_table(table.cast(writer.schema))
                n_rows += len(df)
        finally:
            if writer is not None:
                writer.close()
        return n_rows

    _atomic_write(manifest_path(path),
                  lambda p: p.write_text(json.dumps(side, indent=2, default=str)))
    _atomic_write(path, write_parquet)
    return path


def read_results(path) -> tuple[pd.DataFrame, dict]:
    """Read a results file and its manifest; refuse a file without one."""
    path = Path(path)
    mpath = manifest_path(path)
    try:
        manifest = json.loads(mpath.read_text())
        df = pd.read_parquet(path)
    except FileNotFoundError as e:
        raise InputError(f"cannot read {e.filename!r}: no such file") from None
    except (OSError, ValueError) as e:
        raise InputError(f"cannot read {str(path)!r}: {e}") from None
    return df, manifest
