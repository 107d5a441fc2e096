# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Ravenfeast: are the printed point costs in line with strength?
#
# **Question.** The seed prices the six predefined types (Jarl, Huskarl, Berserker, Hirdmen,
# Bondi, Thrall; `docs/rules/ravenfeast.md` §11.2, the `points` column of section 1). Which
# types are priced out of line with their simulated strength?
#
# **What the answer rests on** (read it before any number):
#
# - *The DEFAULT profiles* of §12.2: every rating there is an **assumption**; only the costs
#   and Tough (3)/(2) are seed. A type "out of line" means *this profile* does not earn *that
#   cost*; the fix may be the profile (§12.4 step 3) rather than the price.
# - *Invented armies*: single-type warbands of about 300 points, leftover points filled with
#   Thralls (`experiments/warbands/`), fighting on the DEFAULT warband rules (§12.6) with the
#   one shipped warband policy playing both sides; and one-against-one §12.5 duels.
# - *One points-sensitivity slope* (how fast the odds move with points), measured on Hirdmen
#   (15 v 12) and used for every type.
# - *The 10 % tolerance* of §12.4 for "out of line".
#
# **How to read it.** A single strength number per type (a Bradley–Terry rating, hence one
# implied cost) does not describe these battles (section 4: the fit's dispersion and how many
# pairings it gets right are printed there). So the answer is given **per matchup** (section
# 4c: the price a type earns against each opponent, that opponent taken at its printed cost),
# and a type gets a verdict only where it holds against every opponent. The answer, with every
# figure rendered from the tables, is section 6.
#
# Seat advantage: none in a duel (both strike simultaneously, §3.4); the warband engine plays
# both sides by the same policy and rolls initiative every turn (§3.2, DEFAULT `rolled`), so
# neither seat acts first by design (the old fixed order, `initiative=a_first`, favoured side
# b in mirror matches: rules notes §12.8).

# %%
# %matplotlib inline
import os
import numpy as np
import pandas as pd
import matplotlib.pyplot as plt
from IPython.display import Markdown

from vikingsim.core.runner import simulate
from vikingsim.core.stats import wilson
from vikingsim.games.ravenfeast import odds
from vikingsim.questions import ravenfeast as P
from vikingsim.games.ravenfeast.profiles import PREDEFINED, PROFILES, profile_table

SMALL = os.environ.get("VIKINGSIM_NB_SMALL") == "1"
SEED = 20260
N_BATTLES = 200 if SMALL else 20_000        # battles per cell of the study, if no dataset
N_MC = 50_000 if SMALL else 2_000_000      # duel Monte Carlo spot check
pd.set_option("display.precision", 3)
print("small run" if SMALL else "full run", N_BATTLES, N_MC)

# %% [markdown]
# ## 1. Profiles and the §12.3 price model
#
# `model_points` is the DEFAULT price model of §12.3; it reproduces the seed costs exactly, by
# construction (three free prices fitted to six costs), so it says nothing about strength.

# %%
profile_table()

# %% [markdown]
# ## 2. Duel matrix (exact)
#
# Every type against every other in a §12.5 duel (open ground, no morale, Mighty and the §6.4
# Free Attack in play), solved exactly by the Markov chain of `exact.py`. `score` = P(row wins)
# + ½ P(both die).

# %%
dm = P.duel_matrix(PREDEFINED)
dm.pivot(index="a", columns="b", values="score").loc[list(PREDEFINED), list(PREDEFINED)]

# %%
dm.pivot(index="a", columns="b", values="p_both_die").loc[list(PREDEFINED), list(PREDEFINED)]

# %%
fig, ax = plt.subplots(figsize=(5, 4))
m = dm.pivot(index="a", columns="b", values="score").loc[list(PREDEFINED), list(PREDEFINED)]
im = ax.imshow(m.to_numpy(), cmap="RdBu_r", vmin=0, vmax=1)
ax.set_xticks(range(6), m.columns, rotation=45); ax.set_yticks(range(6), m.index)
ax.set_xlabel("opponent (B)"); ax.set_ylabel("figure (A)"); fig.colorbar(im, label="duel score of A")
ax.set_title("Exact duel scores"); fig.tight_layout()
plt.show()

