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
# **Question.** The seed prices the six predefined types (Jarl 75, Huskarl 36, Berserker 30,
# Hirdmen 18, Bondi 12, Thrall 9; `docs/rules/ravenfeast.md` §11.2). With the DEFAULT profiles
# of §12.2 (every rating there is an *assumption*; only the costs and Tough (3)/(2) are seed),
# which types are priced out of line with their simulated strength?
#
# **Answer (full run, seed 20260).**
# - *Equal-points 300-point battles* (single-type warbands, 20,000 battles per pair, 15 pairs,
#   `mode=warband`): the strength-implied costs are Jarl 77.0 [73.8, 80.4], Huskarl 42.1
#   [39.0, 45.1], Berserker 25.9 [24.2, 27.5], Hirdmen 17.6 [16.4, 18.7], Bondi 9.3 [8.5, 10.2],
#   Thrall 8.2 [7.5, 8.8] points (95% intervals; quasi-likelihood bootstrap that inflates the
#   battle noise by the Bradley–Terry misfit, dispersion ≈ 1200, so model error dominates).
#   Out of line by more than the 10 % tolerance (§12.4) with the printed cost outside the
#   interval: **Bondi over-priced (12 vs 9.3)**, **Berserker over-priced (30 vs 25.9)**,
#   **Huskarl under-priced (36 vs 42.1)**, and the Thrall just over the line (9 vs 8.2, ratio 1.10).
# - *Exact duels + Lanchester first guess* (no sampling error; 95% leave-one-out prediction
#   intervals of a log-linear cost fit): only the **Berserker** is out of line, 30 vs 24.9
#   [21.8, 28.5].
# - Jarl and Hirdmen are in line by every measure.
# - *Open-architecture anchors* (§11.3, on a Hirdmen base, 20,000 equal-points battles each;
#   intervals from the battle score only): **Mighty is worth about 2.1 [2.0, 2.1] points, not
#   +5**; a second attack at Melee 4 about 5.9 [5.8, 6.0], not +8; Melee 4 → 5 about 1.7
#   [1.6, 1.7] vs +2; an extra wound (Tough (2)) 9.1 [9.0, 9.2] vs +9, in line.
#
# Seat advantage: none in a duel (both strike simultaneously, §3.4); the warband engine plays
# both sides by the same policy, and the symmetric pairs give 50 % within their intervals.
#

# %%
import os
import numpy as np
import pandas as pd
import matplotlib.pyplot as plt

from vikingsim.core.runner import simulate
from vikingsim.core.stats import wilson
from vikingsim.games.ravenfeast import odds
from vikingsim.experiments import ravenfeast as P
from vikingsim.games.ravenfeast.profiles import PREDEFINED, PROFILES, profile_table

SMALL = os.environ.get("VIKINGSIM_NB_SMALL") == "1"
SEED = 20260
N_BATTLES = 200 if SMALL else 20_000        # per pair of 300-point warbands
N_SENS = 500 if SMALL else 40_000         # points-sensitivity battle
N_MC = 50_000 if SMALL else 2_000_000      # duel Monte Carlo spot check
pd.set_option("display.precision", 3)
print("small run" if SMALL else "full run", N_BATTLES, N_SENS, N_MC)

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
# implied cost (rescaled to the printed total).

# %%
HAVE_WARBAND = P.warband_available()
if not HAVE_WARBAND:
    print("mode=warband is not available in this checkout (vikingsim/games/ravenfeast/warband.py "
          "missing): the equal-points battles are skipped; sections 2-3 still answer from duels.")
else:
    wm = P.warband_matrix(PREDEFINED, n=N_BATTLES, seed=SEED)
    sens = P.points_sensitivity(n=N_SENS, seed=SEED)
    print(sens)
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
    display(wm[["a", "b", "score"]].assign(bt_fit=fit, inside_ci=(wm["score_lo"] <= fit) & (fit <= wm["score_hi"])))

# %% [markdown]
# ### 4b. The open-architecture anchors (§11.3)
#
# Hirdmen with one trait added (priced by the §12.3 model: Mighty +5, Melee 5 = +2, a second
# attack = +8, Tough (2) = +50 %) fight an equal-points warband of plain Hirdmen; the score and
# the points sensitivity give the trait's implied price (Hirdmen taken at their printed 18).

# %%
if HAVE_WARBAND:
    anchors = P.anchor_checks(n=N_BATTLES, seed=SEED, sens=sens)
    display(anchors[["variant_points", "base_points", "score", "score_lo", "score_hi",
                     "printed_trait_price", "implied_trait_price", "trait_lo", "trait_hi"]])

# %% [markdown]
# ## 5. Types out of line (|printed/implied − 1| > 10 % and printed cost outside the interval)

# %%
summary = pd.DataFrame({"printed": pts, "lanchester": lan["implied"].round(1),
                        "lanchester_out": lan["out_of_line"], "duel_bt": duel_fit["implied"].round(1),
                        "duel_bt_out": duel_fit["out_of_line"]})
if HAVE_WARBAND:
    summary["battles"] = battles["implied"].round(1)
    summary["battles_ci"] = [f"[{lo:.1f}, {hi:.1f}]" for lo, hi in zip(battles["implied_lo"], battles["implied_hi"])]
    summary["battles_out"] = battles["out_of_line"]
summary

# %% [markdown]
# **Caveats.** Only the costs are seed; the profiles are DEFAULT guesses (§12.2), so a type
# "out of line" means *this profile* does not earn *that cost*: the fix may be the profile
# (§12.4 step 3) rather than the price. The battle intervals widen the binomial noise by the
# Bradley–Terry dispersion (the matchups are far from transitive: 32 Thralls beat 25 Bondi 84 %
# of the time, yet Bondi do better than Thralls against most others), but they still assume one
# points-sensitivity slope, measured on Hirdmen, for every type. The duel measures ignore
# numbers entirely, which is why they disagree with the battles on cheap types (Bondi).
