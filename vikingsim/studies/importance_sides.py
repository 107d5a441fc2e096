"""Restricted play for a game with sides instead of seats (878: Vikings and English; issue 20
§2, 878 §5.3). ``vikingsim.studies.importance`` hands a game that is not seated to this module.

The study has one baseline cell and, per chosen (element, side), a cell where that side's
policy has ``forbid=element``; common seeds pair game ``g`` of every cell, so

    worth(e, side) = P(side wins | baseline) - P(side wins | side denied e)

is estimated from the per-game differences ``D_g = 1[side wins game g of the baseline] -
1[side wins game g of the cell]`` when the study keeps rows (a paired t interval), and from
the cells' outcome counts otherwise (an unpaired normal interval treating the two cells as
independent). "Wins" is a named reading of the game's outcomes (``side_win``, the game's
``sides`` module: for 878 ``holds`` or ``strict``). The (element, side) rows are ranked by
worth and "worth != 0" is Holm-adjusted over them, as for the seated games.

Study keys (``[report]`` of a ``kind = "importance"`` file): ``side`` (a side name or
``both``, default ``both``), ``side_win`` (default: the game's), ``elements`` (default: every
element the setup offers, each at the side(s) whose rules give it; with one ``side`` named,
the listed elements are all denied to that side, even one it never has: worth 0).
"""
from __future__ import annotations

import importlib
from pathlib import Path

from vikingsim.core.errors import InputError

#: games with sides -> the module giving SIDES, SIDE_WIN, DEFAULT_SIDE_WIN, element_seats
SIDED = {"battle878": "vikingsim.games.battle878.sides"}
BOTH = "both"


def sides_module(game: str):
    """The game's sides module, or InputError (one line) for a game without one."""
    if game not in SIDED:
        raise InputError(f"{game} is neither seated nor has sides for restricted play "
                         f"(games with sides: {', '.join(SIDED)})")
    return importlib.import_module(SIDED[game])


def is_sided(manifest: dict) -> bool:
    return "side_win" in manifest.get("report", {})


# ---- the generated study ------------------------------------------------------------------
def generate(data: dict, path: Path, spec):
    """The cells of a restricted-play study of ``spec`` (a game with sides), checked."""
    from vikingsim.studies import importance as I
    from vikingsim.studies.spec import study_from_dict

    pairs, report = _check(data, path, spec)
    cases = [dict(I.BASELINE)] + [{f"policy.{seat}.forbid": e} for e, seat in pairs]
    title = data.get("title") or (f"{spec.title}: restricted play by side "
                                  f"({report['side_win']} wins)")
    return study_from_dict({**data, "kind": I.KIND, "title": title, "common_seeds": True,
                            "cases": cases, "report": report}, path)


def _check(data: dict, path: Path, spec):
    """([(element, seat), ...], the report table) or InputError (one line)."""
    from vikingsim.core import policies as P
    from vikingsim.core.options import resolve
    from vikingsim.core.runner import resolve_policies
    from vikingsim.studies import importance as I
    from vikingsim.studies.plan import local_path

    mod = sides_module(spec.name)
    if spec.elements is None:
        raise InputError(f"{spec.name} has no elements a policy can be denied (its GameSpec "
                         f"gives no elements)")
    if "players" in data:
        raise InputError(f"{spec.name} is not seated: players (--players) does not apply; its "
                         f"sides are {_sides_text(mod)}")
    report = dict(data.get("report", {}))
    side = report.get("side", BOTH)
    if side != BOTH and side not in mod.SIDES:
        raise InputError(f"unknown side {side!r} for {spec.name}; sides: "
                         f"{', '.join([*mod.SIDES, BOTH])}")
    reading = report.get("side_win", mod.DEFAULT_SIDE_WIN)
    if reading not in mod.SIDE_WIN:
        raise InputError(f"unknown side_win reading {reading!r} for {spec.name}; readings: "
                         f"{', '.join(mod.SIDE_WIN)}")
    pols = data.get("policies", [])
    pols = [pols] if isinstance(pols, str) else list(pols)
    folder = path.resolve().parent
    seats, players = resolve_policies(spec, [local_path(folder, p) for p in pols] or None, None)
    for text in seats:
        if P.parse(text)[1].get("forbid"):
            raise InputError(f"policy {text!r} already forbids something: restricted play "
                             f"adds the forbid itself")
    opts = resolve(spec.name, spec.options, dict(data.get("options", {})))
    setup = spec.setup({k: local_path(folder, v) for k, v in opts.items()}, seats, players)
    valid = tuple(spec.elements(setup))
    given = report.get("elements")
    if side == BOTH:
        chosen = tuple(mod.SIDES.values())
        elements = I._elements(given, valid, spec.name)
        pairs = [(e, s) for e in elements for s in chosen if s in mod.element_seats(e)]
    else:
        seat = mod.SIDES[side]
        elements = I._elements(given, tuple(e for e in valid if seat in mod.element_seats(e))
                               if given is None else valid, spec.name)
        pairs = [(e, seat) for e in elements]
    if not pairs:
        raise InputError(f"{spec.name} offers side {side} no element in this setup")
    return pairs, {**report, "elements": list(elements), "side": side, "side_win": reading}


