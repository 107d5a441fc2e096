"""Figures from tidy frames only (style guide: plots never simulate).

Each function takes a long, tidy ``pandas.DataFrame`` (one row per cell or point) and column
names, and returns a :class:`matplotlib.figure.Figure`; ``path`` also saves it. Figures are built
with the object-oriented API (no pyplot global state), so they are safe from any thread and need
no display; in a notebook, ``display(fig)`` or leaving ``fig`` as a cell's last value shows it.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from vikingsim.core.errors import InputError


def odds_heatmap(grid_frame: pd.DataFrame, x: str, y: str, value: str, path=None, *,
                 title: str | None = None, cmap: str = "RdBu", vmin: float | None = 0.0,
                 vmax: float | None = 1.0, center: float | None = None, annotate: bool = True,
                 fmt: str = "{:.2f}", ax=None, format: str | None = None, fontsize: float = 7):
    """Heatmap of ``value`` over a grid of ``x`` (columns) by ``y`` (rows).

    Parameters
    ----------
    grid_frame : DataFrame
        Tidy frame, one row per grid cell, with columns ``x``, ``y`` and ``value``
        (e.g. ``norsemen``, ``housecarls``, ``p_vikings_win`` from ``GAME.odds`` over a grid).
        Each (x, y) pair must appear at most once.
    x, y, value : str
        Column names: x along the horizontal axis, y along the vertical axis (increasing
        upwards), value as the colour.
    path : str or Path, optional
        If given, the figure is saved there. Format: ``format`` if given, else the first
        suffix matplotlib knows, read from the right (so a temporary name such as
        ``.out.png.1234.tmp`` still writes PNG), else PNG.
    title : str, optional
        Axes title (default: ``value``).
    cmap, vmin, vmax : colour map and limits; probabilities default to [0, 1].
    center : float, optional
        Value the diverging map centres on (sets symmetric limits around it; overrides
        ``vmin``/``vmax``), e.g. 0 for a difference of probabilities.
    annotate : bool
        Write each cell's value in it (skipped automatically beyond 400 cells).
    fmt : str
        Format of the annotations.
    fontsize : float
        Size (points) of the annotations.
    ax : matplotlib Axes, optional
        Draw into this Axes instead of a new figure.
    format : str, optional
        File format for ``path`` (``"png"``, ``"svg"``, ``"pdf"``, ...).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a": [1, 1, 2, 2], "b": [1, 2, 1, 2], "p": [.5, .3, .7, .5]})
    >>> fig = odds_heatmap(df, "a", "b", "p")
    """
    from matplotlib.figure import Figure

    missing = [c for c in (x, y, value) if c not in grid_frame.columns]
    if missing:
        raise InputError(f"odds_heatmap: column(s) {missing} not in frame; "
                         f"columns are {list(grid_frame.columns)}")
    if grid_frame.duplicated([x, y]).any():
        raise InputError(f"odds_heatmap: ({x}, {y}) pairs must be unique in the frame")
    table = grid_frame.pivot(index=y, columns=x, values=value).sort_index().sort_index(axis=1)
    data = table.to_numpy(dtype=float)
    if center is not None:
        span = np.nanmax(np.abs(data - center)) if np.isfinite(data).any() else 1.0
        span = span if span > 0 else 1.0
        vmin, vmax = center - span, center + span

    if ax is None:
        size = (1.2 + 0.55 * max(4, data.shape[1]), 1.0 + 0.45 * max(4, data.shape[0]))
        fig = Figure(figsize=size, layout="constrained")
        ax = fig.add_subplot()
    else:
        fig = ax.figure
    im = ax.imshow(data, origin="lower", cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto",
                   interpolation="nearest")
    ax.set_xticks(range(data.shape[1]), [str(v) for v in table.columns])
    ax.set_yticks(range(data.shape[0]), [str(v) for v in table.index])
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    ax.set_title(value if title is None else title)
    fig.colorbar(im, ax=ax, label=value)
    if annotate and data.size <= 400:
        lo = im.norm.vmin if im.norm.vmin is not None else np.nanmin(data)
        hi = im.norm.vmax if im.norm.vmax is not None else np.nanmax(data)
        mid, half = (lo + hi) / 2, (hi - lo) / 2 or 1.0
        for i in range(data.shape[0]):
            for j in range(data.shape[1]):
                v = data[i, j]
                if np.isfinite(v):
                    dark = abs(v - mid) > 0.6 * half       # white text on saturated cells
                    ax.text(j, i, fmt.format(v), ha="center", va="center", fontsize=fontsize,
                            color="white" if dark else "black")
    if path is not None:
        path = Path(path)
        if format is None:
            known = fig.canvas.get_supported_filetypes()
            format = next((s[1:].lower() for s in reversed(path.suffixes)
                           if s[1:].lower() in known), "png")
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=120, format=format)
    return fig
