"""Skill ladder (issue 21 §4, after TAG's SkillLadder): does a player get stronger with more
search? ``vikingsim ladder GAME --policy "ismcts(budget={b})" --start 4 --steps 6``.

Step i (b = start * 2**i) puts the *strong* player, the template with ``{b}`` = 2b, in one seat
and the *weak* one (``{b}`` = b) in every other seat, the strong seat rotated over all K seats:
K cells per step, all on common seeds (``common_seeds = true``: every cell plays the same
dice, so the rotations and steps are paired). It is a generated study (``study_from_dict``,
``kind = "ladder"``): resumable, on any backend, reported by ``vikingsim report``.

Measure per step: the strong seat's share of the step's K*n games minus the fair share 1/K,
with a Wilson 95% interval over the K*n games (treated as independent; the K rotations share
dice streams, as in ``tournament``). Strength "grows" at a step whose interval lies above 0;
it stops growing at the first step whose interval reaches 0.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from vikingsim.core.errors import InputError

#: The budget placeholder of a ladder's policy template.
SLOT = "{b}"
MAX_STEPS = 16


def check_template(template: str) -> None:
    if not isinstance(template, str) or SLOT not in template:
        raise InputError(f"--policy {template!r}: a ladder needs a policy template with "
                         f"{SLOT} where the budget goes, e.g. \"ismcts(budget={{b}})\"")


def budgets(start: int, steps: int) -> list[int]:
    """The weak budget of each step: start, 2 start, 4 start, ..."""
    for name, v, hi in (("--start", start, 1 << 20), ("--steps", steps, MAX_STEPS)):
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= hi:
            raise InputError(f"{name} must be an integer in [1, {hi}], got {v!r}")
    if start << steps > 1 << 24:
        raise InputError(f"--start {start} --steps {steps} reaches budget {start << steps}, "
                         f"more than {1 << 24}")
    return [start << i for i in range(steps)]


def ladder_dict(game: str, template: str, *, start: int = 4, steps: int = 6, n: int = 2000,
                players: int | None = None, seed: int = 0, options: dict | None = None,
                chunk_games: int | None = None) -> dict:
    """The study (same keys as a study file) of a ladder; checked by ``study_from_dict``."""
    from vikingsim.core.runner import resolve_policies
    from vikingsim.games import get
    from vikingsim.studies.tournament import check_game

    spec = get(game)
    check_game(spec)
    check_template(template)
    weak = budgets(start, steps)
    first = template.replace(SLOT, str(weak[0]))
    _, k = resolve_policies(spec, [first], spec.players[2] if players is None else players)
    cases = [{"policy": template.replace(SLOT, str(b)),
              f"policy.{seat}": template.replace(SLOT, str(2 * b))}
             for b in weak for seat in range(k)]
    data = {"name": f"ladder-{game}", "title": f"{spec.title}: skill ladder of {template}",
            "game": game, "players": k, "games": n, "seed": seed, "common_seeds": True,
            "rows": False, "kind": "ladder", "options": dict(options or {}), "cases": cases,
            "report": {"template": template, "start": start, "steps": steps,
                       "budgets": weak, "players": k}}
    if chunk_games is not None:
        data["chunk_games"] = chunk_games
    return data


def ladder_study(game: str, template: str, *, out=None, **kw):
    from vikingsim.studies.spec import study_from_dict

    data = ladder_dict(game, template, **kw)
    path = Path(out if out is not None else f"results/ladder-{game}") / "ladder.toml"
    return study_from_dict(data, path)


def run_ladder(game: str, template: str, *, out=None, backend="local", workers=None,
               resume=False, progress=False, **kw):
    """Build and run the ladder study into ``out`` (default results/ladder-GAME)."""
    from vikingsim.studies.run import run_study

    study = ladder_study(game, template, out=out, **kw)
    root = Path(out) if out is not None else Path("results") / study.name
    return run_study(study, root, backend=backend, workers=workers, resume=resume,
                     progress=progress)


# ---- reading (report_* of kind "ladder") -----------------------------------------------------
def ladder_table(data) -> pd.DataFrame:
    """One row per step from the stored counts: weak and strong budgets, games, the strong
    seat's wins, its share, the excess over 1/K with its 95% interval, and whether the step's
    cells are all finished."""
    from vikingsim.core.balance_stats import interval
    from vikingsim.core.game import tally_counts
    from vikingsim.games import get
    from vikingsim.studies.dataset import cell_tally

    m = data.manifest
    spec, rep = get(m["game"]), m["report"]
    k = int(rep["players"])
    rows = []
    for i, b in enumerate(rep["budgets"]):
        wins = games = done = 0
        for seat in range(k):
            entry = m["cells"][i * k + seat]
            tally, n = cell_tally(data.root, entry["cell"])
            done += n == entry["games"]
            if n:
                wins += int(tally_counts(spec, tally, n).wins[seat])
                games += n
        lo, hi = interval(wins, games) if games else (float("nan"), float("nan"))
        share = wins / games if games else float("nan")
        rows.append({"step": i, "weak": b, "strong": 2 * b, "games": games,
                     "strong_wins": wins, "strong_share": share, "excess": share - 1 / k,
                     "lo": lo - 1 / k, "hi": hi - 1 / k, "complete": done == k})
    return pd.DataFrame(rows)


def report_tables(data) -> dict:
    return {"Skill ladder: strong seat (budget 2b) among budget-b seats": ladder_table(data)}


def _budget(template: str, b: int) -> str:
    return template.replace(SLOT, str(b))


def _longest_run(flags) -> tuple[int, int] | None:
    """(first, last) index of the longest run of consecutive True values (the earliest of
    equals), or None."""
    best, start = None, None
    for i, f in enumerate(list(flags) + [False]):
        if f and start is None:
            start = i
        elif not f and start is not None:
            if best is None or i - start > best[1] - best[0] + 1:
                best = (start, i - 1)
            start = None
    return best


def report_findings(data) -> list[str]:
    """Each step's verdict; the longest run of steps that each gave a measurable gain (a
    monotone rise of strength with budget) and the step where it stops."""
    t = ladder_table(data)
    rep = data.manifest["report"]
    k, tpl = int(rep["players"]), rep["template"]
    t = t[t["games"] > 0].reset_index(drop=True)
    if t.empty:
        return ["The ladder has no finished games yet."]
    out = []
    for r in t.itertuples():
        verdict = "stronger" if r.lo > 0 else "weaker" if r.hi < 0 else "no measurable gain"
        out.append(f"Step {r.step}: {_budget(tpl, r.strong)} among {k - 1} x "
                   f"{_budget(tpl, r.weak)} wins {r.strong_share:.2%} of {r.games:,} games, "
                   f"{r.excess:+.2%} over the fair 1/{k} (95% CI {r.lo:+.2%} to {r.hi:+.2%}): "
                   f"{verdict}.")
    run = _longest_run(t["lo"] > 0)
    if run is None:
        out.append("No step gave a measurable gain: strength does not grow with budget over "
                   f"{_budget(tpl, int(t['weak'].iloc[0]))} to "
                   f"{_budget(tpl, int(t['strong'].iloc[-1]))}.")
        return out
    first, last = t.iloc[run[0]], t.iloc[run[1]]
    rise = (f"Strength rises monotonically over {run[1] - run[0] + 1} step(s), "
            f"{int(first.step)} to {int(last.step)} (budget {int(first.weak)} to "
            f"{int(last.strong)}): each doubling gave a measurable gain")
    if run[1] == len(t) - 1:
        out.append(f"{rise}, and it still grows at the top step: the ladder has not found its "
                   f"ceiling.")
    else:
        stop = t.iloc[run[1] + 1]
        out.append(f"{rise}; it stops growing at step {int(stop.step)} (budget "
                   f"{int(stop.weak)} to {int(stop.strong)}: its interval reaches 0).")
    return out


def report_figures(data, folder) -> list[Path]:
    """``ladder.png``: the excess win share per step with its 95% interval."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = ladder_table(data)
    t = t[t["games"] > 0]
    rep = data.manifest["report"]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.errorbar(t["strong"], t["excess"] * 100, yerr=[(t["excess"] - t["lo"]) * 100,
                (t["hi"] - t["excess"]) * 100], fmt="o-", capsize=3)
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("strong budget 2b (weak seats at b)")
    ax.set_ylabel(f"strong seat win share − 1/{rep['players']} (%)")
    ax.set_title(f"{data.manifest['game']}: {rep['template']}", fontsize=9)
    fig.tight_layout()
    path = Path(folder) / "ladder.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return [path]