# %% [markdown]
# Monte Carlo spot check: the compiled kernel against the exact odds (Wilson 95% intervals).

# %%
rows = []
for a, b in [("jarl", "berserker"), ("huskarl", "berserker"), ("hirdmen", "bondi")]:
    r = simulate("ravenfeast", n=N_MC, seed=SEED, options={"a": a, "b": b}, threads=2)
    ex = odds({"a": a, "b": b})
    rows.append({"a": a, "b": b, "n": N_MC, "mc_p_a_win": r.summary["p_a_win"],
                 "ci_lo": r.summary["p_a_win_ci"][0], "ci_hi": r.summary["p_a_win_ci"][1],
                 "exact_p_a_win": ex["p_a_win"]})
pd.DataFrame(rows)

# %% [markdown]
# ## 3. Strength → implied cost without battles
#
# (a) §12.4's closed-form first guess (Lanchester square law): value = √(offence × durability),
# offence = expected wounds per turn against Armor 3 (Mighty and Free Attacks included),
# durability = wounds ÷ P(a Melee-4 hit wounds it). Fit log(cost) = a + b·log(value); each
# type's implied cost comes from the fit on the *other five* types, with a 95% prediction
# interval.

# %%
pts = pd.Series({t: float(PROFILES[t].points) for t in PREDEFINED})
lv = P.lanchester_value(PREDEFINED)
lan = P.loo_cost_fit(pts, np.log(lv["value"]))
lv.join(lan)

# %% [markdown]
# Under the alternative Tough reading (`tough_reading=extra_wounds`, §13.1):

# %%
P.loo_cost_fit(pts, np.log(P.lanchester_value(PREDEFINED, tough_reading="extra_wounds")["value"]))

# %% [markdown]
# (b) A Bradley–Terry rating fitted to the exact duel scores, then the same leave-one-out
# cost fit. Duels ignore numbers (one Jarl against one Bondi), so this mainly orders the types;
# the Jarl's near-certain wins make its rating, and its interval, very wide.

# %%
theta = P.bradley_terry(dm, PREDEFINED)
duel_fit = P.loo_cost_fit(pts, theta)
duel_fit.assign(rating=theta)

# %% [markdown]
# ## 4. Equal-points warband battles (300 points)
#
# Each type fields a single-type warband of ≈300 points (leftover points filled with Thralls;
# the Thrall warband is capped at 32 figures = 288 points), every pair fights `N_BATTLES`
# battles in `mode=warband` (DEFAULT warband rules and policy, §12.6). A Bradley–Terry fit on
# the battle scores (draws and truncations count ½), corrected for unequal points with the
# measured points sensitivity (15 v 12 Hirdmen), gives each type's strength per point and its
# implied cost (rescaled to the printed total). The fit is shown with its model check: it
# assumes one strength per type, and the battles do not bear that out (below).
#
# The battles are not simulated here: they are the cells of the study
# `experiments/ravenfeast_equal_points.toml` (the 15 pairs, the sensitivity battle and the four
# anchors of 4b), read from its dataset `results/ravenfeast_equal_points/` (run at `N_BATTLES`
# battles per cell if absent). `cell_score` turns a cell's summary into the battle score
# (draws and truncations count ½) with its Wilson interval, as `P.warband_matrix` does.

# %%
from pathlib import Path

from vikingsim.studies.run import ensure_study

HAVE_WARBAND = P.warband_available()
study = ensure_study("../experiments/ravenfeast_equal_points.toml", games=N_BATTLES,
                     results="../results")
p_cells = study.summary().pivot_table(index="cell", columns="metric", values="value")
sides = study.cells.set_index("cell")[["a", "b", "games"]]


def cell_score(cell):
    """(P(A wins), P(B wins), P(draw), P(truncated), score, lo, hi, n) of one cell."""
    p, n = p_cells.loc[cell], int(sides.loc[cell, "games"])
    score = p.p_a_win + 0.5 * p.get("p_draw", 0.0) + 0.5 * p.p_truncated
    return p.p_a_win, p.p_b_win, p.get("p_draw", 0.0), p.p_truncated, score, *wilson(score * n, n), n


