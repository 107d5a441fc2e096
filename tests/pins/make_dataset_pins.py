"""Regenerate ``datasets.json``: small versions of shipped study files (``run_study(FILE,
games=N)``, what ``vikingsim experiment FILE --games N`` runs) pinned by content, so that
"every shipped dataset is unchanged bit for bit" is a test (tests/test_dataset_pins.py).

Per study: its study hash (a changed hash refuses ``--resume`` of every existing folder), and
per chunk its tally (exact integers) and a SHA-256 of its rows: each column's name, dtype and
value bytes (a category column by its categories and codes), which does not depend on the
Parquet writer's version as the file's own bytes do. Run only when a rules or runner change
deliberately changes results, and say which in the commit (first made by the code of main at
bc14daa, before ``--games`` was on the command line)."""
import hashlib
import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

#: (study file, games per cell): a plain grid with rows, tallies only (rows = false), cases
#: with warband files, and the two generated kinds on common seeds.
STUDIES = [("raidboard_seats", 64), ("battle878_ragnar", 64), ("ravenfeast_equal_points", 64),
           ("raidboard_importance", 64), ("raidboard_tournament", 64)]


def rows_digest(path) -> str:
    import pandas as pd

    df = pd.read_parquet(path)
    h = hashlib.sha256()
    for name in df.columns:
        col = df[name]
        h.update(f"{name}:{col.dtype}".encode())
        if isinstance(col.dtype, pd.CategoricalDtype):
            h.update(json.dumps([str(c) for c in col.cat.categories]).encode())
            h.update(col.cat.codes.to_numpy().tobytes())
        else:
            h.update(col.to_numpy().tobytes())
    return h.hexdigest()


def digest(root) -> dict:
    """The pinned content of the study folder ``root``."""
    from vikingsim.studies.dataset import read_manifest, read_tally

    root = Path(root)
    m = read_manifest(root)
    chunks = []
    for tally_file in sorted(root.glob("data/cell=*/chunk-*.tally.json"),
                             key=lambda p: (int(p.parent.name[5:]), p.name)):
        tally, meta = read_tally(tally_file)
        rows = tally_file.with_name(tally_file.name.replace(".tally.json", ".parquet"))
        chunks.append({"cell": meta["cell"], "chunk": meta["chunk"],
                       "tally": {k: v.tolist() for k, v in tally.items()},
                       "rows": rows_digest(rows) if rows.exists() else None})
    return {"study_hash": m["study_hash"], "cells": len(m["cells"]), "chunks": chunks}


def run(name: str, games: int, out) -> dict:
    from vikingsim.studies.kinds import expand
    from vikingsim.studies.run import run_study
    from vikingsim.studies.spec import load_study

    study = expand(load_study(ROOT / "experiments" / f"{name}.toml"))
    run_study(study, Path(out) / name, games=games, workers=1)
    return digest(Path(out) / name)


def dump(pins: list) -> str:
    """The pins as JSON, one chunk a line."""
    def study(p):
        head = json.dumps({k: v for k, v in p.items() if k != "chunks"})[:-1]
        chunks = ",\n  ".join(json.dumps(c, separators=(",", ":")) for c in p["chunks"])
        return f'{head}, "chunks": [\n  {chunks}]}}'
    return "[\n" + ",\n".join(study(p) for p in pins) + "\n]\n"


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        pins = [{"study": name, "games": games, **run(name, games, tmp)}
                for name, games in STUDIES]
    (HERE / "datasets.json").write_text(dump(pins))
    print(f"wrote {HERE / 'datasets.json'}: {len(pins)} studies")
    return 0


if __name__ == "__main__":
    sys.exit(main())
