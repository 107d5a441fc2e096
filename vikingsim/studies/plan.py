"""A checked study -> its cells (one configuration each) and each cell's chunks.

Cell ``c`` is the ``c``-th combination of the grid (product of the ``[grid]`` axes in file
order, then the ``[[cases]]``). Its games are cut into chunks of ``chunk_games`` (whole RNG
blocks); block ``b`` of cell ``c`` uses ``SeedSequence(seed, spawn_key=(c, stream, b))``, so a
game's numbers depend only on (seed, cell, game), never on the chunk size, the order, the
backend or the worker count. With ``common_seeds = true`` every cell uses
``SeedSequence(seed, spawn_key=(stream, b))``, the keys of a plain ``vikingsim simulate`` run:
cells then differ only by their configuration (common random numbers, for paired
comparisons such as tournaments, restricted play and ladders), and a one-cell study plays the
same games as ``simulate`` with the same seed.
"""
from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass, field
from pathlib import Path

from vikingsim.core.errors import InputError
from vikingsim.core.inputs import file_records
from vikingsim.core.options import resolve
from vikingsim.studies.spec import Study


@dataclass(frozen=True)
class Cell:
    """One configuration of a study: what its manifest entry records, plus ``run_options``
    (the options with relative ``.toml`` paths resolved against the study file). ``files``
    records every file an option or policy of the cell names (path as written in the study
    file, sha256 of its bytes; :mod:`vikingsim.core.inputs`); a cell naming none has no
    ``files`` entry, so its part of the study hash is what it was before files were hashed."""

    cell: int
    label: str
    players: int
    policies: tuple
    options: dict
    run_options: dict
    grid: dict
    games: int
    files: dict = field(default_factory=dict)

    def manifest(self) -> dict:
        files = {"files": dict(self.files)} if self.files else {}
        return {"cell": self.cell, "label": self.label, "players": self.players,
                "policies": list(self.policies), "options": dict(self.options),
                "grid": dict(self.grid), "games": self.games, **files}


@dataclass(frozen=True)
class Chunk:
    """Games ``first_game .. first_game + games`` of ``cell``."""

    cell: int
    chunk: int
    first_game: int
    games: int


