"""Test fixture: writes a study folder in the fixed ``vikingsim experiment`` layout, from
``simulate`` runs (``build_study``) or from hand-made games (``hand_cell``), until the
tests switch to a real ``vikingsim experiment`` run.

Layout (results/NAME/): ``study.json``, ``data/cell=<c>/chunk-<k:06d>.parquet`` (the game's
per-game frame), ``data/cell=<c>/chunk-<k:06d>.tally.json`` (``{"chunk": meta, "tally":
GameSpec.tally}`` of the chunk; it marks the chunk finished), ``summary.parquet`` (tidy: one
row per cell and metric).
"""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from vikingsim.core.results import package_versions
from vikingsim.core.options import resolve
from vikingsim.core.runner import resolve_policies, simulate
from vikingsim.games import get
from vikingsim.studies.dataset import write_tally


def cell_spec(games: int, *, players=None, policies=None, grid=None, options=None) -> dict:
    """One planned cell: ``grid`` holds the varied knobs (options, or ``players``)."""
    return {"games": games, "players": players, "policies": policies, "grid": grid or {},
            "options": options or {}}


def build_study(root, name: str, game: str, cells: list[dict], *, chunk_games: int = 1000,
                root_seed: int = 7, report: dict | None = None, done: dict | None = None,
                rows: bool = True, reference: bool = False) -> Path:
    """Simulate each cell (seed root_seed + cell) and write results/NAME under ``root``;
    ``done`` maps cell -> games actually played (an unfinished study); ``reference`` plays
    with the plain-Python engine (no compiling, for a few games)."""
    played = []
    for i, c in enumerate(cells):
        n_done = (done or {}).get(i, c["games"])
        opts = {k: v for k, v in c["grid"].items() if k != "players"}
        res = simulate(game, max(n_done, 1), seed=root_seed + i, keep=True, threads=1,
                       reference=reference,
                       players=c["grid"].get("players", c["players"]), policies=c["policies"],
                       options={**c["options"], **opts})
        meta = {**c, "players": res.players, "policies": res.policies, "options": res.options}
        played.append({"meta": meta, "frame": res.frame.iloc[:n_done],
                       "tally": _tally_of(res.spec, res.setup, res.out)})
    return write_study(root, name, game, played, chunk_games=chunk_games, root_seed=root_seed,
                       report=report, rows=rows)


def hand_cell(game: str, meta: dict, arrays: dict) -> dict:
    """A cell of hand-made games: the game's per-game arrays (``GameSpec.allocate``) with
    ``arrays`` filled in (e.g. winner, rounds); its rows and tallies come from the game's own
    ``frame`` and ``tally``. ``meta``: games, players, policies, grid[, options]."""
    spec = get(game)
    opts = resolve(spec.name, spec.options, meta.get("options") or {})
    pols, players = resolve_policies(spec, meta["policies"], meta["players"])
    setup = spec.setup(opts, pols, players)
    out = spec.allocate(setup, len(next(iter(arrays.values()))))
    for key, v in arrays.items():
        out[key][...] = v
    return {"meta": {**meta, "options": opts, "policies": pols, "players": players},
            "frame": spec.frame(setup, out), "tally": _tally_of(spec, setup, out)}


def _tally_of(spec, setup, out):
    return lambda a, b: spec.tally(setup, {key: v[a:b] for key, v in out.items()})


def write_study(root, name: str, game: str, cells: list[dict], *, chunk_games: int = 1000,
                root_seed: int = 7, report: dict | None = None, rows: bool = True) -> Path:
    """Write results/NAME under ``root`` from ``cells``: each {"meta": cell_spec-like dict
    with players/policies/options filled in, "frame": its per-game rows, "tally": (a, b) ->
    the tally of games a..b}; ``rows=False`` keeps tallies only (no .parquet chunks,
    ``"rows": false``). Returns the study folder."""
    folder = Path(root) / name
    (folder / "data").mkdir(parents=True)
    entries = [_write_cell(folder, i, c, chunk_games, rows) for i, c in enumerate(cells)]
    manifest = {"format": "vikingsim-study/1", "name": name, "study_file": f"{name}.toml",
                "study_toml": f'# fixture\ngame = "{game}"\n', "game": game,
                "rules_version": get(game).rules_version, "versions": package_versions(),
                "root_seed": root_seed, "chunk_games": chunk_games,
                "grid_keys": list(dict.fromkeys(k for c in cells for k in c["meta"]["grid"])),
                "report": report or {}, "rows": rows, "cells": entries}
    (folder / "study.json").write_text(json.dumps(manifest, indent=1))
    pd.DataFrame([{"cell": e["cell"], "metric": "games", "value": float(e["games_done"]),
                   "lo": None, "hi": None, "games": e["games_done"], **e["grid"]}
                  for e in entries]).to_parquet(folder / "summary.parquet", index=False)
    return folder


def _write_cell(folder: Path, i: int, c: dict, chunk_games: int, rows: bool) -> dict:
    meta, frame = c["meta"], c["frame"]
    cell_dir = folder / "data" / f"cell={i}"
    cell_dir.mkdir()
    for k, a in enumerate(range(0, len(frame), chunk_games)):
        b = min(len(frame), a + chunk_games)
        meta_k = {"cell": i, "chunk": k, "first_game": a, "games": b - a}
        t = c["tally"](a, b)
        if rows:
            pq.write_table(pa.Table.from_pandas(frame.iloc[a:b], preserve_index=False),
                           cell_dir / f"chunk-{k:06d}.parquet")
        write_tally(cell_dir / f"chunk-{k:06d}.tally.json", t, meta_k)   # marks it finished
    return {"cell": i, "label": " ".join(f"{k}={v}" for k, v in meta["grid"].items()),
            "players": meta["players"], "policies": list(meta["policies"]),
            "options": meta.get("options") or {}, "grid": meta["grid"], "games": meta["games"],
            "games_done": len(frame), "decided": meta.get("decided")}
