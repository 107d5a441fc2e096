"""Restricted play (issue 20 §2, after Jaffe et al.): how much a card, action or policy
option is worth to the seat that may use it.

A generated study (``kind = "importance"``, ``common_seeds = true``) has one baseline cell
and, per element ``e`` and seat ``s``, a cell where seat ``s``'s policy has ``forbid=e``
(the game's ``GameSpec.elements``). Common seeds pair game ``g`` of every cell, so

    worth(e) = mean over seats s of (baseline win rate of s - win rate of s denied e)

is estimated from the per-game differences ``D_g = (1/K) sum_s (1[baseline winner_g = s] -
1[winner_g of cell (e, s) = s])`` when the study keeps rows (a paired t interval), and from
the cells' win counts otherwise (an unpaired normal interval that treats the cells as
independent; on common seeds a game the restriction leaves unchanged has one winner in
every cell, so the seats' terms are negatively correlated and the interval is usually a
little wider than it needs to be). The elements
are ranked by worth; "worth != 0" is tested per element and the p-values Holm-adjusted
(statsmodels ``multipletests``). ``docs/importance.md`` says what the worth means.

Report hooks (``vikingsim.studies.kinds``): :func:`report_tables`, :func:`report_findings`,
:func:`report_figures`, all read from the stored rows or counts.

A game with sides instead of seats (878: Vikings and English) is handed to
``vikingsim.studies.importance_sides``: (element, side) pairs, a named reading of a side's
win (878 §5.3); the hooks here pass its studies on.
"""
from __future__ import annotations

import re
from pathlib import Path

from vikingsim.core.errors import InputError

KIND = "importance"
#: The baseline cell's knob: every seat's forbid left empty ("" = nothing forbidden).
BASELINE = {"policy.forbid": ""}
_SEAT_KNOB = re.compile(r"^policy\.(\d+)\.forbid$")
ALPHA = 0.05
PAIRED, UNPAIRED = "paired t (per-game differences)", "unpaired normal (win counts)"


# ---- the generated study ------------------------------------------------------------------
def build_study(game: str, *, games: int, seed: int, players: int | None = None,
                policies=(), elements=None, options: dict | None = None, rows: bool = True,
                chunk_games: int | None = None, name: str | None = None, path=None,
                side: str | None = None, side_win: str | None = None):
    """The restricted-play study of ``game`` (a checked :class:`~vikingsim.studies.spec.Study`):
    ``elements`` (default: all the game has in this setup) denied to each seat in turn.
    ``path`` (need not exist) anchors relative ``.toml`` paths; default ``./<name>.toml``.
    A game with sides instead of seats (878) takes ``side`` and ``side_win`` instead of
    ``players`` (``importance_sides``)."""
    name = name or f"importance-{game}"
    data = {"name": name, "game": game, "games": games, "seed": seed, "rows": rows,
            "options": dict(options or {})}
    if players is not None:
        data["players"] = players
    if policies:
        data["policies"] = [policies] if isinstance(policies, str) else list(policies)
    if chunk_games is not None:
        data["chunk_games"] = chunk_games
    report = {"elements": None if elements is None else list(elements), "side": side,
              "side_win": side_win}
    if any(v is not None for v in report.values()):
        data["report"] = {k: v for k, v in report.items() if v is not None}
    return _generate(data, Path(path) if path is not None else Path(f"{name}.toml"))


def expand_study(study):
    """A study file of kind "importance" (no ``[grid]`` or ``[[cases]]``; optional
    ``[report] elements = [...]``) made into its generated cells, as ``vikingsim importance``
    would make them from the same values. The text a run keeps (``study_toml``, cases
    written out) reads back as the same study; other cases are refused."""
    import tomllib

    bad = f"study file {study.path!r}: a kind = \"importance\" study makes its cells from its " \
          f"elements; drop [grid] and [[cases]]"
    if study.grid:
        raise InputError(bad)
    data = tomllib.loads(study.text)
    if data.get("common_seeds") is False:
        raise InputError(f"study file {study.path!r}: restricted play pairs its cells on common "
                         f"seeds; drop common_seeds = false")
    data.pop("kind", None)
    given = data.pop("cases", None)
    made = _generate(data, Path(study.path))
    if given is not None and tuple(given) != made.cases:
        raise InputError(bad)
    return made


