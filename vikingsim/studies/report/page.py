"""The report page: HTML assembly of the tables, words and figures, and its atomic writing
(``vikingsim report results/NAME``).

The page is self-contained: figures are PNG data URIs, the CSS is inline and nothing is
fetched. It shows win rates by seat (or side), policy and option with Wilson 95 % intervals,
heatmaps of two-knob grids, game-length histograms, findings in plain words and the study's
provenance; a study of a kind in ``studies.kinds.KINDS`` adds that kind's tables, findings
and figures first, after the sentence saying what was played (``kind_parts``); a study with a
skill axis (``[report] skill``) adds its section "By skill" (``skill.skill_parts``)."""
from __future__ import annotations

import base64
import html
import json
from dataclasses import dataclass
from pathlib import Path
from string import Template

import numpy as np
import pandas as pd

from vikingsim.studies.report.counts import StudyView, count_games, load_study
from vikingsim.studies.report.figures import (HIST_LINES, data_uri, length_grid_figure,
                                              length_hist_figure, min_font_px, rate_figure)
from vikingsim.studies.report.labels import knob_words, labels_of, raw_label
from vikingsim.studies.report.skill import skill_parts
from vikingsim.studies.report.tables import ALPHA, build_tables, two_knob_grid
from vikingsim.studies.report.words import ci_text, findings, p_text, pct, summary

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


def section(title: str, *parts: str) -> str:
    return f"<section><h2>{esc(title)}</h2>{''.join(parts)}</section>"


def _contender_rows(cf: pd.DataFrame) -> list[list]:
    return [[r.label, r.who, r.policy or "-", f"{r.wins:,}", f"{r.games:,}", f"{pct(r.rate)}%",
             ci_text(r.lo, r.hi), f"{pct(r.fair)}%", f"{100 * r.diff:+.1f}",
             f"[{100 * r.dlo:+.1f}, {100 * r.dhi:+.1f}]", p_text(r.p_fair_holm),
             "yes" if r.finding else "no"] for r in cf.itertuples()]


