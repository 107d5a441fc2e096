"""HTML report of a study folder (``vikingsim report results/NAME``).

The page is self-contained: figures are PNG data URIs, the CSS is inline and nothing is fetched.
It shows win rates by seat (or side), policy and option with Wilson 95 % intervals, heatmaps of
two-knob grids, game-length histograms, findings in plain words and the study's provenance.

The counts come from the finished chunks' tallies (``data/cell=<c>/chunk-*.tally.json``,
through the game's ``summarize``: a few numbers per chunk, whatever the number of games); the
per-game rows (``chunk-*.parquet``, read with ``pyarrow.dataset``, hive partitioning, only the
columns needed, batch by batch) are read only for a length histogram the tallies lack, or for
everything with ``source="rows"`` (``--from-rows``, a check). Any registered game works through
its ``GameSpec``: seated games by their wins per seat, others by their ``outcome`` vocabulary
(outcomes named ``<side>_win`` are the sides compared with an even split).
"""
from __future__ import annotations

import base64
import html
import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from string import Template

import numpy as np
import pandas as pd

from vikingsim.core import stats
from vikingsim.core.balance_stats import equal_seats_test, interval
from vikingsim.core.errors import InputError
from vikingsim.core.game import LENGTH_COLUMNS, GameSpec, tally_counts

FORMAT = "vikingsim-study/1"
#: At most this many cells get a sentence each among the outcome findings (the tables have all).
FINDING_CELLS = 8
#: Up to this many cells, the length histogram draws a line per cell; beyond, a box each.
HIST_LINES = 4
#: At most this many cells drawn as bars (studies of three or more knobs; the tables have all).
BAR_CELLS = 60
#: At most this many heatmap panels per figure.
PANELS = 9
ALPHA = 0.05
DPI = 100
#: Widest figure (inches at ``DPI``) the page shows at its own size (the body is 1100 px).
PAGE_INCHES = 10.5
#: Smallest text in a figure (points: 9 pt at 100 dpi = 12.5 px); heatmap numbers are larger.
SMALL_PT = 9
CELL_PT = 11


# ---- loading --------------------------------------------------------------------------------
@dataclass
class StudyFolder:
    """A study folder: its path, manifest (``study.json``) and the game's spec."""

    path: Path
    manifest: dict
    spec: GameSpec
    notes: list = field(default_factory=list)         # said among the findings

    @property
    def cells(self) -> list[dict]:
        return self.manifest["cells"]

    @property
    def keys(self) -> list[str]:
        return list(self.manifest.get("grid_keys") or [])

    @property
    def name(self) -> str:
        return str(self.manifest["name"])


def load_study(path) -> StudyFolder:
    """The study in folder ``path``; InputError naming the problem when it is not one."""
    from vikingsim.games import get

    path = Path(path)
    if not path.exists():
        raise InputError(f"study folder {str(path)!r} does not exist")
    if not path.is_dir():
        raise InputError(f"{str(path)!r} is not a study: a file, not a folder")
    mpath = path / "study.json"
    if not mpath.is_file():
        raise InputError(f"{str(path)!r} is not a study: it has no study.json")
    manifest = _read_manifest(mpath)
    for c in manifest["cells"]:
        c["title"] = cell_title(manifest, c)
    return StudyFolder(path, manifest, get(manifest["game"]))