def _generate(data: dict, path: Path):
    from vikingsim.games import get
    from vikingsim.studies import importance_sides
    from vikingsim.studies.spec import study_from_dict

    spec = get(data.get("game"))
    if not spec.seated:                      # sides instead of seats (878): its own cells
        return importance_sides.generate(data, path, spec)
    spec, players, elements = _check(data, path)
    cases = [dict(BASELINE)] + [{f"policy.{s}.forbid": e} for e in elements
                                for s in range(players)]
    report = {**data.get("report", {}), "elements": list(elements)}
    title = data.get("title") or f"{spec.title}: restricted play, {players} players"
    return study_from_dict({**data, "kind": KIND, "title": title, "players": players,
                            "common_seeds": True, "cases": cases, "report": report}, path)


def _check(data: dict, path: Path):
    """(GameSpec, players, elements) of a restricted-play study, or InputError (one line)."""
    from vikingsim.core import policies as P
    from vikingsim.core.options import resolve
    from vikingsim.core.runner import resolve_policies
    from vikingsim.games import get
    from vikingsim.studies.plan import local_path

    spec = get(data.get("game"))
    if not spec.seated:
        raise InputError(f"{spec.name} is not a seated game: restricted play compares seats' "
                         f"win rates")
    if spec.elements is None:
        raise InputError(f"{spec.name} has no elements a policy can be denied (its GameSpec "
                         f"gives no elements)")
    sided = [k for k in ("side", "side_win") if k in data.get("report", {})]
    if sided:
        raise InputError(f"{spec.name} is seated: restricted play rotates every seat; "
                         f"{sided[0]} (--{sided[0].replace('_', '-')}) is for a game with "
                         f"sides (battle878)")
    pols = data.get("policies", [])
    pols = [pols] if isinstance(pols, str) else list(pols)
    folder = path.resolve().parent
    seats, players = resolve_policies(spec, [local_path(folder, p) for p in pols] or None,
                                      data.get("players"))
    for text in seats:
        if P.parse(text)[1].get("forbid"):
            raise InputError(f"policy {text!r} already forbids something: restricted play "
                             f"adds the forbid itself")
    opts = resolve(spec.name, spec.options, dict(data.get("options", {})))
    setup = spec.setup({k: local_path(folder, v) for k, v in opts.items()}, seats, players)
    valid = tuple(spec.elements(setup))
    if not valid:
        raise InputError(f"{spec.name} has no elements a policy can be denied in this setup")
    return spec, players, _elements(data.get("report", {}).get("elements"), valid, spec.name)


def _elements(given, valid: tuple, game: str) -> tuple:
    if given is None:
        return valid
    if isinstance(given, str):
        given = [e.strip() for e in given.split(",") if e.strip()]
    if not isinstance(given, list) or not given or not all(isinstance(e, str) for e in given):
        raise InputError(f"elements must be a non-empty list of names; {game} has: "
                         f"{', '.join(valid)}")
    bad = [e for e in given if e not in valid]
    if bad:
        raise InputError(f"unknown element {bad[0]!r} for {game}; elements: {', '.join(valid)}")
    if len(set(given)) != len(given):
        raise InputError(f"elements list an element twice: {', '.join(given)}")
    return tuple(given)


# ---- reading the cells ----------------------------------------------------------------------
def cell_map(manifest: dict) -> tuple[int, dict]:
    """(baseline cell, {(element, seat): cell}) of an importance study's manifest."""
    base, cells = None, {}
    for c in manifest["cells"]:
        grid = c["grid"]
        if grid == BASELINE:
            base = c["cell"]
            continue
        (knob, element), = grid.items()
        cells[(element, int(_SEAT_KNOB.match(knob).group(1)))] = c["cell"]
    return base, cells


def _wins(data) -> dict:
    """{cell: (wins per seat, games)} from the stored tallies (integer counts)."""
    from vikingsim.studies.dataset import cell_counts

    return {cell: (counts.wins, n)
            for cell, (counts, n) in cell_counts(data.root, data.manifest).items()}


def seat_table(data):
    """One row per (element, seat): baseline and denied win rate of that seat, their
    difference and the games of each cell (from the counts)."""
    import pandas as pd

    base, cells = cell_map(data.manifest)
    wins = _wins(data)
    wb, nb = wins[base]
    rows = []
    for (e, s), c in cells.items():
        wc, nc = wins[c]
        rows.append({"element": e, "seat": s, "baseline_win_rate": wb[s] / nb,
                     "denied_win_rate": wc[s] / nc, "difference": wb[s] / nb - wc[s] / nc,
                     "baseline_games": nb, "games": nc})
    return pd.DataFrame(rows)