def contenders_html(study: StudyView, cf: pd.DataFrame, tests: pd.DataFrame) -> str:
    if cf.empty:
        return ""
    what = "seat" if study.spec.seated else "side"
    fig = rate_figure(study, cf, "who", "win rate (%)", fair=True)
    cap = (f"Win rate by {what} with 95% Wilson intervals"
           + (" (heatmaps: points above or below the fair share)" if two_knob_grid(study, cf)
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


def knobs_html(study: StudyView, kf: pd.DataFrame) -> str:
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


def _value_text(study: StudyView, knob: str, value: str) -> str:
    """A knob value of the knob table (kept as text there) in words, without the knob."""
    labels = labels_of(study.manifest)
    return labels.get(str(value), str(value))


def outcomes_html(study: StudyView, of: pd.DataFrame) -> str:
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


def lengths_html(study: StudyView, counts: dict, lf: pd.DataFrame, length: str | None) -> str:
    if length is None or lf.empty:
        return ""
    caption = (f"Game length ({length}) of every cell" if len(lf) > HIST_LINES else
               f"Game length ({length}): share of games")
    parts = [figure_html(length_hist_figure(study, counts, length), caption)]
    if two_knob_grid(study, lf) or (len(study.keys) == 1 and len(lf) > 1):
        parts.append(figure_html(length_grid_figure(study, lf, length),
                                 f"Mean game length ({length}) over the grid"))
    rows = [[r.label, f"{r.games:,}", f"{r.mean:.2f}", f"[{r.lo:.2f}, {r.hi:.2f}]", r.median,
             r.p90, r.max] for r in lf.itertuples()]
    parts.append(table_html(["cell", "games", f"mean {length}", "95% interval", "median",
                             "90th percentile", "max"], rows, num={1, 2, 4, 5, 6}))
    return section("Game length", *parts)


def provenance_html(study: StudyView, counts: dict) -> str:
    m = study.manifest
    versions = ", ".join(f"{k} {v}" for k, v in (m.get("versions") or {}).items())
    items = [("study", study.name), ("study file", m.get("study_file", "-")),
             ("game", f"{study.spec.name} ({study.spec.title})"),
             ("rules version", m.get("rules_version", "-")), ("root seed", m.get("root_seed")),
             ("games per chunk", m.get("chunk_games", "-")),
             ("grid knobs", ", ".join(study.keys) or "none"), ("versions", versions or "-")]
    if m.get("games_override"):        # `experiment --games N`: not the file's games
        o = m["games_override"]
        items.insert(2, ("games per cell", f"{o['games']:,} (--games; the file says "
                                           f"{o['file']:,})"))
    facts = table_html(["", ""], [list(i) for i in items])
    rows = [[c["cell"], raw_label(c), c["players"], ", ".join(map(str, c["policies"])),
             f"{c['games']:,}", f"{c.get('games_done', '-')}", f"{counts[c['cell']].games:,}",
             c.get("decided") or "-"] for c in study.cells]
    cells = table_html(["cell", "label", "players", "policies", "games planned", "games done",
                        "rows read", "decided"], rows, num={0, 2, 4, 5, 6})
    return section("Provenance", facts, cells, _fixed_options_html(study),
                   _details("study file", m.get("study_toml", "")),
                   _details("report settings", json.dumps(m.get("report") or {}, indent=1)))


def _fixed_options_html(study: StudyView) -> str:
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


def render(study: StudyView, source: str = "auto") -> tuple[str, list[str]]:
    """The report page of ``study`` (HTML text) and its findings (``source``: see
    ``count_games``)."""
    counts, length = count_games(study, source)
    tables = build_tables(study, counts)
    words = findings(study, counts, tables, length)
    short = summary(study, counts, tables)
    kind = kind_parts(study)
    # a kind's answer (ratings, worths, indices) is what its command was run for: it leads,
    # right after the sentence saying what was played, and its section precedes the generic ones
    short = short[:1] + kind.findings + short[1:]
    skill = skill_parts(study, tables["contenders"])     # "By skill": a [report] skill axis
    short = short[:1 + len(kind.findings)] + skill.summary + short[1 + len(kind.findings):]
    words = words + skill.findings
    body = "".join([summary_html(short), kind.html, skill.html, findings_html(words[1:]),
                    contenders_html(study, tables["contenders"], tables["tests"]),
                    policies_html(tables["policies"]),
                    knobs_html(study, tables["knobs"]),
                    outcomes_html(study, tables["outcomes"]),
                    lengths_html(study, counts, tables["lengths"], length),
                    provenance_html(study, counts)])
    return PAGE.substitute(title=esc(_title(study)), subtitle=esc(_subtitle(study)),
                           body=body, css=CSS, script=SCRIPT), short + words[1:]


# ---- a kind's own part ----------------------------------------------------------------------
@dataclass
class KindParts:
    """What a study's kind adds to the page: sentences for "In short" and a section."""

    findings: list
    html: str


def kind_parts(study: StudyView) -> KindParts:
    """The tables, findings and figures of the study's kind (``studies.kinds.KINDS``: the
    module's ``report_tables``, ``report_findings``, ``report_figures``, each given the
    :class:`~vikingsim.studies.dataset.StudyData`); nothing for a study file (kind "")."""
    import importlib
    import tempfile

    from vikingsim.studies.kinds import KINDS

    kind = study.data.kind
    if not kind:
        return KindParts([], "")
    if kind not in KINDS:
        return KindParts([f"This study is of kind {kind!r}, which this vikingsim does not "
                          f"know ({', '.join(KINDS) or 'none'} are): the page shows the "
                          f"generic sections only."], "")
    module = importlib.import_module(KINDS[kind])
    tables = module.report_tables(study.data)
    words = [str(w) for w in module.report_findings(study.data)]
    with tempfile.TemporaryDirectory() as folder:
        figures = [image_html(Path(f)) for f in module.report_figures(study.data, Path(folder))]
    parts = [*figures, *(f"<h3>{esc(title)}</h3>{frame_html(df)}" for title, df in tables.items())]
    return KindParts(words, section(f"{kind[0].upper()}{kind[1:]}", *parts) if parts else "")


_IMAGE_TYPES = {".png": "image/png", ".svg": "image/svg+xml", ".jpg": "image/jpeg",
                ".jpeg": "image/jpeg"}


def image_html(path: Path) -> str:
    """An image file as an <img> data URI; the caption is its file name in words."""
    kind = _IMAGE_TYPES.get(path.suffix.lower())
    if kind is None:
        raise ValueError(f"report figure {path.name!r}: not an image file "
                         f"({', '.join(_IMAGE_TYPES)})")
    uri = f"data:{kind};base64," + base64.b64encode(path.read_bytes()).decode("ascii")
    caption = path.stem.replace("_", " ")
    return (f'<figure><img src="{uri}" alt="{esc(caption)}">'
            f"<figcaption>{esc(caption)}</figcaption></figure>")


def frame_html(df: pd.DataFrame) -> str:
    """A tidy frame as a table: integers with thousands separators, other numbers to four
    significant figures, numeric columns right-aligned, missing values as "-"."""
    num = {i for i, c in enumerate(df.columns)
           if pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c])}
    rows = [[_cell_text(v) for v in r] for r in df.itertuples(index=False)]
    return table_html([str(c) for c in df.columns], rows, num=num)


def _cell_text(v) -> str:
    if v is None or v is pd.NA or (isinstance(v, (float, np.floating)) and np.isnan(v)):
        return "-"
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (int, np.integer)):
        return f"{int(v):,}"
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.4g}"
    return str(v)


def _title(study: StudyView) -> str:
    m = study.manifest
    return str((m.get("report") or {}).get("title") or m.get("title") or f"Study {study.name}")


def _subtitle(study: StudyView) -> str:
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