def chunk_size(spec, chunk_games: int) -> int:
    """``chunk_games`` rounded up to whole RNG blocks of the game."""
    return -(-chunk_games // spec.block_games) * spec.block_games


def plan_cells(study: Study) -> list[Cell]:
    """Every cell of the study, each checked by the game's ``setup`` (InputError naming the
    cell and the problem)."""
    from vikingsim.games import get

    spec = get(study.game)
    axes = [[(k, v) for v in values] for k, values in study.grid]
    cases = [list(c.items()) for c in study.cases] or [[]]
    cells = []
    for combo in itertools.product(*axes, cases):
        knobs = {**dict(combo[:-1]), **dict(combo[-1])}
        label = " ".join(f"{k}={_text(v)}" for k, v in knobs.items()) or "all"
        try:
            cells.append(_cell(spec, study, len(cells), label, knobs))
        except InputError as e:
            raise InputError(f"study file {study.path!r}, cell {len(cells)} ({label}): {e}") \
                from None
    return cells


def _text(v) -> str:
    return str(v).lower() if isinstance(v, bool) else str(v)


def _cell(spec, study: Study, index: int, label: str, knobs: dict) -> Cell:
    from vikingsim.core.runner import resolve_policies

    players = knobs.get("players", study.players)
    opts = {**study.options, **{k: v for k, v in knobs.items()
                                if k != "players" and not k.startswith("policy")}}
    recorded = resolve(spec.name, spec.options, opts)
    run_opts = {k: local_path(study.folder, v) for k, v in recorded.items()}
    given = [local_path(study.folder, p) for p in study.policies]
    seats, players = resolve_policies(spec, given or None, players)
    policy_knobs = {k: v for k, v in knobs.items() if k.startswith("policy")}
    seats = _apply_policy_knobs(seats, policy_knobs)
    seats = [local_path(study.folder, p) for p in seats]
    pols, players = resolve_policies(spec, seats, players)
    spec.setup(run_opts, pols, players)
    files = file_records(recorded, _seat_texts(study, players, policy_knobs),
                         read=lambda v: local_path(study.folder, v))
    return Cell(index, label, players, tuple(pols), recorded, run_opts, knobs, study.games,
                files)


def _seat_texts(study: Study, players: int, knobs: dict) -> list:
    """Each seat's policy text as written in the study file (``policies``, then the
    ``policy`` and ``policy.<seat>`` knobs; None for a default seat), for the file records."""
    from vikingsim.core.runner import seat_texts

    texts = seat_texts(list(study.policies), players) or [None] * players
    for key, value in sorted(knobs.items(), key=lambda kv: kv[0].count(".")):
        parts = key.split(".")
        if len(parts) == 1:
            texts = [str(value)] * players
        elif len(parts) == 2 and parts[1].isdigit():
            texts[int(parts[1])] = str(value)
    return texts


def local_path(folder: Path, value):
    """A relative ``.toml`` path in a study file is read relative to the file's ``folder``."""
    if isinstance(value, str) and value.endswith(".toml") and not Path(value).is_absolute():
        return str(folder / value)
    return value


def _apply_policy_knobs(seats: list, knobs: dict) -> list:
    """``policy``, ``policy.<seat>``, ``policy.<param>``, ``policy.<seat>.<param>``."""
    from vikingsim.core import policies

    seats = list(seats)
    for key, value in sorted(knobs.items(), key=lambda kv: kv[0].count(".")):
        parts = key.split(".")
        if parts[0] != "policy" or len(parts) > 3 or (len(parts) == 3 and not parts[1].isdigit()):
            raise InputError(f"unknown knob {key!r}: write policy, policy.<seat>, "
                             f"policy.<param> or policy.<seat>.<param>")
        which = [int(parts[1])] if len(parts) > 1 and parts[1].isdigit() else range(len(seats))
        if any(s >= len(seats) for s in which):
            raise InputError(f"knob {key!r}: no seat {parts[1]} among {len(seats)} seats")
        param = parts[-1] if len(parts) == 3 or (len(parts) == 2 and not parts[1].isdigit()) \
            else None
        for s in which:
            if param is None:
                seats[s] = str(value)
            else:
                name, params = policies.parse(seats[s])
                params[param] = value
                seats[s] = f"{name}({', '.join(f'{k}={v}' for k, v in params.items())})"
    return seats


def plan_chunks(cell: Cell, chunk_games: int) -> list[Chunk]:
    """The cell's chunks, in order (the last one may be short)."""
    return [Chunk(cell.cell, k, g0, min(chunk_games, cell.games - g0))
            for k, g0 in enumerate(range(0, cell.games, chunk_games))]


def seed_prefix(study: Study, cell: int) -> tuple:
    """The spawn-key prefix of ``cell``'s streams: ``(cell,)``, or ``()`` under common seeds."""
    return () if study.common_seeds else (cell,)


def study_content(study: Study, cells: list[Cell], chunk_games: int, rules_version: str) -> dict:
    """What the dataset holds (game, rules version, seed, chunking, rows, every cell's
    configuration and size), as JSON values: what :func:`study_hash` hashes, kept in the
    manifest so that a refused ``--resume`` can name what changed (:func:`changes`)."""
    return json.loads(json.dumps({"game": study.game, "rules_version": rules_version,
                                  "seed": study.seed, "chunk_games": chunk_games,
                                  "rows": study.rows, "cells": [c.manifest() for c in cells],
                                  # only when on, so the hash of every older study is unchanged
                                  **({"common_seeds": True} if study.common_seeds else {})},
                                 default=str))


def content_hash(content: dict) -> str:
    text = json.dumps(content, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def study_hash(study: Study, cells: list[Cell], chunk_games: int, rules_version: str) -> str:
    """Content hash of :func:`study_content`; comments and layout of the file do not enter
    it."""
    return content_hash(study_content(study, cells, chunk_games, rules_version))


def changes(old: dict, new: dict, most: int = 4) -> str:
    """The differences of two :func:`study_content`, in words: "seed 303 -> 304; games 10000
    -> 12000 in cells 0, 1; cell 1: players 3 -> 4" (at most ``most`` parts)."""
    parts = [f"{k} {old.get(k)!r} -> {new.get(k)!r}" for k in dict.fromkeys([*old, *new])
             if k != "cells" and old.get(k) != new.get(k)]
    a, b = old.get("cells") or [], new.get("cells") or []
    if len(a) != len(b):
        parts.append(f"cells {len(a)} -> {len(b)}")
    else:
        parts += _cell_changes(a, b)
    more = f"; and {len(parts) - most} more" if len(parts) > most else ""
    return "; ".join(parts[:most]) + more or "nothing recorded differs"


def _cell_changes(a: list, b: list) -> list[str]:
    """A change shared by several cells once ("x 1 -> 2 in cells 0, 1"), the others by cell."""
    seen: dict = {}
    for i, (x, y) in enumerate(zip(a, b)):
        fx, fy = _flat(x), _flat(y)
        for k in dict.fromkeys([*fx, *fy]):
            if fx.get(k) != fy.get(k):
                seen.setdefault((k, repr(fx.get(k)), repr(fy.get(k))), []).append(i)
    shared = [f"{k} {u} -> {v} in cells {', '.join(map(str, cs))}"
              for (k, u, v), cs in seen.items() if len(cs) > 1]
    by_cell: dict = {}
    for (k, u, v), cs in seen.items():
        if len(cs) == 1:
            by_cell.setdefault(cs[0], []).append(f"{k} {u} -> {v}")
    return shared + [f"cell {c}: {', '.join(w)}" for c, w in sorted(by_cell.items())]


def _flat(cell: dict) -> dict:
    """A cell's manifest with its options and grid one level down ("options.start_gold")."""
    out = {}
    for k, v in cell.items():
        if isinstance(v, dict):
            out.update({f"{k}.{kk}": vv for kk, vv in v.items()})
        else:
            out[k] = v
    return out