def _paired(data, base: int, cells: dict, elements: list, players: int) -> dict:
    """{element: per-game D_g} over the games (by ``game_id``, common seeds) that every cell
    of the element and the baseline has finished."""
    import numpy as np

    missing = -2                                               # no winner is -1
    df = data.games(cell=[base, *cells.values()], columns=["winner"])
    size = int(df["game_id"].max()) + 1
    winners = {}
    for c, g in df.groupby("cell"):
        w = np.full(size, missing, np.int64)
        w[g["game_id"].to_numpy()] = g["winner"].to_numpy()
        winners[c] = w
    out = {}
    for e in elements:
        w = np.stack([winners[base], *(winners[cells[(e, s)]] for s in range(players))])
        w = w[:, (w != missing).all(axis=0)]                   # games all of them finished
        d = (w[0] >= 0).astype(np.float64)                     # sum_s 1[baseline winner = s]
        for s in range(players):
            d -= w[1 + s] == s
        out[e] = d / players
    return out


def _paired_row(d) -> dict:
    from statsmodels.stats.weightstats import DescrStatsW

    st = DescrStatsW(d)
    if st.std == 0.0:                      # every game the same: no evidence of any effect
        return {"worth": st.mean, "se": 0.0, "lo": st.mean, "hi": st.mean,
                "p": 1.0 if st.mean == 0.0 else 0.0, "games": len(d)}
    lo, hi = st.tconfint_mean(alpha=ALPHA)
    return {"worth": st.mean, "se": st.std_mean, "lo": lo, "hi": hi,
            "p": st.ttest_mean(0.0)[1], "games": len(d)}


def _unpaired_row(wins: dict, base: int, cells: dict, e: str, players: int) -> dict:
    """Worth from counts: (q - sum_s p_s) / K, q = the baseline's finished share (the sum of
    its seats' win rates, one multinomial), p_s = seat s's win rate denied e."""
    from scipy.stats import norm

    wb, nb = wins[base]
    q = wb.sum() / nb
    var = q * (1 - q) / nb
    worth = q
    for s in range(players):
        w, n = wins[cells[(e, s)]]
        p = w[s] / n
        worth -= p
        var += p * (1 - p) / n
    worth, se = worth / players, var ** 0.5 / players
    if se == 0.0:
        return {"worth": worth, "se": 0.0, "lo": worth, "hi": worth,
                "p": 1.0 if worth == 0.0 else 0.0, "games": int(nb)}
    z = norm.ppf(1 - ALPHA / 2)
    return {"worth": worth, "se": se, "lo": worth - z * se, "hi": worth + z * se,
            "p": 2 * norm.sf(abs(worth) / se), "games": int(nb)}


def worth_table(data):
    """The ranked table: one row per element (rank, element, worth, lo, hi, se, p, p_holm,
    nonzero, interval, games, unused), best first; worths are win-rate fractions. Kept on
    ``data`` (the report asks for it three times), keyed by the games the cells have done."""
    key = tuple(c["games_done"] for c in data.manifest["cells"])
    cached = getattr(data, "_importance_table", None)
    if cached is None or cached[0] != key:
        data._importance_table = (key, _worth_table(data))
    return data._importance_table[1].copy()


def _worth_table(data):
    import pandas as pd

    from vikingsim.studies import importance_sides

    if importance_sides.is_sided(data.manifest):
        return importance_sides.worth_table(data)
    m = data.manifest
    base, cells = cell_map(m)
    elements = list(m["report"]["elements"])
    players = m["cells"][base]["players"]
    paired = bool(m.get("rows", True))
    if paired:
        diffs = _paired(data, base, cells, elements, players)
        rows = [{"element": e, **_paired_row(diffs[e]), "unused": not diffs[e].any()}
                for e in elements]
    else:
        wins = _wins(data)
        rows = [{"element": e, **_unpaired_row(wins, base, cells, e, players), "unused": None}
                for e in elements]
    df = pd.DataFrame(rows)
    df["p_holm"], df["nonzero"] = holm(df["p"].to_numpy(float))
    df["interval"] = PAIRED if paired else UNPAIRED
    df = df.sort_values(["worth", "element"], ascending=[False, True], kind="stable")
    df.insert(0, "rank", range(1, len(df) + 1))
    cols = ["rank", "element", "worth", "lo", "hi", "se", "p", "p_holm", "nonzero",
            "interval", "games", "unused"]
    return df[cols].reset_index(drop=True)


def holm(p) -> tuple:
    """(Holm-adjusted p-values, rejected at ``ALPHA``) of "worth != 0" over the elements."""
    from vikingsim.core.stats import multipletests

    reject, adjusted, _, _ = multipletests(p, alpha=ALPHA, method="holm")
    return adjusted, reject