def type_of(side):
    """warbands/<type>300.toml -> <type>; None for the other cells."""
    stem = Path(side).stem
    return stem[:-3] if side.endswith("300.toml") else None


COLS = ["p_a_win", "p_b_win", "p_draw", "p_truncated", "score", "score_lo", "score_hi", "n"]
wm = pd.DataFrame([{"a": type_of(a), "b": type_of(b), **dict(zip(COLS, cell_score(c)))}
                   for c, (a, b) in sides[["a", "b"]].iterrows() if type_of(a) and type_of(b)])
wm["points_a"] = [P.force_points(P.single_type_force(t)) for t in wm.a]
wm["points_b"] = [P.force_points(P.single_type_force(t)) for t in wm.b]
if HAVE_WARBAND:
    # points sensitivity: d logit(P win) / d log(points), 15 v 12 Hirdmen (P.points_sensitivity)
    sens_cell = sides.index[(sides.a == "hirdmen*15") & (sides.b == "hirdmen*12")].item()
    *_, p_large, lo, hi, n_sens = cell_score(sens_cell)
    p_large = min(max(p_large, 1 / (2 * n_sens)), 1 - 1 / (2 * n_sens))
    slope = lambda q: np.log(q / (1 - q)) / np.log(15 / 12)          # noqa: E731
    sens = {"type": "hirdmen", "small": 12, "large": 15, "p_large_wins": p_large,
            "slope": slope(p_large), "slope_lo": slope(max(lo, 1e-6)),
            "slope_hi": slope(min(hi, 1 - 1e-6)), "n": n_sens}
    print(study.root, sens)
    display(wm[["a", "b", "points_a", "points_b", "p_a_win", "p_b_win", "p_draw", "score",
                "score_lo", "score_hi", "n"]])

# %%
if HAVE_WARBAND:
    battles = P.implied_costs_from_battles(wm, PREDEFINED, sens)
    print("Bradley-Terry dispersion (1 = binomial noise only):", round(battles.attrs["dispersion"], 1))
    display(battles)
    # model check: observed scores against the Bradley-Terry fit (logit residuals)
    u = P.bradley_terry(wm.assign(score=wm["score"]), PREDEFINED)
    fit = 1 / (1 + np.exp(-(u[wm["a"]].to_numpy() - u[wm["b"]].to_numpy())))
    bt_check = wm[["a", "b", "score", "score_lo", "score_hi"]].assign(
        bt_fit=fit, inside_ci=(wm["score_lo"] <= fit) & (fit <= wm["score_hi"]))
    display(bt_check)
    print(f"pairings whose 95% interval holds the Bradley-Terry fit: {bt_check.inside_ci.sum()} of {len(bt_check)}")

# %% [markdown]
# ### 4b. The open-architecture anchors (§11.3)
#
# Hirdmen with one trait added (priced by the §12.3 model: Mighty +5, Melee 5 = +2, a second
# attack = +8, Tough (2) = +50 %) fight an equal-points warband of plain Hirdmen; the score and
# the points sensitivity give the trait's implied price (Hirdmen taken at their printed 18).

# %%
ANCHOR_FILES = {"Mighty (+5)": "anchor_mighty", "Melee 4 -> 5 (+2 per attack)": "anchor_melee5",
                "second attack at Melee 4 (+8)": "anchor_two_attacks",
                "Tough (2) (+50 %)": "anchor_tough2"}


