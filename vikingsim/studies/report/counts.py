"""What the report counts of a study, read only through :mod:`vikingsim.studies.dataset`:
per cell the games, outcome counts, wins per seat and the game-length histogram.

The counts come from the finished chunks' tallies (``StudyData.cell_tally``, through the game's
``summarize``: a few numbers per chunk, whatever the number of games); the per-game rows
(``StudyData.rows_dataset``, only the columns needed, batch by batch) are read only for a
length histogram the tallies lack, or for everything with ``source="rows"`` (``--from-rows``,
a check)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from vikingsim.core.errors import InputError
from vikingsim.core.game import LENGTH_COLUMNS, GameSpec, tally_counts
from vikingsim.studies.dataset import StudyData, one_line, open_study
from vikingsim.studies.report.labels import cell_title, raw_label


@dataclass
class StudyView:
    """A study as the report reads it: its :class:`StudyData`, the cell records with their
    titles in words, and notes said among the findings."""

    data: StudyData
    cells: list = field(default_factory=list)          # manifest cells + "title"
    notes: list = field(default_factory=list)

    @property
    def manifest(self) -> dict:
        return self.data.manifest

    @property
    def spec(self) -> GameSpec:
        return self.data.spec

    @property
    def keys(self) -> list[str]:
        return self.data.grid_keys

    @property
    def name(self) -> str:
        return self.data.name

    @property
    def path(self) -> Path:
        return self.data.root


def load_study(path) -> StudyView:
    """The study in folder ``path`` (``dataset.open_study``); InputError naming the problem
    when it is not one or its game is unknown."""
    return view_of(open_study(path))


def view_of(data: StudyData) -> StudyView:
    """The report's view of an opened study."""
    data.spec                                          # an unknown game: InputError now
    cells = [{**c, "title": cell_title(data.manifest, c)} for c in data.entries]
    return StudyView(data, cells)


SOURCES = ("auto", "tallies", "rows")


@dataclass
class CellCount:
    """What the report needs of one cell's games: counts only."""

    games: int = 0
    outcomes: dict = field(default_factory=dict)      # outcome name -> games
    wins: np.ndarray | None = None                    # seated: wins per seat
    length: np.ndarray | None = None                  # histogram of the length column


def length_column(names) -> str | None:
    """The game-length column of a frame's columns (``LENGTH_COLUMNS``), or None."""
    return next((c for c in LENGTH_COLUMNS if c in names), None)


def count_games(study: StudyView, source: str = "auto"
                ) -> tuple[dict[int, CellCount], str | None]:
    """Per cell: games, outcome counts, wins per seat and the length histogram; and the name
    of the length column (None if the game keeps none).

    ``source``: ``"auto"`` counts from the finished chunks' tallies (``count_tallies``, a few
    numbers per chunk) and reads the per-game rows only for a length histogram the tallies
    lack (one column); ``"tallies"`` never reads rows; ``"rows"`` counts everything from the
    per-game rows (``count_rows``: slower, a check of the tallies)."""
    if source not in SOURCES:
        raise InputError(f"source must be one of {', '.join(SOURCES)}, got {source!r}")
    rows = study.data.has_rows
    check_layout(study)
    if source == "rows":
        if not rows:
            raise InputError(f"study {study.name!r} keeps tallies only (rows = false): it has "
                             f"no per-game rows to count")
        return count_rows(study)
    try:
        counts, length = count_tallies(study)
    except Unsummarized as e:
        if not rows or source == "tallies":
            raise InputError(str(e)) from None
        study.notes.append(f"Counted from the per-game rows: {e}.")
        return count_rows(study)
    if length is None and rows and source == "auto":
        by_rows, length = count_rows(study, lengths_only=True)
        for c, acc in counts.items():
            acc.length = by_rows[c].length
    return counts, length


def count_rows(study: StudyView, lengths_only: bool = False):
    """``count_games`` from the per-game rows of the finished chunks, batch by batch, reading
    only the columns needed (only the length column with ``lengths_only``)."""
    import pyarrow as pa

    dataset = study.data.rows_dataset()
    names = dataset.schema.names
    need = [] if lengths_only else ["outcome"] + (["winner"] if study.spec.seated else [])
    missing = [c for c in need if c not in names]
    if missing:
        raise InputError(f"study data of {study.name!r} has no column {missing[0]!r}")
    length = length_column(names)
    counts = {c["cell"]: CellCount() for c in study.cells}
    if lengths_only and length is None:
        return counts, None
    try:
        for batch in dataset.to_batches(columns=["cell", *need, *([length] if length else [])]):
            _add_batch(study, counts, batch, length)
    except (pa.ArrowException, OSError) as e:
        raise InputError(f"corrupt study data in {str(study.path / 'data')!r}: "
                         f"{one_line(e)}") from None
    return counts, length


def check_layout(study: StudyView) -> None:
    """InputError unless the data holds together with study.json: no cell folder it does not
    list, and every finished chunk's tally of a seated game counts wins of as many seats as
    study.json gives its cell players."""
    stray = study.data.stray_cells()
    if stray:
        raise InputError(f"study data has data/cell={stray[0]}, which study.json does not list")
    if not study.spec.seated:
        return
    for cell in study.cells:
        try:
            for path, tally, _ in study.data.chunk_tallies(cell["cell"]):
                _check_wins(study, cell, path, tally.get("wins"))
        except (OSError, ValueError) as e:
            raise InputError(f"corrupt study tallies in {str(study.path / 'data')!r}: "
                             f"{one_line(e)}") from None