def _sides_text(mod) -> str:
    return ", ".join(f"{name} (seat {seat})" for name, seat in mod.SIDES.items())


# ---- reading the cells ----------------------------------------------------------------------
def _names(manifest: dict) -> dict:
    """seat -> side name."""
    return {seat: name for name, seat in sides_module(manifest["game"]).SIDES.items()}


def win_outcomes(manifest: dict, seat: int) -> tuple[str, ...]:
    """The outcomes that count as a win of the side at ``seat`` under the study's reading."""
    mod = sides_module(manifest["game"])
    return mod.SIDE_WIN[manifest["report"]["side_win"]][_names(manifest)[seat]]


def _counts(data) -> dict:
    """{cell: ({outcome: games}, games)} from the stored tallies (integer counts)."""
    from vikingsim.studies.dataset import cell_counts

    return {cell: (counts.outcomes, n)
            for cell, (counts, n) in cell_counts(data.root, data.manifest).items()}


def _won(counts: tuple, outcomes) -> tuple[int, int]:
    got, n = counts
    return sum(int(got[o]) for o in outcomes), n


def _paired(data, base: int, cells: dict) -> dict:
    """{(element, seat): per-game D_g} over the games (by ``game_id``, common seeds) both the
    baseline and the cell have finished."""
    import numpy as np

    df = data.games(cell=[base, *cells.values()], columns=["outcome"])
    size = int(df["game_id"].max()) + 1
    keys = {}
    for c, g in df.groupby("cell"):
        k = np.full(size, "", object)                  # "" = game not finished in this cell
        k[g["game_id"].to_numpy()] = g["outcome"].astype(str).to_numpy()
        keys[c] = k
    out = {}
    for (e, seat), c in cells.items():
        won = set(win_outcomes(data.manifest, seat))
        both = (keys[base] != "") & (keys[c] != "")
        wb = np.isin(keys[base][both], list(won)).astype(np.float64)
        out[(e, seat)] = wb - np.isin(keys[c][both], list(won))
    return out


def _unpaired_row(base: tuple, cell: tuple) -> dict:
    """Worth p_b - p_c from the two cells' win counts: a normal interval, cells independent."""
    from scipy.stats import norm

    from vikingsim.studies.importance import ALPHA

    (wb, nb), (wc, nc) = base, cell
    pb, pc = wb / nb, wc / nc
    worth, se = pb - pc, (pb * (1 - pb) / nb + pc * (1 - pc) / nc) ** 0.5
    if se == 0.0:
        return {"worth": worth, "se": 0.0, "lo": worth, "hi": worth,
                "p": 1.0 if worth == 0.0 else 0.0, "games": int(min(nb, nc))}
    z = norm.ppf(1 - ALPHA / 2)
    return {"worth": worth, "se": se, "lo": worth - z * se, "hi": worth + z * se,
            "p": 2 * norm.sf(abs(worth) / se), "games": int(min(nb, nc))}


def worth_table(data):
    """The ranked table: one row per (element, side): rank, element, side, worth, lo, hi, se,
    p, p_holm, nonzero, interval, games, unused, baseline_win_rate, denied_win_rate (win-rate
    fractions of that side under the study's ``side_win`` reading), best first."""
    import pandas as pd

    from vikingsim.studies import importance as I

    m = data.manifest
    base, cells = I.cell_map(m)
    names = _names(m)
    counts = _counts(data)
    paired = bool(m.get("rows", True))
    diffs = _paired(data, base, cells) if paired else None
    rows = []
    for (e, seat), c in cells.items():
        won = win_outcomes(m, seat)
        wb, wc = _won(counts[base], won), _won(counts[c], won)
        if paired:
            d = diffs[(e, seat)]
            stat, unused = I._paired_row(d), not d.any()
        else:
            stat, unused = _unpaired_row(wb, wc), None
        rows.append({"element": e, "side": names[seat], **stat, "unused": unused,
                     "baseline_win_rate": wb[0] / wb[1], "denied_win_rate": wc[0] / wc[1]})
    df = pd.DataFrame(rows)
    df["p_holm"], df["nonzero"] = I.holm(df["p"].to_numpy(float))
    df["interval"] = I.PAIRED if paired else I.UNPAIRED
    df = df.sort_values(["worth", "side", "element"], ascending=[False, True, True],
                        kind="stable")
    df.insert(0, "rank", range(1, len(df) + 1))
    cols = ["rank", "element", "side", "worth", "lo", "hi", "se", "p", "p_holm", "nonzero",
            "interval", "games", "unused", "baseline_win_rate", "denied_win_rate"]
    return df[cols].reset_index(drop=True)


def reading_table(data):
    """The baseline's outcome counts and whose win each is under the study's reading."""
    import pandas as pd

    from vikingsim.studies import importance as I

    m = data.manifest
    base, _ = I.cell_map(m)
    got, n = _counts(data)[base]
    credit = {o: name for seat, name in _names(m).items() for o in win_outcomes(m, seat)}
    return pd.DataFrame([{"outcome": o, "games": int(k), "share": k / n,
                          "counts_as_win_of": credit.get(o, "nobody"),
                          "side_win": m["report"]["side_win"]} for o, k in got.items()])