def anchor_row(label, base="hirdmen", budget=300):
    """A trait's implied price from its cell's score (the arithmetic of P.anchor_checks)."""
    ov, cost = P.ANCHORS[label]
    cell = sides.index[sides.a == f"warbands/{ANCHOR_FILES[label]}.toml"].item()
    *_, score, lo, hi, n = cell_score(cell)
    base_cost = float(PROFILES[base].points)
    n_base, n_var = int(min(budget // base_cost, 32)), int(min(budget // cost, 32))
    ratio = np.log((n_var * cost) / (n_base * base_cost))

    def implied(q):
        q = min(max(q, 1 / (2 * n)), 1 - 1 / (2 * n))
        return cost * np.exp((np.log(q / (1 - q)) - sens["slope"] * ratio) / sens["slope"])

    return {"anchor": label, "variant_points": n_var * cost, "base_points": n_base * base_cost,
            "score": score, "score_lo": lo, "score_hi": hi, "printed_trait_price": cost - base_cost,
            "implied_trait_price": implied(score) - base_cost, "trait_lo": implied(lo) - base_cost,
            "trait_hi": implied(hi) - base_cost}


if HAVE_WARBAND:
    anchors = pd.DataFrame([anchor_row(label) for label in P.ANCHORS]).set_index("anchor")
    display(anchors[["variant_points", "base_points", "score", "score_lo", "score_hi",
                     "printed_trait_price", "implied_trait_price", "trait_lo", "trait_hi"]])

# %% [markdown]
# ### 4c. Price per matchup, and whether the matchups are transitive
#
# From one pairing alone: if type *a*'s warband (`points_a`) scores *s* against type *b*'s
# (`points_b`), and the odds move with points at the slope β of section 4
# (logit *s* = β · log(strength ratio)), then the price of an *a* figure that would make the two
# equally strong per point, *b* taken at its printed cost, is
# `printed_a × (points_b / points_a) × exp(logit(s) / β)` (the arithmetic of the anchors of 4b).
# Its interval takes both the score's Wilson interval and the slope's interval (the four
# corners). A matchup calls *a* over-priced (under-priced) when the printed cost lies above
# (below) that interval *and* is more than 10 % off; otherwise in line.
#
# Transitivity: with `edge` = logit(s)/β − log(points_a/points_b) (a's strength per point over
# b's, on the log scale; positive = a is stronger per point), one strength per type would make
# every edge the difference of two numbers. The cell lists the 3-cycles of "stronger per
# point" (a > b > c > a) and the triples where the per-point margins do not add up in the
# order the ranking needs (a > b > c but a beats c by less than the larger of the two steps:
# a violation of *strong stochastic transitivity*, which any one-number rating requires), with
# the battle intervals taken into account (a violation counts only when it holds at both ends
# of the intervals).

# %%
from itertools import permutations

TOL = P.CALIBRATION_TOLERANCE


def logit(q):
    return np.log(q / (1 - q))


def matchup_prices(wm, sens):
    """One row per (type, opponent): the score, the per-point edge and the implied price of the
    type with the opponent at its printed cost, with intervals (score x slope corners)."""
    rows = []
    for r in wm.itertuples():
        for a, b, sc, lo, hi, pa, pb in ((r.a, r.b, r.score, r.score_lo, r.score_hi, r.points_a, r.points_b),
                                         (r.b, r.a, 1 - r.score, 1 - r.score_hi, 1 - r.score_lo, r.points_b, r.points_a)):
            clip = lambda q: min(max(q, 1 / (2 * r.n)), 1 - 1 / (2 * r.n))      # noqa: E731
            price = lambda q, beta: pts[a] * (pb / pa) * np.exp(logit(clip(q)) / beta)  # noqa: E731
            corners = [price(q, beta) for q in (lo, hi) for beta in (sens["slope_lo"], sens["slope_hi"])]
            rows.append({"type": a, "opponent": b, "score": sc, "score_lo": lo, "score_hi": hi,
                         "edge": logit(clip(sc)) / sens["slope"] - np.log(pa / pb),
                         "edge_lo": logit(clip(lo)) / sens["slope"] - np.log(pa / pb),
                         "edge_hi": logit(clip(hi)) / sens["slope"] - np.log(pa / pb),
                         "printed": pts[a], "implied": price(sc, sens["slope"]),
                         "implied_lo": min(corners), "implied_hi": max(corners)})
    out = pd.DataFrame(rows)
    ratio = out.printed / out.implied
    out["verdict"] = np.where((out.printed > out.implied_hi) & (ratio > 1 + TOL), "over-priced",
                              np.where((out.printed < out.implied_lo) & (ratio < 1 - TOL),
                                       "under-priced", "in line"))
    return out


def type_verdict(kinds, g):
    """The verdict the matchups of one type support: one kind against every opponent; or one
    direction (too dear, or too cheap) with 'in line' elsewhere; else none."""
    if len(kinds) == 1:
        return f"{kinds.pop()} against every opponent"
    if kinds == {"over-priced", "in line"}:
        return f"too dear or in line against every opponent (over-priced against {(g.verdict == 'over-priced').sum()} of {len(g)})"
    if kinds == {"under-priced", "in line"}:
        return f"too cheap or in line against every opponent (under-priced against {(g.verdict == 'under-priced').sum()} of {len(g)})"
    return "no verdict (over-priced against some opponents, under-priced against others)"


def type_verdicts(mp):
    """A verdict per type only where it holds against every opponent (type_verdict)."""
    rows = []
    for t in PREDEFINED:
        g = mp[mp.type == t]
        by = {k: ", ".join(g.opponent[g.verdict == k]) for k in ("over-priced", "in line", "under-priced")}
        rows.append({"type": t, "printed": pts[t], "lowest_implied": g.implied.min(),
                     "highest_implied": g.implied.max(), "verdict": type_verdict(set(g.verdict), g), **by})
    return pd.DataFrame(rows).set_index("type")


def transitivity(mp):
    """3-cycles of 'stronger per point' and strong-stochastic-transitivity violations that
    hold across the intervals (a > b > c with edge(a, c) < max(edge(a, b), edge(b, c)))."""
    e = mp.set_index(["type", "opponent"])
    cycles, sst = [], []
    for a, b, c in permutations(PREDEFINED, 3):
        ab, bc, ca = (e.loc[k] for k in ((a, b), (b, c), (c, a)))
        if ab.edge_lo > 0 and bc.edge_lo > 0 and ca.edge_lo > 0 and a == min(a, b, c):
            cycles.append((a, b, c))
        ac = e.loc[(a, c)]
        if ab.edge_lo > 0 and bc.edge_lo > 0 and ac.edge_hi < max(ab.edge_lo, bc.edge_lo):
            sst.append({"a": a, "b": b, "c": c, "edge_ab": ab.edge, "edge_bc": bc.edge,
                        "edge_ac": ac.edge})
    return cycles, pd.DataFrame(sst, columns=["a", "b", "c", "edge_ab", "edge_bc", "edge_ac"])


if HAVE_WARBAND:
    mp = matchup_prices(wm, sens)
    price_table = mp.pivot(index="type", columns="opponent", values="implied").loc[list(PREDEFINED), list(PREDEFINED)]
    display(price_table.round(1))
    verdicts = type_verdicts(mp)
    display(verdicts.round(1))
    cycles, sst = transitivity(mp)
    print(f"3-cycles of 'stronger per point' beyond the intervals: {len(cycles)} {cycles}")
    print(f"strong-transitivity violations beyond the intervals: {len(sst)} of "
          f"{sum(1 for _ in permutations(PREDEFINED, 3))} ordered triples")
    display(sst.round(3))

# %% [markdown]
# The price each type earns against each opponent (rows: the type priced; columns: the
# opponent, at its printed cost), as printed ÷ implied (red: too dear against that opponent,
# blue: too cheap), each cell annotated with the implied price and its interval:

# %%
if HAVE_WARBAND:
    ratio = mp.assign(r=mp.printed / mp.implied).pivot(index="type", columns="opponent", values="r")
    ratio = ratio.loc[list(PREDEFINED), list(PREDEFINED)]
    fig, ax = plt.subplots(figsize=(9, 5.5))
    im = ax.imshow(np.log2(ratio.to_numpy(dtype=float)), cmap="RdBu_r", vmin=-1, vmax=1)
    cell = mp.set_index(["type", "opponent"])
    for i, a in enumerate(PREDEFINED):
        for j, b in enumerate(PREDEFINED):
            if a == b:
                ax.text(j, i, f"printed\n{pts[a]:.0f}", ha="center", va="center", fontsize=8, color="grey")
                continue
            r = cell.loc[(a, b)]
            mark = {"over-priced": "over", "under-priced": "under", "in line": "ok"}[r.verdict]
            ax.text(j, i, f"{r.implied:.1f}\n[{r.implied_lo:.1f}, {r.implied_hi:.1f}]\n{mark}",
                    ha="center", va="center", fontsize=7.5)
    ax.set_xticks(range(6), [f"vs {b}" for b in PREDEFINED], rotation=30)
    ax.set_yticks(range(6), [f"{a} (printed {pts[a]:.0f})" for a in PREDEFINED])
    cbar = fig.colorbar(im, ticks=[-1, -0.5, 0, 0.5, 1])
    cbar.ax.set_yticklabels(["÷2", "÷1.41", "1", "×1.41", "×2"])
    cbar.set_label("printed ÷ implied price")
    ax.set_title("Implied price per matchup (opponent at its printed cost), 95% intervals")
    fig.tight_layout()
    plt.show()

# %% [markdown]
# ## 5. Types out of line by each one-number method (|printed/implied − 1| > 10 % and printed
# cost outside the interval)
#
# For comparison with the per-matchup verdicts: the Lanchester first guess and the duel rating
# (section 3) and the Bradley–Terry battle fit (section 4), each of which gives one price per
# type; the battle fit's intervals come from a model that does not fit (section 4).

# %%
summary = pd.DataFrame({"printed": pts, "lanchester": lan["implied"].round(1),
                        "lanchester_out": lan["out_of_line"], "duel_bt": duel_fit["implied"].round(1),
                        "duel_bt_out": duel_fit["out_of_line"]})
if HAVE_WARBAND:
    summary["battles_bt"] = battles["implied"].round(1)
    summary["battles_bt_ci"] = [f"[{lo:.1f}, {hi:.1f}]" for lo, hi in zip(battles["implied_lo"], battles["implied_hi"])]
    summary["battles_bt_out"] = battles["out_of_line"]
    summary["per_matchup"] = verdicts["verdict"]
summary


# %% [markdown]
# ## 6. Answer
#
# Rendered from the tables above (the cell builds the text from `verdicts`, `mp`, `bt_check`,
# `battles`, `lan` and `anchors`; nothing in it is typed by hand).

# %%
def price_range(t):
    g = mp[mp.type == t]
    lo, hi = g.loc[g.implied.idxmin()], g.loc[g.implied.idxmax()]
    return (f"{lo.implied:.1f} (vs {lo.opponent}) to {hi.implied:.1f} (vs {hi.opponent})")


def verdict_lines():
    out = []
    for t, v in verdicts.iterrows():
        split = "; ".join(f"{k} vs {v[k]}" for k in ("over-priced", "in line", "under-priced") if v[k])
        out.append(f"  - {t.title()} (printed {pts[t]:.0f}): **{v.verdict}** ({split}); implied "
                   f"price {price_range(t)}.")
    return "\n".join(out)


def named(types):
    return ", ".join(types) if types else "none"


def answer():
    lan_out = list(lan.index[lan.out_of_line])
    lan_txt = "; ".join(f"{t} {pts[t]:.0f} vs {lan.loc[t, 'implied']:.1f} "
                        f"[{lan.loc[t, 'implied_lo']:.1f}, {lan.loc[t, 'implied_hi']:.1f}]" for t in lan_out)
    head = (f"*Exact duels + Lanchester first guess* (section 3a; no sampling error, 95% "
            f"leave-one-out prediction intervals of a log-linear cost fit): out of line: "
            f"{named(lan_out)}{' (' + lan_txt + ')' if lan_txt else ''}.")
    if not HAVE_WARBAND:
        return Markdown(head + "\n\n(mode=warband is not available: no battle figures.)")
    agree = {k: list(verdicts.index[verdicts.verdict.str.startswith(k)])
             for k in ("over-priced", "under-priced", "in line", "too dear", "too cheap", "no verdict")}
    n_sst, n_trip = len(sst), sum(1 for _ in permutations(PREDEFINED, 3))
    trans = ("no 3-cycle of 'stronger per point' survives the intervals (the types can be "
             "ranked)" if not cycles else f"{len(cycles)} 3-cycles of 'stronger per point' "
             f"({'; '.join(' > '.join(c + (c[0],)) for c in cycles)})")
    sst_eg = ""
    if n_sst:
        r = sst.loc[(sst[["edge_ab", "edge_bc"]].max(axis=1) - sst.edge_ac).idxmax()]
        sst_eg = (f" For example {r.a.title()} are stronger per point than {r.b.title()} (edge "
                  f"{r.edge_ab:.2f}) and {r.b.title()} than {r.c.title()} (edge {r.edge_bc:.2f}), "
                  f"yet {r.a.title()} beat {r.c.title()} by an edge of only {r.edge_ac:.2f}.")
    anchors_txt = "; ".join(
        f"{label}: {a.implied_trait_price:.1f} [{a.trait_lo:.1f}, {a.trait_hi:.1f}] points vs "
        f"{a.printed_trait_price:.0f} printed" for label, a in anchors.iterrows())
    return Markdown(f"""
*Equal-points battles* (the study `experiments/ravenfeast_equal_points.toml`, seed {SEED},
{int(wm.n.iloc[0]):,} battles per pairing, {len(wm)} pairings, `mode=warband`):

- **One price per type does not describe the battles.** The Bradley–Terry fit has dispersion
  {battles.attrs['dispersion']:,.0f} (1 = binomial noise only) and puts its fitted score inside
  the battle's 95% interval for {int(bt_check.inside_ci.sum())} of {len(bt_check)} pairings. The
  matchups are **intransitive in strength**: {trans}, but {n_sst} of the {n_trip} ordered triples
  violate strong stochastic transitivity beyond the intervals, so the margins between types do
  not add up the way a single strength (or a single price) per type requires.{sst_eg} Its
  one-number prices (section 5) are therefore not a verdict.
- **Price per matchup** (section 4c: the price a type earns against each opponent, that
  opponent at its printed cost; intervals from the battle score and the slope). Verdicts only
  where they hold against every opponent. Over-priced against every opponent:
  **{named(agree['over-priced'])}**; under-priced against every opponent:
  **{named(agree['under-priced'])}**; in line against every opponent: **{named(agree['in line'])}**.
  Too dear or in line against every opponent (never too cheap): **{named(agree['too dear'])}**;
  too cheap or in line against every opponent (never too dear): **{named(agree['too cheap'])}**;
  no verdict (too dear against some opponents, too cheap against others):
  **{named(agree['no verdict'])}**.
{verdict_lines()}

{head}

*Open-architecture anchors* (§11.3, a Hirdmen base against plain Hirdmen, {int(anchors_n):,}
battles each; intervals from the battle score only, one slope): {anchors_txt}.

**Rests on:** the DEFAULT §12.2 profiles (assumptions; only costs and Tough are seed), the
invented single-type 300-point warbands with Thrall filler, the DEFAULT warband rules and the
one shipped warband policy on both sides, one points-sensitivity slope measured on Hirdmen
(β = {sens['slope']:.2f} [{sens['slope_lo']:.2f}, {sens['slope_hi']:.2f}]), and the 10 %
tolerance of §12.4. The duel measures ignore numbers entirely (one figure a side).
""")


if HAVE_WARBAND:
    anchors_n = sides.loc[sides.a.str.startswith("warbands/anchor_"), "games"].iloc[0]
answer()


# %% [markdown]
# ## 7. Break-even costs per matchup and against mixed warbands
#
# **Question** (issue 20 §3). Sections 4-6 judge each printed cost against a one-number (or
# per-matchup) strength. Here the question is asked directly: at what points cost would a
# warband of one type break even (score one half, draws counted half) against each other type
# at 300 points, and against the shipped mixed warbands (`fight_for_honor`, `raiders300`,
# `levy300`)?
#
# **Method** (`vikingsim.questions.ravenfeast.break_even`, the command `vikingsim breakeven`;
# `docs/rules/ravenfeast.md` §12.8). Points act on a battle only through how many figures a
# budget buys, so the cost is found through the count: k figures of the type fight the
# opponent, k stepping by one from the points-equal count until the score crosses one half;
# the counts around the crossing are fitted by a binomial logistic GLM of score on log k, whose
# crossing k* gives the break-even cost = opponent points / k*, with a 95% delta-method interval
# (widened by the fit's dispersion when it misfits). Every count is played with the type as
# side a and as side b (`N_BE` battles each), so any seat effect cancels (the old fixed turn
# order favoured side b; with the §3.2 rolled initiative a mirror match is checked below). At
# most 32 figures a side: where 32 still lose, only an upper bound is given. Small run: `N_BE`
# is tiny and the intervals wide.

# %%
N_BE = 100 if SMALL else 2_000
BE_OPPONENTS = list(PREDEFINED) + ["fight_for_honor", "raiders300", "levy300"]
be = pd.concat([P.break_even(t, BE_OPPONENTS, n=N_BE, seed=SEED).assign(unit=t)
                for t in PREDEFINED], ignore_index=True)
be_ratio = be.pivot(index="unit", columns="opponent", values="ratio").loc[list(PREDEFINED), BE_OPPONENTS]
be_ratio.round(2)          # break-even cost / printed cost (nan: 32 figures still lose)

# %%
N_EDGE = 2_000 if SMALL else 20_000
edge = simulate("ravenfeast", n=N_EDGE, seed=SEED,
                options={"mode": "warband", "a": "hirdmen*16", "b": "hirdmen*16"}).summary
edge_lo, edge_hi = wilson(edge["p_a_win"] * N_EDGE, N_EDGE)
# gap P(a wins) - P(b wins) and its standard error (multinomial: a win, b win or neither)
edge_gap = edge["p_a_win"] - edge["p_b_win"]
edge_se = np.sqrt((edge["p_a_win"] + edge["p_b_win"] - edge_gap ** 2) / N_EDGE)
{"p_a_win": edge["p_a_win"], "p_b_win": edge["p_b_win"], "p_draw": edge["p_draw"]}


# %%
def be_cell(r):
    if r.status == "ok":
        return f"{r.cost:.1f} [{r.cost_lo:.1f}, {r.cost_hi:.1f}]"
    if r.status == "below_min":
        return f"below {r.opponent_points / 32:.1f}"
    return f"above {r.opponent_points:.0f}"


def be_answer():
    lines = []
    for t in PREDEFINED:
        g = be[be.unit == t].set_index("opponent")
        self_row = g.loc[t]
        ok = g[(g.status == "ok") & g.index.isin(PREDEFINED) & (g.index != t)]
        lo, hi = (ok.loc[ok.cost.idxmin()], ok.loc[ok.cost.idxmax()]) if len(ok) else (None, None)
        span = (f"from {lo.cost:.1f} (vs {lo.name}) to {hi.cost:.1f} (vs {hi.name})"
                if lo is not None else "nowhere within 32 figures")
        bounded = list(g.index[g.status != "ok"])
        mixed = "; ".join(f"{m} {be_cell(g.loc[m])}" for m in BE_OPPONENTS[len(PREDEFINED):])
        lines.append(f"- **{t.title()}** (printed {PROFILES[t].points}): against itself "
                     f"{be_cell(self_row)}; against the other types {span}"
                     f"{'; only bounded against ' + ', '.join(bounded) if bounded else ''}. "
                     f"Against the mixed warbands: {mixed}.")
    mirror = be[(be.unit == be.opponent) & (be.status == "ok")]
    inside = int(((mirror.cost_lo <= mirror.unit_cost) & (mirror.unit_cost <= mirror.cost_hi)).sum())
    return Markdown(f"""
Break-even costs in points (95% intervals; seed {SEED}, {2 * N_BE:,} battles per count):

{chr(10).join(lines)}

**Check**: a type against itself should break even at its own printed cost; that holds
(printed cost inside the interval) for {inside} of the {len(mirror)} types with a fitted
mirror cost (a type whose 300 points buy more than 32 figures meets a capped mirror, where
only a bound is given). **Side edge**: in a mirror match of 16 Hirdmen
a side ({N_EDGE:,} battles), side a wins {edge['p_a_win']:.3f} [{edge_lo:.3f}, {edge_hi:.3f}]
and side b {edge['p_b_win']:.3f}, a gap of {abs(edge_gap) / edge_se:.1f} standard errors:
{"within noise, so the one-sided matrix of sections 4-5 carries no measurable seat edge"
 if abs(edge_gap) <= 4 * edge_se else
 "an edge, which the one-sided matrix of sections 4-5 carries"}.

**How to read it.** A cost that breaks even against one opponent but not another is the
per-matchup spread the single-rating fit of section 4 could not describe: no one price makes a
type even against every warband. **Rests on** the DEFAULT §12.2 profiles and §12.6 warband
rules and policy, single-type warbands without filler, the first figure as Leader, and the
32-figure cap.
""")


be_answer()
