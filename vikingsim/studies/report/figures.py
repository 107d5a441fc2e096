"""Matplotlib figures of the report's tables (never simulates): win rates as heatmaps (a
two-knob grid), lines (one knob) or bars (otherwise), game-length histograms or boxes, and
the PNG data URI the page embeds."""
from __future__ import annotations

import base64
import io

import numpy as np
import pandas as pd

from vikingsim.core import stats
from vikingsim.studies.report.counts import StudyView
from vikingsim.studies.report.labels import cell_label, knob_words, labels_of
from vikingsim.studies.report.tables import heatmap_axes, knob_values, two_knob_grid

#: Up to this many cells, the length histogram draws a line per cell; beyond, a box each.
HIST_LINES = 4
#: At most this many cells drawn as bars (studies of three or more knobs; the tables have all).
BAR_CELLS = 60
#: At most this many heatmap panels per figure.
PANELS = 9
DPI = 100
#: Widest figure (inches at ``DPI``) the page shows at its own size (the body is 1100 px).
PAGE_INCHES = 10.5
#: Smallest text in a figure (points: 9 pt at 100 dpi = 12.5 px); heatmap numbers are larger.
SMALL_PT = 9
CELL_PT = 11


def data_uri(fig) -> str:
    """The figure as a PNG data URI."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def min_font_px(fig) -> float:
    """The smallest size (pixels at ``DPI``) of the figure's visible, non-empty texts."""
    from matplotlib.text import Text

    sizes = [t.get_fontsize() for t in fig.findobj(Text)
             if t.get_visible() and t.get_text().strip()]
    return min(sizes, default=99.0) * DPI / 72


def _new_figure(width: float = 7.0, height: float = 3.6):
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def _axis(values: list):
    """x positions and tick labels of knob values: the values when all are numbers, else
    the order of first appearance."""
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
    if numeric:
        return [float(v) for v in values], None
    order = list(dict.fromkeys(map(str, values)))
    return [order.index(str(v)) for v in values], order


def heatmap_figure(study: StudyView, df: pd.DataFrame, group: str, value: str, *,
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
    labels = labels_of(study.manifest)
    xs = _wrapped(_short_values([labels.get(str(v), v) for v in knob_values(df, x)]))
    ys = _short_values([labels.get(str(v), v) for v in knob_values(df, y)])
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


def lines_figure(study: StudyView, df: pd.DataFrame, group: str, ylabel: str, fair: bool = False):
    """Rate (with its interval band) against the one knob, one line per ``group`` value."""
    key = study.keys[0]
    fig = _new_figure()
    ax = fig.add_subplot()
    for name, g in df.groupby(group, sort=False):
        xs, ticks = _axis(knob_values(g, key))
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
        xs, _ = _axis(knob_values(f, key))
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


def rate_figure(study: StudyView, df: pd.DataFrame, group: str, ylabel: str, fair: bool):
    """Heatmaps for an exactly-two-knob grid, lines for one knob, bars otherwise."""
    if two_knob_grid(study, df):
        if fair:
            return heatmap_figure(study, df, group, "diff", center=0.0, fmt="{:+.1f}",
                                  label="points vs fair")
        return heatmap_figure(study, df, group, "rate", vmin=0.0, vmax=100.0, label="%")
    if len(study.keys) == 1 and df["cell"].nunique() > 1:
        return lines_figure(study, df, group, ylabel, fair)
    return bars_figure(df, group, ylabel, fair)


def length_hist_figure(study: StudyView, counts: dict, length: str):
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


def length_grid_figure(study: StudyView, lf: pd.DataFrame, length: str):
    """Mean length over the grid: a heatmap (two knobs) or a line with its interval (one)."""
    if two_knob_grid(study, lf):
        return heatmap_figure(study, lf.assign(what=f"mean {length}"), "what", "mean",
                              scale=1.0, label=length)
    f = lf.assign(rate=lf["mean"] / 100, lo=lf["lo"] / 100, hi=lf["hi"] / 100, what="mean")
    return lines_figure(study, f, "what", f"mean {length}")