# ---- report hooks -----------------------------------------------------------------------------
def report_tables(data) -> dict:
    from vikingsim.studies.importance import worth_table as cached

    return {"importance": cached(data), "side-win reading": reading_table(data)}


def report_findings(data) -> list[str]:
    """The distinguishable (element, side) rows in words (at most three each way)."""
    from vikingsim.studies.importance import ALPHA, PAIRED, _pts, worth_table as cached

    t = cached(data)
    how = "paired over" if t["interval"].iloc[0] == PAIRED else "from the outcome counts of"
    games = f"{int(t['games'].min()):,} games"
    reading = f"a win read as '{data.manifest['report']['side_win']}'"
    found = t[t["nonzero"]]
    out = []
    if found.empty:
        top = t.iloc[0]
        out.append(f"No element is distinguishable from 0 for its side (Holm-adjusted p >= "
                   f"{ALPHA} for all {len(t)} rows, {how} {games} per cell, {reading}); the "
                   f"largest worth is {top['element']}'s to the {top['side'].capitalize()}, "
                   f"{_pts(top['worth'])} points [{_pts(top['lo'])}, {_pts(top['hi'])}].")
    for _, r in found[found["worth"] > 0].head(3).iterrows():
        out.append(f"Denying the {r['side'].capitalize()} {r['element']} costs them "
                   f"{100 * r['worth']:.2f} points of win rate [{100 * r['lo']:.2f}, "
                   f"{100 * r['hi']:.2f}] ({100 * r['baseline_win_rate']:.2f}% -> "
                   f"{100 * r['denied_win_rate']:.2f}%; rank {r['rank']} of {len(t)}, Holm p = "
                   f"{r['p_holm']:.2g}; {how} {games}, {reading}).")
    for _, r in found[found["worth"] < 0].sort_values("worth").head(3).iterrows():
        out.append(f"Denying the {r['side'].capitalize()} {r['element']} raises their win "
                   f"rate by {-100 * r['worth']:.2f} points [{-100 * r['hi']:.2f}, "
                   f"{-100 * r['lo']:.2f}]: the policy uses it to its own cost (Holm p = "
                   f"{r['p_holm']:.2g}, {reading}).")
    unused = t[t["unused"] == True]                                   # noqa: E712 (None = unknown)
    if len(unused):
        out.append("Never used by the policy (every paired battle identical): "
                   + ", ".join(f"{r['element']} ({r['side']})" for _, r in unused.iterrows())
                   + ".")
    return out


def report_figures(data, folder) -> list:
    """``importance.png``: the ranked worths as horizontal bars with 95% interval whiskers."""
    from matplotlib.figure import Figure

    from vikingsim.studies.importance import ALPHA, worth_table as cached

    t = cached(data)
    fig = Figure(figsize=(7, 1.2 + 0.32 * len(t)))
    ax = fig.add_subplot()
    y = list(range(len(t)))[::-1]                        # rank 1 at the top
    colours = ["tab:blue" if nz else "tab:gray" for nz in t["nonzero"]]
    ax.barh(y, 100 * t["worth"], color=colours,
            xerr=[100 * (t["worth"] - t["lo"]), 100 * (t["hi"] - t["worth"])],
            error_kw={"capsize": 3, "elinewidth": 1})
    ax.set_yticks(y, [f"{e} ({s})" for e, s in zip(t["element"], t["side"])])
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_xlabel(f"worth: win-rate points a side loses when denied it (95% interval; "
                  f"win = '{data.manifest['report']['side_win']}')")
    ax.set_title(f"{data.manifest.get('title') or data.manifest['name']}\nblue: Holm-adjusted "
                 f"p < {ALPHA}; {t['interval'].iloc[0]}", fontsize=9)
    fig.tight_layout()
    path = Path(folder) / "importance.png"
    fig.savefig(path, dpi=120)
    return [path]


def format_table(t, side_win: str) -> str:
    """The ranked table as text, worths in win-rate points."""
    from vikingsim.studies.importance import _pts

    lines = [f"{'rank':>4}  {'element':<18} {'side':<8} {'worth':>7}  {'95% interval':<17} "
             f"{'p_holm':>8}  nonzero"]
    for _, r in t.iterrows():
        lines.append(f"{r['rank']:>4}  {r['element']:<18} {r['side']:<8} {_pts(r['worth']):>7}"
                     f"  {'[' + _pts(r['lo']) + ', ' + _pts(r['hi']) + ']':<17} "
                     f"{r['p_holm']:>8.3g}  {'yes' if r['nonzero'] else 'no'}")
    lines.append(f"worth = the side's baseline win rate - its win rate when denied, in points "
                 f"(win = '{side_win}'); interval: {t['interval'].iloc[0]}, "
                 f"{int(t['games'].min()):,} games")
    return "\n".join(lines)