# ---- report hooks -----------------------------------------------------------------------------
def _sided(data):
    """``importance_sides`` for a study of a game with sides (878), else None."""
    from vikingsim.studies import importance_sides

    return importance_sides if importance_sides.is_sided(data.manifest) else None


def report_tables(data) -> dict:
    if _sided(data):
        return _sided(data).report_tables(data)
    return {"importance": worth_table(data), "importance by seat": seat_table(data)}


def _pts(x: float) -> str:
    return f"{100 * x:+.2f}"


def report_findings(data) -> list[str]:
    """The distinguishable elements in words (at most three each way), or that none is."""
    if _sided(data):
        return _sided(data).report_findings(data)
    t = worth_table(data)
    how = "paired over" if t["interval"].iloc[0] == PAIRED else "from the win counts of"
    games = f"{int(t['games'].min()):,} games"
    found = t[t["nonzero"]]
    out = []
    if found.empty:
        out.append(f"No element is distinguishable from 0 (Holm-adjusted p >= {ALPHA} for all "
                   f"{len(t)} elements, {how} {games} per cell); the largest worth is "
                   f"{t.iloc[0]['element']}'s, {_pts(t.iloc[0]['worth'])} points "
                   f"[{_pts(t.iloc[0]['lo'])}, {_pts(t.iloc[0]['hi'])}].")
    for _, r in found[found["worth"] > 0].head(3).iterrows():
        out.append(f"Denying a seat {r['element']} costs it {100 * r['worth']:.2f} points of "
                   f"win rate [{100 * r['lo']:.2f}, {100 * r['hi']:.2f}] (rank {r['rank']} "
                   f"of {len(t)}, Holm p = {r['p_holm']:.2g}; {how} {games}).")
    for _, r in found[found["worth"] < 0].sort_values("worth").head(3).iterrows():
        out.append(f"Denying a seat {r['element']} raises its win rate by "
                   f"{-100 * r['worth']:.2f} points [{-100 * r['hi']:.2f}, "
                   f"{-100 * r['lo']:.2f}]: the policy chooses it to its own cost (Holm "
                   f"p = {r['p_holm']:.2g}).")
    unused = t[t["unused"] == True]                                   # noqa: E712 (None = unknown)
    if len(unused):
        out.append(f"Never used by the policy (every paired game identical): "
                   f"{', '.join(unused['element'])}.")
    return out


def report_figures(data, folder) -> list:
    """``importance.png``: the ranked worths as horizontal bars with 95% interval whiskers."""
    from matplotlib.figure import Figure

    if _sided(data):
        return _sided(data).report_figures(data, folder)

    t = worth_table(data)
    fig = Figure(figsize=(7, 1.2 + 0.32 * len(t)))
    ax = fig.add_subplot()
    y = list(range(len(t)))[::-1]                        # rank 1 at the top
    colours = ["tab:blue" if nz else "tab:gray" for nz in t["nonzero"]]
    ax.barh(y, 100 * t["worth"], color=colours,
            xerr=[100 * (t["worth"] - t["lo"]), 100 * (t["hi"] - t["worth"])],
            error_kw={"capsize": 3, "elinewidth": 1})
    ax.set_yticks(y, t["element"])
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_xlabel("worth: win-rate points a seat loses when denied it (95% interval)")
    ax.set_title(f"{data.manifest.get('title') or data.manifest['name']}\nblue: Holm-adjusted "
                 f"p < {ALPHA}; {t['interval'].iloc[0]}", fontsize=9)
    fig.tight_layout()
    path = Path(folder) / "importance.png"
    fig.savefig(path, dpi=120)
    return [path]


def format_table(t, side_win: str | None = None) -> str:
    """The ranked table as text, worths in win-rate points (a game with sides: by side,
    under the ``side_win`` reading)."""
    if "side" in t.columns:
        from vikingsim.studies import importance_sides

        return importance_sides.format_table(t, side_win)
    lines = [f"{'rank':>4}  {'element':<24} {'worth':>7}  {'95% interval':<17} "
             f"{'p_holm':>8}  nonzero"]
    for _, r in t.iterrows():
        lines.append(f"{r['rank']:>4}  {r['element']:<24} {_pts(r['worth']):>7}  "
                     f"{'[' + _pts(r['lo']) + ', ' + _pts(r['hi']) + ']':<17} "
                     f"{r['p_holm']:>8.3g}  {'yes' if r['nonzero'] else 'no'}")
    lines.append(f"worth = mean over seats of (baseline win rate - win rate when denied), in "
                 f"points; interval: {t['interval'].iloc[0]}, {int(t['games'].min()):,} games")
    return "\n".join(lines)