def _check_wins(study: StudyView, cell: dict, path: Path, wins) -> None:
    if wins is not None and len(wins) != cell["players"]:
        raise InputError(f"study {study.name!r} does not hold together: "
                         f"{path.relative_to(study.path)} counts wins of {len(wins)} "
                         f"seats, but {_gives(cell)}")


def _gives(cell: dict) -> str:
    return (f"study.json gives cell {cell['cell']} ({raw_label(cell)}) {cell['players']} "
            f"players")


class Unsummarized(InputError):
    """The tallies are sound but the game cannot summarise them here (e.g. a cell's setup
    reads a file that is not where the study file said)."""


def count_tallies(study: StudyView) -> tuple[dict[int, CellCount], str | None]:
    """``count_games`` from the finished chunks' tallies: wins, outcome counts and the length
    histogram (where the game keeps one) read from the tallies' integer counts
    (``core.game.tally_counts``); the game's ``summarize`` must accept them too."""
    try:
        tallies = {c["cell"]: _cell_tally(study, c["cell"]) for c in study.cells}
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise InputError(f"corrupt study tallies in {str(study.path / 'data')!r}: "
                         f"{one_line(e)}") from None
    if not any(n for _, n in tallies.values()):
        raise InputError(f"study {study.name!r} has no games yet: no finished "
                         f"data/cell=*/chunk-*.tally.json in {str(study.path)!r}")
    try:
        summaries = study.data.summaries()
    except (InputError, OSError, ValueError, KeyError, TypeError) as e:
        raise Unsummarized(f"the tallies of study {study.name!r} cannot be summarised: "
                           f"{one_line(e)}") from None
    keys = set().union(*(t for t, _ in tallies.values()))
    length = next((c for c in LENGTH_COLUMNS if f"{c}_hist" in keys), None)
    counts = {c: _count_of_summary(study.spec, summaries.get(c), t, n, length)
              for c, (t, n) in tallies.items()}
    return counts, length


def _cell_tally(study: StudyView, cell: int) -> tuple[dict, int]:
    tally, n = study.data.cell_tally(cell)
    return tally or {}, n


def _count_of_summary(spec: GameSpec, summary, tally: dict, n: int, length) -> CellCount:
    """A cell's counts, read from its tally (``core.game.tally_counts``); ``summary`` is None
    for a cell with no finished chunk."""
    acc = CellCount(games=n if summary else 0)
    if not summary:
        return acc
    got = tally_counts(spec, tally, n)
    acc.outcomes = {o: k for o, k in got.outcomes.items() if k}   # as counted from rows
    acc.wins = got.wins
    if length is not None and f"{length}_hist" in tally:
        acc.length = np.asarray(tally[f"{length}_hist"], np.int64)
    return acc


def _add_batch(study: StudyView, counts: dict, batch, length: str | None) -> None:
    import pyarrow.compute as pc

    cells = np.unique(batch.column("cell").to_numpy(zero_copy_only=False))
    for c in cells:
        if int(c) not in counts:
            raise InputError(f"study data has data/cell={c}, which study.json does not list")
        rows = batch if len(cells) == 1 else batch.filter(pc.equal(batch.column("cell"), c))
        _add_rows(counts[int(c)], rows, length)
        cell = next(e for e in study.cells if e["cell"] == int(c))
        wins = counts[int(c)].wins
        if study.spec.seated and wins is not None and wins.size > cell["players"]:
            raise InputError(f"study {study.name!r} does not hold together: data/cell={c} "
                             f"has games won by seat {wins.size - 1}, but {_gives(cell)}")


def _add_rows(acc: CellCount, rows, length: str | None) -> None:
    acc.games += rows.num_rows
    if "outcome" in rows.schema.names:
        for name, k in _value_counts(rows.column("outcome")).items():
            acc.outcomes[name] = acc.outcomes.get(name, 0) + k
    if "winner" in rows.schema.names:
        w = rows.column("winner").to_numpy(zero_copy_only=False).astype(np.int64)
        acc.wins = add_hist(acc.wins, np.bincount(w[w >= 0]))
    if length is not None:
        x = rows.column(length).to_numpy(zero_copy_only=False).astype(np.int64)
        acc.length = add_hist(acc.length, np.bincount(np.maximum(x, 0)))


def _value_counts(col) -> dict:
    """Outcome name -> count of an Arrow column (dictionary-encoded or plain strings)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_dictionary(col.type):
        idx = col.indices.to_numpy(zero_copy_only=False).astype(np.int64)
        got = np.bincount(idx, minlength=len(col.dictionary))
        return {str(n): int(k) for n, k in zip(col.dictionary.to_pylist(), got) if k}
    vc = pc.value_counts(col)
    return {str(v): int(k) for v, k in zip(vc.field("values").to_pylist(),
                                            vc.field("counts").to_pylist())}


def add_hist(a: np.ndarray | None, b: np.ndarray) -> np.ndarray:
    """The sum of two histograms of any lengths (``a`` may be None: none yet)."""
    if a is None:
        return b.astype(np.int64)
    width = max(a.size, b.size)
    return np.pad(a, (0, width - a.size)) + np.pad(b, (0, width - b.size))