def _read_manifest(mpath: Path) -> dict:
    try:
        m = json.loads(mpath.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise InputError(f"corrupt study manifest {str(mpath)!r}: {one_line(e)}") from None
    _check_manifest(m, mpath)
    return m


_TOP = {"name": str, "game": str, "cells": list, "grid_keys": list}
_CELL = {"cell": int, "players": int, "policies": list, "grid": dict, "games": int}


def _check_manifest(m, mpath: Path) -> None:
    bad = f"corrupt study manifest {str(mpath)!r}"
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


# ---- counting the per-game rows -------------------------------------------------------------
@dataclass
class CellCount:
    """What the report needs of one cell's games: counts only."""

    games: int = 0
    outcomes: dict = field(default_factory=dict)      # outcome name -> games
    wins: np.ndarray | None = None                    # seated: wins per seat
    length: np.ndarray | None = None                  # histogram of the length column


def _dataset(study: StudyFolder):
    import pyarrow as pa
    import pyarrow.dataset as ds

    data = study.path / "data"
    # a chunk is finished when its .tally.json exists (written after its rows)
    files = [f for f in sorted(data.glob("cell=*/chunk-*.parquet"))
             if f.with_name(f.name[:-len(".parquet")] + ".tally.json").exists()]
    if not files:
        raise InputError(f"study {study.name!r} has no games yet: no finished "
                         f"{data.name}/cell=*/chunk-*.parquet in {str(study.path)!r}")
    part = ds.partitioning(pa.schema([("cell", pa.int64())]), flavor="hive")
    try:
        return ds.dataset([str(f) for f in files], format="parquet", partitioning=part,
                          partition_base_dir=str(data))
    except (pa.ArrowException, OSError) as e:
        raise InputError(f"corrupt study data in {str(data)!r}: {one_line(e)}") from None


def one_line(e: Exception) -> str:
    """An exception's message on one printable line (Arrow's may span several)."""
    return " ".join("".join(ch if ch.isprintable() else " " for ch in str(e)).split())


def length_column(names) -> str | None:
    """The game-length column of a frame's columns (``LENGTH_COLUMNS``), or None."""
    return next((c for c in LENGTH_COLUMNS if c in names), None)


SOURCES = ("auto", "tallies", "rows")


def count_games(study: StudyFolder, source: str = "auto"
                ) -> tuple[dict[int, CellCount], str | None]:
    """Per cell: games, outcome counts, wins per seat and the length histogram; and the name
    of the length column (None if the game keeps none).

    ``source``: ``"auto"`` counts from the finished chunks' tallies (``count_tallies``, a few
    numbers per chunk) and reads the per-game rows only for a length histogram the tallies
    lack (one column); ``"tallies"`` never reads rows; ``"rows"`` counts everything from the
    per-game rows (``count_rows``: slower, a check of the tallies)."""
    if source not in SOURCES:
        raise InputError(f"source must be one of {', '.join(SOURCES)}, got {source!r}")
    rows = study.manifest.get("rows", True) is not False
    check_seats(study)
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


def count_rows(study: StudyFolder, lengths_only: bool = False):
    """``count_games`` from the per-game rows of the finished chunks, batch by batch, reading
    only the columns needed (only the length column with ``lengths_only``)."""
    import pyarrow as pa

    dataset = _dataset(study)
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


def check_seats(study: StudyFolder) -> None:
    """InputError unless every finished chunk's tally of a seated game counts wins of as
    many seats as study.json gives its cell players."""
    from vikingsim.studies.dataset import read_tally

    if not study.spec.seated:
        return
    for cell in study.cells:
        for path in sorted((study.path / "data" / f"cell={cell['cell']}").glob(
                "chunk-*.tally.json")):
            try:
                wins = read_tally(path)[0].get("wins")
            except (OSError, ValueError) as e:
                raise InputError(f"corrupt study tallies in {str(study.path / 'data')!r}: "
                                 f"{one_line(e)}") from None
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


def count_tallies(study: StudyFolder) -> tuple[dict[int, CellCount], str | None]:
    """``count_games`` from the finished chunks' tallies: wins, outcome counts and the length
    histogram (where the game keeps one) read from the tallies' integer counts
    (``core.game.tally_counts``); the game's ``summarize`` must accept them too."""
    from vikingsim.studies.dataset import cell_summaries

    try:
        tallies = {c["cell"]: _cell_tally(study, c["cell"]) for c in study.cells}
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise InputError(f"corrupt study tallies in {str(study.path / 'data')!r}: "
                         f"{one_line(e)}") from None
    if not any(n for _, n in tallies.values()):
        raise InputError(f"study {study.name!r} has no games yet: no finished "
                         f"data/cell=*/chunk-*.tally.json in {str(study.path)!r}")
    try:
        summaries = cell_summaries(study.path, study.manifest)
    except (InputError, OSError, ValueError, KeyError, TypeError) as e:
        raise Unsummarized(f"the tallies of study {study.name!r} cannot be summarised: "
                           f"{one_line(e)}") from None
    keys = set().union(*(t for t, _ in tallies.values()))
    length = next((c for c in LENGTH_COLUMNS if f"{c}_hist" in keys), None)
    counts = {c: _count_of_summary(study.spec, summaries.get(c), t, n, length)
              for c, (t, n) in tallies.items()}
    return counts, length


def _cell_tally(study: StudyFolder, cell: int) -> tuple[dict, int]:
    """Summed tally and games of a cell's finished chunks (``dataset.cell_tally``)."""
    from vikingsim.studies.dataset import cell_tally

    tally, n = cell_tally(study.path, cell)
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


def _add_batch(study: StudyFolder, counts: dict, batch, length: str | None) -> None:
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
        acc.wins = _add_hist(acc.wins, np.bincount(w[w >= 0]))
    if length is not None:
        x = rows.column(length).to_numpy(zero_copy_only=False).astype(np.int64)
        acc.length = _add_hist(acc.length, np.bincount(np.maximum(x, 0)))


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


def _add_hist(a: np.ndarray | None, b: np.ndarray) -> np.ndarray:
    if a is None:
        return b.astype(np.int64)
    width = max(a.size, b.size)
    return np.pad(a, (0, width - a.size)) + np.pad(b, (0, width - b.size))


# ---- tidy tables ----------------------------------------------------------------------------
def cell_label(cell: dict) -> str:
    """The cell in words ("Ends of the Earth, 3 players"; see ``cell_title``)."""
    return cell.get("title") or raw_label(cell)


def raw_label(cell: dict) -> str:
    """The cell as study.json names it ("variant=ends-of-earth players=3")."""
    return cell.get("label") or f"cell {cell['cell']}"


def _labels(manifest: dict) -> dict:
    labels = (manifest.get("report") or {}).get("labels")
    return {str(k): str(v) for k, v in labels.items()} if isinstance(labels, dict) else {}


def knob_words(manifest: dict, knob: str) -> str:
    """A knob in words: the study file's ``[report.labels]`` entry, else its name with
    spaces ("start_gold" -> "start gold")."""
    return _labels(manifest).get(knob) or knob.replace("_", " ").replace(".", " ")


def value_words(manifest: dict, knob: str, value) -> str:
    """A knob's value in words: "3 players", the ``[report.labels]`` entry of the value
    ("ends-of-earth" = "Ends of the Earth"), "start gold 20", "lookahead" (``policy``),
    "random in seat 1" (``policy.1``)."""
    v = _scalar(value)
    labels = _labels(manifest)
    if str(v) in labels:
        return labels[str(v)]
    if knob == "players":
        return f"{v} players"
    if isinstance(v, str) and v.endswith(".toml"):
        v = v.rsplit("/", 1)[-1][:-len(".toml")]
    parts = knob.split(".")
    if isinstance(v, str) and knob == "policy":
        return v
    if isinstance(v, str) and len(parts) == 2 and parts[0] == "policy" and parts[1].isdigit():
        return f"{v} in seat {parts[1]}"
    return f"{knob_words(manifest, knob)} {v}"


def cell_title(manifest: dict, cell: dict) -> str:
    """The cell's knob values in words, joined ("Ends of the Earth, 3 players")."""
    words = [value_words(manifest, k, v) for k, v in (cell.get("grid") or {}).items()]
    text = ", ".join(words) or raw_label(cell)
    return text[0].upper() + text[1:]


def _contenders(spec: GameSpec, cell: dict, acc: CellCount):
    """(names, wins, policies) of who can win a game: seats of a seated game, or the sides
    of a game whose outcomes include several ``<side>_win``."""
    if spec.seated:
        k = int(cell["players"])
        wins = np.zeros(k, np.int64) if acc.wins is None else np.pad(acc.wins, (0, k))[:k]
        pols = [str(p) for p in cell["policies"]] + [""] * k
        return [f"seat {i}" for i in range(k)], [int(w) for w in wins], pols[:k]
    sides = [o for o in spec.outcomes if o.endswith("_win")]
    if len(sides) < 2:
        return [], [], []
    return ([f"side {o[:-4]}" for o in sides], [acc.outcomes.get(o, 0) for o in sides],
            [""] * len(sides))


def contender_frame(study: StudyFolder, counts: dict) -> pd.DataFrame:
    """One row per (cell, seat or side): wins of all games with a Wilson 95 % interval, the
    fair share (decided games split evenly) and the difference from it."""
    rows = []
    for cell in study.cells:
        acc = counts[cell["cell"]]
        names, wins, pols = _contenders(study.spec, cell, acc)
        if acc.games == 0 or len(names) < 2:
            continue
        fair = sum(wins) / acc.games / len(names)
        for who, k, pol in zip(names, wins, pols):
            lo, hi = interval(k, acc.games)
            rows.append({"cell": cell["cell"], "label": cell_label(cell), "grid": cell["grid"],
                         "players": cell["players"], "who": who, "policy": pol, "wins": k,
                         "games": acc.games, "rate": k / acc.games, "lo": lo, "hi": hi,
                         "fair": fair, "diff": k / acc.games - fair,
                         "outside": not lo <= fair <= hi})
    return pd.DataFrame(rows)


def cell_tests(cf: pd.DataFrame) -> pd.DataFrame:
    """Per cell: the equal-seats chi-square on the decided games, its p-value Holm-adjusted
    over the cells, and whether it rejects equal chances at ``ALPHA``."""
    from statsmodels.stats.multitest import multipletests

    rows = []
    for cell, g in cf.groupby("cell", sort=False):
        if g["wins"].sum() == 0:
            continue
        t = equal_seats_test(g["wins"].tolist(), int(g["games"].iloc[0]))
        rows.append({"cell": cell, "chi2": t.statistic, "p": t.pvalue, "decided": t.n_decided})
    out = pd.DataFrame(rows, columns=["cell", "chi2", "p", "decided"])
    if len(out):
        adj = multipletests(out["p"].to_numpy(), alpha=ALPHA, method="holm")[1]
        out["p_holm"], out["reject"] = adj, adj < ALPHA      # decided on the p-value shown
    return out.set_index("cell")


def policy_frame(cf: pd.DataFrame) -> pd.DataFrame:
    """Wins per policy label over every seat-game it played (all cells), with a Wilson 95 %
    interval and the fair share averaged over those seat-games; empty unless the study has
    two or more policies."""
    if cf.empty or cf["policy"].nunique() < 2:
        return pd.DataFrame()
    return _pooled(cf, ["policy"]).sort_values("rate", ascending=False)


def knob_frame(study: StudyFolder, cf: pd.DataFrame) -> pd.DataFrame:
    """Wins per (knob, value, seat or side) pooled over every cell with that value of the
    knob (the other knobs' values pooled), with a Wilson 95 % interval and the pooled fair
    share; empty unless the study varies two or more knobs."""
    if cf.empty or len(study.keys) < 2:
        return pd.DataFrame()
    parts = [_pooled(cf.assign(knob=key, value=[str(_scalar(g.get(key))) for g in cf["grid"]]),
                     ["knob", "value", "who"]) for key in study.keys]
    return pd.concat(parts, ignore_index=True)


def _pooled(cf: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Wins and games summed over ``by`` groups: rate, Wilson 95 % interval, the fair share
    averaged over the games, and the difference."""
    cf = cf.assign(fair_games=cf["fair"] * cf["games"])
    g = cf.groupby(by, sort=False)[["wins", "games", "fair_games"]].sum().reset_index()
    ci = [interval(int(k), int(n)) for k, n in zip(g["wins"], g["games"])]
    g["rate"] = g["wins"] / g["games"]
    g["lo"], g["hi"] = [c[0] for c in ci], [c[1] for c in ci]
    g["fair"] = g["fair_games"] / g["games"]
    g["diff"] = g["rate"] - g["fair"]
    return g.drop(columns="fair_games")


def outcome_frame(study: StudyFolder, counts: dict) -> pd.DataFrame:
    """One row per (cell, outcome) of the game's vocabulary (plus any other outcome found),
    with a Wilson 95 % interval."""
    rows = []
    for cell in study.cells:
        acc = counts[cell["cell"]]
        if acc.games == 0:
            continue
        names = list(study.spec.outcomes) + [o for o in acc.outcomes
                                              if o not in study.spec.outcomes]
        for o in names:
            k = acc.outcomes.get(o, 0)
            lo, hi = interval(k, acc.games)
            rows.append({"cell": cell["cell"], "label": cell_label(cell), "grid": cell["grid"],
                         "outcome": o, "k": k, "games": acc.games, "rate": k / acc.games,
                         "lo": lo, "hi": hi})
    return pd.DataFrame(rows)


def length_frame(study: StudyFolder, counts: dict) -> pd.DataFrame:
    """Per cell: mean game length with a normal 95 % interval, median, 90th percentile, max."""
    rows = []
    for cell in study.cells:
        h = counts[cell["cell"]].length
        if h is None or h.sum() == 0:
            continue
        rows.append({"cell": cell["cell"], "label": cell_label(cell), "grid": cell["grid"],
                     **_hist_stats(h)})
    return pd.DataFrame(rows)


def _hist_stats(h: np.ndarray) -> dict:
    mean, _, se = stats.hist_mean_sd(h)
    cum = np.cumsum(h) / h.sum()
    return {"games": int(h.sum()), "mean": mean, "lo": mean - stats.Z95 * se,
            "hi": mean + stats.Z95 * se, "median": int(np.searchsorted(cum, 0.5)),
            "p90": int(np.searchsorted(cum, 0.9)), "max": int(np.flatnonzero(h)[-1])}


# ---- words ----------------------------------------------------------------------------------
def pct(x: float) -> str:
    """A rate in percent: one decimal, two below 1 %."""
    return f"{100 * x:.{2 if 0 < abs(x) < 0.01 else 1}f}"


def ci_text(lo: float, hi: float) -> str:
    return f"[{pct(lo)}, {pct(hi)}]"


def p_text(p: float) -> str:
    """Two significant figures; three below 0.1, so a p just under 0.05 never reads 0.05."""
    if p < 1e-4:
        return "p < 0.0001"
    return f"p = {p:.2g}" if p < 0.01 else f"p = {p:.3g}" if p < 0.1 else f"p = {p:.2f}"


def points_text(diff: float) -> str:
    pts = 100 * diff
    if abs(pts) < 0.05:
        return "at fair"
    return f"{abs(pts):.1f} points {'above' if pts > 0 else 'below'} fair"


def _who_text(row) -> str:
    return f"{row.who} ({row.policy})" if row.policy else row.who


def _games_text(study: StudyFolder, players: int) -> str:
    return f"{players}-player games" if study.spec.seated else "games"


def contender_sentence(study: StudyFolder, row, test, many: bool) -> str:
    """E.g. "seat 1 (greedy) wins 29.4% [29.3, 29.5] of 4-player games, 4.4 points above
    fair (25.0%); the seats differ significantly (chi-square p < 0.0001, Holm-adjusted)"."""
    head = f"In {row.label}, " if many else ""
    if test is None:
        return (f"{head}no game was decided ({row.games:,} games, none won), so the "
                f"{'seats' if study.spec.seated else 'sides'} cannot be compared.")
    text = (f"{head}{_who_text(row)} wins {pct(row.rate)}% {ci_text(row.lo, row.hi)} of "
            f"{_games_text(study, row.players)}, {points_text(row.diff)} ({pct(row.fair)}%)")
    return f"{text}; {_test_text(study, test, many)}."


def _test_text(study: StudyFolder, test, many: bool) -> str:
    what = "seats" if study.spec.seated else "sides"
    p = test.p_holm if many else test.p
    how = f"chi-square {p_text(p)}" + (", Holm-adjusted over the cells" if many else "")
    if test.reject:
        return f"the {what} differ significantly from equal chances ({how})"
    return f"no significant difference from equal {what} ({how})"


# ---- findings -------------------------------------------------------------------------------
def summary(study: StudyFolder, counts: dict, tables: dict) -> list[str]:
    """The page's opening: the study's answer in a few plain sentences (who wins more than
    a fair share, how it moves with the table size, whether each other knob changes
    anything), each difference called one only when it is beyond noise after Holm."""
    from vikingsim.studies import findings as F

    mf = tables["contenders"]
    out = [_scope_finding(study, counts)]
    if mf.empty:
        return out
    out += [F.leader_sentence(study, mf), F.trailer_sentence(study, mf)]
    lead = mf.loc[mf.groupby("cell", sort=False)["diff"].idxmax(), "who"]
    if lead.nunique() == 1:
        out.append(F.players_sentence(study, mf, lead.iloc[0]))
    for knob, cmp in tables["comparisons"].items():
        out.append(F.knob_sentence(study, knob, cmp, cell_label,
                                   lambda k, *v: knob_words(study.manifest, k) if not v
                                   else value_words(study.manifest, k, v[0])))
    of = tables["outcomes"]
    t = of[of["outcome"] == "truncated"] if len(of) else of
    if len(t) and t["k"].sum():
        out.append(f"{pct(t['k'].sum() / t['games'].sum())}% of the games hit the safety cap "
                   f"and count for nobody.")
    return [x for x in out if x]


def findings(study: StudyFolder, counts: dict, tables: dict, length: str | None) -> list[str]:
    """The report's findings: plain sentences generated from the numbers."""
    out = [_scope_finding(study, counts)]
    out += _contender_findings(study, tables["contenders"], tables["tests"])
    out += _policy_findings(tables["policies"])
    out += _grid_findings(study, tables["contenders"])
    out += _outcome_findings(study, tables["outcomes"], tables["contenders"])
    out += _length_findings(tables["lengths"], counts, length)
    out += _note_findings(study, counts)
    return [s[0].upper() + s[1:] for s in out if s]


def _and(words: list) -> str:
    from vikingsim.studies.findings import _and as join

    return join(words)


def _scope_finding(study: StudyFolder, counts: dict) -> str:
    played = sum(a.games for a in counts.values())
    planned = sum(int(c["games"]) for c in study.cells)
    cells = len(study.cells)
    words = [knob_words(study.manifest, k) for k in study.keys]
    knobs = f" over {_and(words)}" if words else ""
    share = f"{played / planned:.0%} of the {planned:,} planned games played"
    sprt = study.manifest.get("stop_when_decided") or any(c.get("decided") for c in study.cells)
    state = ("every planned game played" if played >= planned else
             f"not finished: {share}" if not study.manifest.get("complete") else
             f"complete, cells stopped early by the sequential test: {share}" if sprt else
             f"complete by study.json, but {planned - played:,} of its {planned:,} games are "
             f"missing from the data (rerun with --resume)")
    return (f"{study.spec.title}: {played:,} games in {cells} cell{'s' * (cells != 1)}"
            f"{knobs} ({state}).")


def _contender_findings(study: StudyFolder, cf: pd.DataFrame, tests: pd.DataFrame) -> list[str]:
    """One sentence per seat (or side): where its margin over fair is beyond noise (Holm
    over every cell and seat) and where not; the equal-chances tests."""
    from vikingsim.studies import findings as F

    if cf.empty:
        return []
    many = cf["cell"].nunique() > 1
    out = []
    if not many:
        test = tests.loc[cf["cell"].iloc[0]] if len(tests) else None
        row = next(cf.loc[[_furthest(cf["diff"])]].itertuples())
        out.append(contender_sentence(study, row, test, False))
    for who, g in cf.groupby("who", sort=False):
        if many or g["finding"].any():
            out.append(F.seat_sentence(study, who, g, lambda r: r["label"]))
    if many and len(tests):
        what = "seats" if study.spec.seated else "sides"
        out.append(f"The {what} differ significantly from equal chances in "
                   f"{int(tests['reject'].sum())} of {len(tests)} cells (chi-square at the "
                   f"{ALPHA:.0%} level, Holm-adjusted).")
    return out


def _furthest(diff: pd.Series):
    """Index of the largest |diff|; on a tie (two sides), the one above fair."""
    return max(diff.index, key=lambda i: (round(abs(diff[i]), 9), diff[i]))


def _policy_findings(pf: pd.DataFrame) -> list[str]:
    parts = [f"{r.policy} wins {pct(r.rate)}% {ci_text(r.lo, r.hi)} of its {r.games:,} "
             f"seat-games, {points_text(r.diff)} ({pct(r.fair)}%)" for r in pf.itertuples()]
    return [f"By policy: {'; '.join(parts)}."] if parts else []


def _grid_findings(study: StudyFolder, cf: pd.DataFrame) -> list[str]:
    if cf.empty or not study.keys or cf["cell"].nunique() < 2:
        return []
    span = cf.groupby("who", sort=False)["diff"].agg(lambda d: d.max() - d.min())
    if span.max() < 0.0005:
        return ["Across the grid, every margin over fair stays within 0.1 points."]
    widest = span.round(9)
    tied = [w for w in span.index if widest[w] == widest.max()]   # all of them: no seat first
    parts = []
    for who in tied:
        g = cf[cf["who"] == who]
        lo, hi = g.loc[g["diff"].idxmin()], g.loc[g["diff"].idxmax()]
        parts.append(f"{who}'s margin over fair goes from {100 * lo['diff']:+.1f} points "
                     f"({lo['label']}) to {100 * hi['diff']:+.1f} points ({hi['label']})")
    return [f"Across the grid, {'; '.join(parts)}."]


def _outcome_findings(study: StudyFolder, of: pd.DataFrame, cf: pd.DataFrame) -> list[str]:
    out = []
    t = of[of["outcome"] == "truncated"]
    k, n = int(t["k"].sum()), int(of.groupby("cell")["games"].first().sum())
    out.append("No game hit the safety cap." if k == 0 else
               f"{k:,} games ({pct(k / n)}%) hit the safety cap (truncated) and count for "
               f"nobody.")
    if cf.empty:
        for row in of.loc[of.groupby("cell", sort=False)["rate"].idxmax()].head(
                FINDING_CELLS).itertuples():
            out.append(f"In {row.label}, the most common outcome is {row.outcome}: "
                       f"{pct(row.rate)}% {ci_text(row.lo, row.hi)} of games.")
    return out


def _length_findings(lf: pd.DataFrame, counts: dict, length: str | None) -> list[str]:
    if lf.empty:
        return []
    s = _hist_stats(_pooled_length(counts))
    out = [f"Games last {s['mean']:.1f} {length} on average [{s['lo']:.1f}, {s['hi']:.1f}] "
           f"(median {s['median']}, 90% of games end within {s['p90']})."]
    a, b = lf.loc[lf["mean"].idxmin()], lf.loc[lf["mean"].idxmax()]
    if len(lf) > 1 and b["mean"] - a["mean"] < 0.05:
        out.append("Mean length is the same in every cell (to 0.1).")
    elif len(lf) > 1:
        out.append(f"Mean length goes from {a['mean']:.1f} {length} ({a['label']}) to "
                   f"{b['mean']:.1f} ({b['label']}).")
    return out


def _pooled_length(counts: dict) -> np.ndarray:
    h = None
    for acc in counts.values():
        if acc.length is not None:
            h = _add_hist(h, acc.length)
    return h


def _note_findings(study: StudyFolder, counts: dict) -> list[str]:
    out = list(study.notes)
    decided = [f"{cell_label(c)} ({c['decided']})" for c in study.cells if c.get("decided")]
    if decided:
        out.append(f"The sequential test stopped {len(decided)} cell(s) early: "
                   f"{', '.join(decided)}.")
    off = [c for c in study.cells
           if c.get("games_done") is not None and c["games_done"] != counts[c["cell"]].games]
    if off:
        out.append(f"Note: the data of {len(off)} cell(s) differ from study.json's games_done "
                   f"(e.g. {cell_label(off[0])}: {counts[off[0]['cell']].games:,} rows, "
                   f"{off[0]['games_done']:,} recorded); the report counts the rows.")
    played = study.manifest.get("rules_version")
    if played is not None and str(played) != str(study.spec.rules_version):
        out.append(f"Note: these games were played under rules version {played}; the "
                   f"installed {study.spec.name} is at {study.spec.rules_version}.")
    return out


# ---- figures --------------------------------------------------------------------------------
def data_uri(fig) -> str:
    """The figure as a PNG data URI."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _new_figure(width: float = 7.0, height: float = 3.6):
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def _knob_values(df: pd.DataFrame, key: str) -> list:
    """The knob's value in each row (lists and tables as their JSON text)."""
    return [_scalar(g.get(key)) for g in df["grid"]]


def _scalar(v):
    """A knob value as the cell labels write it: true/false, numbers, texts, else JSON."""
    if isinstance(v, bool):
        return "true" if v else "false"
    return v if v is None or isinstance(v, (int, float, str)) else json.dumps(v)


def _two_knob_grid(study: StudyFolder, df: pd.DataFrame) -> bool:
    """Whether ``df`` covers several cells of an exactly-two-knob grid, one cell per pair."""
    if len(study.keys) != 2 or df["cell"].nunique() < 2:
        return False
    x, y = heatmap_axes(study)
    pairs = set(zip(_knob_values(df.drop_duplicates("cell"), x),
                    _knob_values(df.drop_duplicates("cell"), y)))
    return len(pairs) == df["cell"].nunique()


def _axis(values: list):
    """x positions and tick labels of knob values: the values when all are numbers, else
    the order of first appearance."""
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
    if numeric:
        return [float(v) for v in values], None
    order = list(dict.fromkeys(map(str, values)))
    return [order.index(str(v)) for v in values], order


def heatmap_axes(study: StudyFolder) -> tuple[str, str]:
    """x and y knobs of a two-knob grid (``report.heatmap = [x, y]`` in the study file, or
    the grid's order)."""
    want = (study.manifest.get("report") or {}).get("heatmap")
    if isinstance(want, list) and sorted(map(str, want)) == sorted(study.keys):
        return str(want[0]), str(want[1])
    return study.keys[0], study.keys[1]


def heatmap_figure(study: StudyFolder, df: pd.DataFrame, group: str, value: str, *,
                   scale: float = 100.0, center=None, vmin=None, vmax=None, fmt="{:.1f}",
                   label: str = ""):
    """One heatmap panel per ``group`` value (at most ``PANELS``) of ``value * scale`` over
    the two knobs."""
    from vikingsim.plots import odds_heatmap

    cmap = "viridis" if center is None else "RdBu_r"
    x, y = heatmap_axes(study)
    if center is not None:                  # one colour scale for every panel
        span = float(np.nanmax(np.abs(df[value].to_numpy() * scale - center))) or 1.0
        vmin, vmax, center = center - span, center + span, None
    groups = list(dict.fromkeys(df[group]))[:PANELS]
    labels = _labels(study.manifest)
    xs = _wrapped(_short_values([labels.get(str(v), v) for v in _knob_values(df, x)]))
    ys = _short_values([labels.get(str(v), v) for v in _knob_values(df, y)])
    nx, ny = len(set(map(str, xs))), len(set(map(str, ys)))
    longest = max(len(line) for v in xs for line in str(v).split("\n"))
    width = min(PAGE_INCHES, max(3.4, 1.7 + nx * max(0.55, 0.085 * longest)))    # one panel
    cols = max(1, min(3, len(groups), int(PAGE_INCHES // width)))
    rows = -(-len(groups) // cols)
    fig = _new_figure(cols * width, rows * max(3.0, 2.2 + 0.4 * ny))
    for i, name in enumerate(groups):
        pick = (df[group] == name).to_numpy()
        frame = pd.DataFrame({x: np.asarray(xs, dtype=object)[pick],
                              y: np.asarray(ys, dtype=object)[pick],
                              label: df[value].to_numpy()[pick] * scale})
        ax = fig.add_subplot(rows, cols, i + 1)
        odds_heatmap(frame, x, y, label, ax=ax, title=str(name), center=center, vmin=vmin,
                     vmax=vmax, fmt=fmt, cmap=cmap, fontsize=CELL_PT)
        ax.set_xlabel(knob_words(study.manifest, x))
        ax.set_ylabel(knob_words(study.manifest, y))
        if nx > 4:
            ax.tick_params(axis="x", labelrotation=45)
    return fig


def _wrapped(values: list) -> list:
    """Texts longer than 10 characters on lines of at most 10 (numbers unchanged)."""
    import textwrap

    return [textwrap.fill(v, 10) if isinstance(v, str) and len(v) > 10 else v for v in values]


def _short_values(values: list) -> list:
    """Knob values for axis ticks: long texts shortened (file name without folder and
    suffix, at most 18 characters) unless that would make two of them equal."""
    def short(v):
        if not isinstance(v, str) or len(v) <= 18:
            return v
        stem = v.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        return stem if len(stem) <= 18 else stem[:17] + "\u2026"
    distinct = list(dict.fromkeys(values))
    shorts = [short(v) for v in distinct]
    if len(set(map(str, shorts))) < len(distinct):
        return values
    table = dict(zip(distinct, shorts))
    return [table[v] for v in values]


def lines_figure(study: StudyFolder, df: pd.DataFrame, group: str, ylabel: str, fair: bool = False):
    """Rate (with its interval band) against the one knob, one line per ``group`` value."""
    key = study.keys[0]
    fig = _new_figure()
    ax = fig.add_subplot()
    for name, g in df.groupby(group, sort=False):
        xs, ticks = _axis(_knob_values(g, key))
        order = np.argsort(xs, kind="stable")
        xs = np.asarray(xs)[order]
        ax.plot(xs, 100 * g["rate"].to_numpy()[order], marker="o", label=str(name))
        ax.fill_between(xs, 100 * g["lo"].to_numpy()[order], 100 * g["hi"].to_numpy()[order],
                        alpha=0.2)
        if ticks is not None:
            ax.set_xticks(range(len(ticks)), ticks)
        elif len(set(xs)) <= 12:
            ax.set_xticks(sorted(set(xs)), [f"{v:g}" for v in sorted(set(xs))])
    if fair:
        f = df.drop_duplicates("cell")
        xs, _ = _axis(_knob_values(f, key))
        order = np.argsort(xs, kind="stable")
        ax.plot(np.asarray(xs)[order], 100 * f["fair"].to_numpy()[order], "k--", lw=1,
                label="fair")
    ax.set_xlabel(knob_words(study.manifest, key))
    ax.set_ylabel(ylabel)
    _legend_outside(fig, ax)
    return fig


def _legend_outside(fig, ax, ncols: int | None = None) -> None:
    """The legend above the plot, outside the axes (never over the data)."""
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="outside upper center", fontsize=SMALL_PT,
                   ncols=ncols or min(6, len(labels)), frameon=False)


def bars_figure(df: pd.DataFrame, group: str, xlabel: str, fair: bool = False):
    """Grouped horizontal bars with 95 % error bars: one row per cell (the first
    ``BAR_CELLS``), one bar per ``group`` value; the fair share as a dashed tick."""
    labels = list(dict.fromkeys(df["label"]))[:BAR_CELLS]
    df = df[df["label"].isin(labels)]
    names = list(dict.fromkeys(df[group]))
    height = 0.8 / len(names)
    fig = _new_figure(8.0, min(40.0, 1.2 + 0.22 * len(labels) * max(2, len(names))))
    ax = fig.add_subplot()
    for j, name in enumerate(names):
        g = df[df[group] == name]
        ys = np.array([labels.index(v) for v in g["label"]]) + (j - (len(names) - 1) / 2) * height
        rate = 100 * g["rate"].to_numpy()
        err = [rate - 100 * g["lo"].to_numpy(), 100 * g["hi"].to_numpy() - rate]
        ax.barh(ys, rate, height, xerr=err, capsize=2, label=str(name))
    if fair:
        f = df.drop_duplicates("cell")
        ys = np.array([labels.index(v) for v in f["label"]])
        ax.vlines(100 * f["fair"], ys - 0.45, ys + 0.45, colors="k", linestyles="--", lw=1,
                  label="fair")
    ax.set_yticks(range(len(labels)), labels, fontsize=SMALL_PT)
    ax.invert_yaxis()                                   # first cell on top, as in the tables
    ax.set_xlabel(xlabel)
    _legend_outside(fig, ax, ncols=min(6, len(names) + fair))
    return fig


def rate_figure(study: StudyFolder, df: pd.DataFrame, group: str, ylabel: str, fair: bool):
    """Heatmaps for an exactly-two-knob grid, lines for one knob, bars otherwise."""
    if _two_knob_grid(study, df):
        if fair:
            return heatmap_figure(study, df, group, "diff", center=0.0, fmt="{:+.1f}",
                                  label="points vs fair")
        return heatmap_figure(study, df, group, "rate", vmin=0.0, vmax=100.0, label="%")
    if len(study.keys) == 1 and df["cell"].nunique() > 1:
        return lines_figure(study, df, group, ylabel, fair)
    return bars_figure(df, group, ylabel, fair)


def length_hist_figure(study: StudyFolder, counts: dict, length: str):
    """Game lengths of every cell: step lines of the share of games by length for up to
    ``HIST_LINES`` cells; beyond that one box per cell (the first ``BAR_CELLS``; box 25th to
    75th percentile, line at the median, whiskers 10th and 90th, dot the mean), so that no
    cell is dropped and no line hides another."""
    shown = [c for c in study.cells if counts[c["cell"]].length is not None][:BAR_CELLS]
    if len(shown) > HIST_LINES:
        return _length_boxes(shown, counts, length)
    fig = _new_figure()
    ax = fig.add_subplot()
    for c in shown:
        h = counts[c["cell"]].length
        ax.step(np.arange(h.size), 100 * h / h.sum(), where="mid", label=cell_label(c))
    ax.set_xlabel(length)
    ax.set_ylabel("% of games")
    if len(shown) > 1:
        _legend_outside(fig, ax, ncols=2)
    return fig


def _length_boxes(cells: list, counts: dict, length: str):
    fig = _new_figure(8.0, 1.2 + 0.32 * len(cells))
    ax = fig.add_subplot()
    stats_ = [_box_stats(counts[c["cell"]].length, cell_label(c)) for c in cells]
    ax.bxp(stats_, orientation="horizontal", showmeans=True, showfliers=False,
           widths=0.6)
    ax.tick_params(axis="y", labelsize=SMALL_PT)
    ax.invert_yaxis()                                   # first cell on top, as in the tables
    ax.set_xlabel(f"{length} (box: 25th-75th percentile, line: median, whiskers: 10th and "
                  f"90th, dot: mean)", fontsize=SMALL_PT + 1)
    return fig


def _box_stats(h: np.ndarray, label: str) -> dict:
    cum = np.cumsum(h) / h.sum()
    q = {p: int(np.searchsorted(cum, p)) for p in (0.1, 0.25, 0.5, 0.75, 0.9)}
    return {"label": label, "whislo": q[0.1], "q1": q[0.25], "med": q[0.5], "q3": q[0.75],
            "whishi": q[0.9], "mean": stats.hist_mean_sd(h)[0], "fliers": []}


def length_grid_figure(study: StudyFolder, lf: pd.DataFrame, length: str):
    """Mean length over the grid: a heatmap (two knobs) or a line with its interval (one)."""
    if _two_knob_grid(study, lf):
        return heatmap_figure(study, lf.assign(what=f"mean {length}"), "what", "mean",
                              scale=1.0, label=length)
    f = lf.assign(rate=lf["mean"] / 100, lo=lf["lo"] / 100, hi=lf["hi"] / 100, what="mean")
    return lines_figure(study, f, "what", f"mean {length}")


# ---- HTML -----------------------------------------------------------------------------------
CSS = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;max-width:1100px;
margin:2em auto;padding:0 1em;color:#222}
h1{font-size:1.6em;margin-bottom:.1em}h2{margin-top:1.6em;border-bottom:1px solid #ccc}
.sub{color:#555;margin-top:0}
table{border-collapse:collapse;margin:.6em 0;font-size:13px}
th,td{border:1px solid #ddd;padding:3px 8px;text-align:left}th{background:#f3f3f3}
td.num{text-align:right;font-variant-numeric:tabular-nums}
figure{margin:1em 0}figure img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{color:#555;font-size:13px}
pre{background:#f6f6f6;padding:.6em;overflow:auto;font-size:12px}
ul.findings li{margin:.3em 0}.sig{font-weight:600}
"""

# At load (which waits for every image), each image is marked data-rendered="1" when it
# loaded with a width ("0" when it failed: a broken PNG has none), and the body gets
# data-images="rendered/all", so a headless browser's dumped DOM shows whether the figures
# rendered. Synchronous on purpose: the DOM is dumped right after load.
SCRIPT = """
window.addEventListener("load", function () {
  var imgs = document.images, ok = 0;
  for (var i = 0; i < imgs.length; i++) {
    var good = imgs[i].complete && imgs[i].naturalWidth > 0;
    imgs[i].setAttribute("data-rendered", good ? "1" : "0");
    if (good) {   // shown width over the PNG's own: below 1 the figure's text shrinks
      imgs[i].setAttribute("data-scale", (imgs[i].width / imgs[i].naturalWidth).toFixed(3));
    }
    ok += good ? 1 : 0;
  }
  document.body.setAttribute("data-images", ok + "/" + imgs.length);
});
"""

PAGE = Template("""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>$title</title><style>$css</style></head>
<body>
<h1>$title</h1>
<p class="sub">$subtitle</p>
$body
<script>$script</script>
</body></html>
""")


def esc(x) -> str:
    return html.escape(str(x), quote=True)


def table_html(header: list[str], rows: list[list], num: set = frozenset()) -> str:
    """An HTML table; columns whose index is in ``num`` are right-aligned."""
    head = "".join(f"<th>{esc(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f'<td class="num">{esc(v)}</td>' if i in num else
                                    f"<td>{esc(v)}</td>" for i, v in enumerate(r)) + "</tr>"
                   for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def figure_html(fig, caption: str) -> str:
    """The figure as an <img> with its smallest text in pixels of the PNG
    (``data-min-font-px``, checked against the size it is shown at in a browser)."""
    uri = data_uri(fig)
    return (f'<figure><img src="{uri}" alt="{esc(caption)}" '
            f'data-min-font-px="{min_font_px(fig):.1f}">'
            f"<figcaption>{esc(caption)}</figcaption></figure>")


def min_font_px(fig) -> float:
    """The smallest size (pixels at ``DPI``) of the figure's visible, non-empty texts."""
    from matplotlib.text import Text

    sizes = [t.get_fontsize() for t in fig.findobj(Text)
             if t.get_visible() and t.get_text().strip()]
    return min(sizes, default=99.0) * DPI / 72


def section(title: str, *parts: str) -> str:
    return f"<section><h2>{esc(title)}</h2>{''.join(parts)}</section>"


def _contender_rows(cf: pd.DataFrame) -> list[list]:
    return [[r.label, r.who, r.policy or "-", f"{r.wins:,}", f"{r.games:,}", f"{pct(r.rate)}%",
             ci_text(r.lo, r.hi), f"{pct(r.fair)}%", f"{100 * r.diff:+.1f}",
             f"[{100 * r.dlo:+.1f}, {100 * r.dhi:+.1f}]", p_text(r.p_fair_holm),
             "yes" if r.finding else "no"] for r in cf.itertuples()]


def contenders_html(study: StudyFolder, cf: pd.DataFrame, tests: pd.DataFrame) -> str:
    if cf.empty:
        return ""
    what = "seat" if study.spec.seated else "side"
    fig = rate_figure(study, cf, "who", "win rate (%)", fair=True)
    cap = (f"Win rate by {what} with 95% Wilson intervals"
           + (" (heatmaps: points above or below the fair share)" if _two_knob_grid(study, cf)
              else "; dashed: fair share of the decided games"))
    table = table_html(["cell", what, "policy", "wins", "games", "win rate", "95% interval",
                        "fair", "vs fair (points)", "vs fair, Holm-corrected", "p (Holm)",
                        "beyond noise"], _contender_rows(cf), num={3, 4, 5, 7, 8})
    return section(f"Win rates by {what}", figure_html(fig, cap), table, _tests_html(tests))


def _tests_html(tests: pd.DataFrame) -> str:
    if tests.empty:
        return ""
    rows = [[c, f"{r.decided:,}", f"{r.chi2:.2f}", p_text(r.p), p_text(r.p_holm),
             "yes" if r.reject else "no"] for c, r in tests.iterrows()]
    return ("<p>Equal chances test per cell (chi-square on the decided games; Holm "
            "adjustment over the cells):</p>"
            + table_html(["cell", "decided games", "chi-square", "p", "p (Holm)",
                          f"significant at {ALPHA:.0%}"], rows, num={1, 2}))


def policies_html(pf: pd.DataFrame) -> str:
    if pf.empty:
        return ""
    rows = [[r.policy, f"{r.wins:,}", f"{r.games:,}", f"{pct(r.rate)}%", ci_text(r.lo, r.hi),
             f"{pct(r.fair)}%", f"{100 * r.diff:+.1f}"] for r in pf.itertuples()]
    return section("Win rates by policy", "<p>Every seat-game a policy played, over all "
                   "cells.</p>", table_html(["policy", "wins", "seat-games", "win rate",
                                             "95% interval", "fair", "vs fair (points)"],
                                            rows, num={1, 2, 3, 5, 6}))


def knobs_html(study: StudyFolder, kf: pd.DataFrame) -> str:
    if kf.empty:
        return ""
    what = "seat" if study.spec.seated else "side"
    rows = [[knob_words(study.manifest, r.knob), _value_text(study, r.knob, r.value), r.who,
             f"{r.wins:,}", f"{r.games:,}", f"{pct(r.rate)}%",
             ci_text(r.lo, r.hi), f"{pct(r.fair)}%", f"{100 * r.diff:+.1f}"]
            for r in kf.itertuples()]
    return section("Win rates by knob value",
                   "<p>Each knob's values with the other knobs' cells pooled.</p>",
                   table_html(["knob", "value", what, "wins", "games", "win rate",
                               "95% interval", "fair", "vs fair (points)"], rows,
                              num={3, 4, 5, 7, 8}))


def _value_text(study: StudyFolder, knob: str, value: str) -> str:
    """A knob value of the knob table (kept as text there) in words, without the knob."""
    labels = _labels(study.manifest)
    return labels.get(str(value), str(value))


def outcomes_html(study: StudyFolder, of: pd.DataFrame) -> str:
    seen = of.groupby("outcome", sort=False)["k"].sum()
    shown = of[of["outcome"].isin(seen[seen > 0].index)]
    parts = []
    sides = {o for o in study.spec.outcomes if o.endswith("_win")}
    sides = sides if len(sides) > 1 else set()                # drawn as contenders above
    if not study.spec.seated and len(shown) and not set(shown["outcome"]) <= sides:
        parts.append(figure_html(rate_figure(study, shown, "outcome", "% of games", False),
                                 "Share of games by outcome, with 95% Wilson intervals"))
    rows = [[r.label, r.outcome, f"{r.k:,}", f"{r.games:,}", f"{pct(r.rate)}%",
             ci_text(r.lo, r.hi)] for r in shown.itertuples()]
    happened = list(seen[seen > 0].index)
    if len(happened) == 1:                  # a table of "100.0%" rows says nothing more
        parts.append(f"<p>Every game of every cell ended in {esc(happened[0])} "
                     f"({int(seen[happened[0]]):,} games).</p>")
    else:
        parts.append(table_html(["cell", "outcome", "games", "of", "share", "95% interval"],
                                rows, num={2, 3, 4}))
    never = [o for o in seen.index if seen[o] == 0]
    if never:
        parts.append(f"<p>Never happened in any cell: {esc(', '.join(never))}.</p>")
    return section("Outcomes", *parts)


def lengths_html(study: StudyFolder, counts: dict, lf: pd.DataFrame, length: str | None) -> str:
    if length is None or lf.empty:
        return ""
    caption = (f"Game length ({length}) of every cell" if len(lf) > HIST_LINES else
               f"Game length ({length}): share of games")
    parts = [figure_html(length_hist_figure(study, counts, length), caption)]
    if _two_knob_grid(study, lf) or (len(study.keys) == 1 and len(lf) > 1):
        parts.append(figure_html(length_grid_figure(study, lf, length),
                                 f"Mean game length ({length}) over the grid"))
    rows = [[r.label, f"{r.games:,}", f"{r.mean:.2f}", f"[{r.lo:.2f}, {r.hi:.2f}]", r.median,
             r.p90, r.max] for r in lf.itertuples()]
    parts.append(table_html(["cell", "games", f"mean {length}", "95% interval", "median",
                             "90th percentile", "max"], rows, num={1, 2, 4, 5, 6}))
    return section("Game length", *parts)


def provenance_html(study: StudyFolder, counts: dict) -> str:
    m = study.manifest
    versions = ", ".join(f"{k} {v}" for k, v in (m.get("versions") or {}).items())
    items = [("study", study.name), ("study file", m.get("study_file", "-")),
             ("game", f"{study.spec.name} ({study.spec.title})"),
             ("rules version", m.get("rules_version", "-")), ("root seed", m.get("root_seed")),
             ("games per chunk", m.get("chunk_games", "-")),
             ("grid knobs", ", ".join(study.keys) or "none"), ("versions", versions or "-")]
    facts = table_html(["", ""], [list(i) for i in items])
    rows = [[c["cell"], raw_label(c), c["players"], ", ".join(map(str, c["policies"])),
             f"{c['games']:,}", f"{c.get('games_done', '-')}", f"{counts[c['cell']].games:,}",
             c.get("decided") or "-"] for c in study.cells]
    cells = table_html(["cell", "label", "players", "policies", "games planned", "games done",
                        "rows read", "decided"], rows, num={0, 2, 4, 5, 6})
    return section("Provenance", facts, cells, _fixed_options_html(study),
                   _details("study file", m.get("study_toml", "")),
                   _details("report settings", json.dumps(m.get("report") or {}, indent=1)))


def _fixed_options_html(study: StudyFolder) -> str:
    opts = [c.get("options") or {} for c in study.cells]
    fixed = {k: v for k, v in opts[0].items() if all(o.get(k) == v for o in opts)}
    if not fixed:
        return ""
    return _details("options (the same in every cell)",
                    "\n".join(f"{k} = {v}" for k, v in fixed.items()))


def _details(summary: str, text: str) -> str:
    return f"<details><summary>{esc(summary)}</summary><pre>{esc(text)}</pre></details>"


def summary_html(sentences: list[str]) -> str:
    items = "".join(f"<p>{esc(s)}</p>" for s in sentences)
    return f'<section class="summary"><h2>In short</h2>{items}</section>'


def findings_html(sentences: list[str]) -> str:
    items = "".join(f"<li>{esc(s)}</li>" for s in sentences)
    return section("Findings", f'<ul class="findings">{items}</ul>',
                   "<p>Rates are of all games of a cell with Wilson 95% intervals; the fair "
                   "share splits the decided games evenly among the seats (or sides); seats "
                   "are numbered from 0.</p>")


# ---- the report -----------------------------------------------------------------------------
def build_tables(study: StudyFolder, counts: dict) -> dict:
    from vikingsim.studies.findings import comparisons, margins

    cf = margins(contender_frame(study, counts))
    cmp = {k: comparisons(study, cf, k) for k in study.keys if k != "players"} \
        if not cf.empty else {}
    return {"contenders": cf, "tests": cell_tests(cf) if not cf.empty else pd.DataFrame(),
            "comparisons": cmp,
            "policies": policy_frame(cf), "knobs": knob_frame(study, cf),
            "outcomes": outcome_frame(study, counts),
            "lengths": length_frame(study, counts)}


def render(study: StudyFolder, source: str = "auto") -> tuple[str, list[str]]:
    """The report page of ``study`` (HTML text) and its findings (``source``: see
    ``count_games``)."""
    counts, length = count_games(study, source)
    tables = build_tables(study, counts)
    words = findings(study, counts, tables, length)
    short = summary(study, counts, tables)
    body = "".join([summary_html(short), findings_html(words[1:]),
                    contenders_html(study, tables["contenders"], tables["tests"]),
                    policies_html(tables["policies"]),
                    knobs_html(study, tables["knobs"]),
                    outcomes_html(study, tables["outcomes"]),
                    lengths_html(study, counts, tables["lengths"], length),
                    provenance_html(study, counts)])
    return PAGE.substitute(title=esc(_title(study)), subtitle=esc(_subtitle(study)),
                           body=body, css=CSS, script=SCRIPT), short + words[1:]


def _title(study: StudyFolder) -> str:
    m = study.manifest
    return str((m.get("report") or {}).get("title") or m.get("title") or f"Study {study.name}")


def _subtitle(study: StudyFolder) -> str:
    notes = (study.manifest.get("report") or {}).get("notes")
    base = f"{study.spec.title} ({study.spec.name}), rules version " \
           f"{study.manifest.get('rules_version', '?')}, root seed " \
           f"{study.manifest.get('root_seed', '?')}"
    return f"{base}. {notes}" if notes else base


def write_report(path, out=None, source: str = "auto") -> tuple[Path, list[str]]:
    """Write the report of the study in folder ``path`` to ``out`` (default
    ``path/report.html``) atomically; return the file written and the findings (``source``:
    where the counts come from, see ``count_games``)."""
    from vikingsim.core.results import check_writable, write_atomic

    study = load_study(path)
    out = check_writable(Path(study.path / "report.html" if out is None else out), ".html",
                         "--out")
    text, words = render(study, source)
    write_atomic(out, lambda p: Path(p).write_text(text, encoding="utf-8"))
    return out, words
