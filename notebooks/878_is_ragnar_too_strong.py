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
# # 878 Vikings: is Ragnar Lodbrok too strong?
#
# **Question.** Ragnar (SEED §9.1) turns every Command of the *first English roll* of each of his
# battles into a Flee (878 §4.7). Does that make him too strong, compared with the other battle
# bonuses of the Viking Age expansions?
#
# **Answer in one line.** No, not by itself: he is worth about one extra Norseman per battle,
# less than a Fort before the Fort's cost, and an English-held Northumbria takes back part of
# it. Example (re-checked by `tests/test_battle878_exact.py::test_ragnar_notebook_headline`):
# 3 Norsemen + 2 Berserkers attacking 2 Housecarls + 3 Thegns win 62.0% of battles, 80.4% with
# Ragnar (+18.4 pp, worth 1.30 Norsemen). Every other figure is rendered from the tables in the
# **Conclusion** at the end.
#
# **What the answer rests on** (read it before any number):
#
# - *Invented armies*: armies of size *k* are Vikings *k* units with 30% Berserkers (rounded),
#   English *k* units with 40% Housecarls, no Fyrd; no scenario of the rulebook sets them.
#   Ragnar's own army is not given (SEED §9.1): section 5 assumes Halfdan's host (878 §6.5).
# - *The DEFAULT readings* of `docs/rules/battle878.md` §4 (the battle procedure, Ragnar §4.7,
#   the Raven Banner and Seidr of §3) and the shipped *default policy* (878 §4.6 hit orders,
#   nobody retreats); a retreating or cleverer player would see other odds.
# - *One battle*, not a campaign: a bonus's worth in a whole game (how often it is in play, what
#   it costs to get) is not measured here, except the Fort's two-unit cost (SEED §1.4), noted.
#
# Method: the exact Markov-chain solver `vikingsim.games.battle878.exact` (the same numbers as
# `vikingsim odds battle878`), checked against the Monte Carlo engine in
# `tests/test_battle878_exact.py`; Monte Carlo with Wilson 95% intervals where asked (Raven
# Banner, Seidr at 10 v 10). Set `VIKINGSIM_NB_SMALL=1` for a quick run (smaller grid, smaller
# n).

# %%
# %matplotlib inline
import os
import time

import numpy as np
import pandas as pd
from IPython.display import Markdown

from vikingsim.core.runner import simulate
from vikingsim.core.stats import Z95
from vikingsim.questions import norsemen_equivalent
from vikingsim.games.battle878.exact import odds
from vikingsim.plots import odds_heatmap
from vikingsim.studies.run import ensure_study

SMALL = os.environ.get("VIKINGSIM_NB_SMALL") == "1"
SIZES = range(1, 7) if SMALL else range(1, 11)      # units a side
N_MC = 20_000 if SMALL else 200_000                 # Monte Carlo battles per cell, if no dataset
t0 = time.perf_counter()


def vikings(k):
    b = round(0.3 * k)
    return {"norsemen": k - b, "berserkers": b}


def english(k):
    h = round(0.4 * k)
    return {"housecarls": h, "thegns": k - h, "fyrd": 0}


def p_win(opts):
    return odds(opts)["p_vikings_win"]


print(f"units a side: {SIZES.start}-{SIZES.stop - 1}; Monte Carlo battles per cell: {N_MC:,} (SMALL={SMALL})")

# %% [markdown]
# ## 1. Equal armies: Ragnar's gain, and its worth in Norsemen
#
# `gain_pp` = P(Vikings win | Ragnar) − P(Vikings win), in percentage points; `worth_norsemen` =
# how many Norsemen added to the Ragnar-less army give the same win chance
# (`questions.norsemen_equivalent`, linear between whole Norsemen).

# %%
rows = []
for attacker in ("vikings", "english"):
    for k in SIZES:
        o = {**vikings(k), **english(k), "attacker": attacker}
        base, rag = p_win(o), p_win({**o, "ragnar": True})
        rows.append({"attacker": attacker, "units_a_side": k, **vikings(k), **english(k),
                     "p_base": base, "p_ragnar": rag, "gain_pp": 100 * (rag - base),
                     "worth_norsemen": norsemen_equivalent(o, {"ragnar": True})})
equal = pd.DataFrame(rows)
equal.round(3)

# %%
equal.groupby("attacker")[["gain_pp", "worth_norsemen"]].describe().round(2)

# %% [markdown]
# ## 2. Every army pair: where does Ragnar matter?
#
# Gain in P(Vikings win) from Ragnar over Viking army size × English army size (exact). The gain
# is largest where the battle is close (the diagonal band) and vanishes where either side is
# much bigger.

# %%
grid = []
for attacker in ("vikings", "english"):
    for v in SIZES:
        for e in SIZES:
            o = {**vikings(v), **english(e), "attacker": attacker}
            base, rag = p_win(o), p_win({**o, "ragnar": True})
            grid.append({"attacker": attacker, "viking_units": v, "english_units": e,
                         "p_base": base, "p_ragnar": rag, "ragnar_gain": rag - base})
grid = pd.DataFrame(grid)
figs = {}
for attacker in ("vikings", "english"):
    figs[attacker] = odds_heatmap(grid[grid.attacker == attacker], "viking_units",
                                  "english_units", "ragnar_gain", cmap="PuOr", vmin=-0.25,
                                  vmax=0.25, title=f"Ragnar's gain in P(Vikings win), "
                                  f"{attacker} attack (exact)")
figs["vikings"]

# %%
figs["english"]

# %%
close = grid[(grid.p_base > 0.2) & (grid.p_base < 0.8)]
print(f"contested battles (20% < P(base) < 80%): {len(close)} of {len(grid)} cells")
close.assign(gain_pp=100 * close.ragnar_gain).groupby("attacker")["gain_pp"].describe().round(1)

# %% [markdown]
# ## 3. Ragnar against the other battle bonuses (exact)
#
# Same battles, one bonus at a time: gain in percentage points and worth in Norsemen.
# Northumbria is an *English* bonus (negative for the Vikings); the Fort takes two Viking units
# to build (SEED §1.4), so its net worth is about two Norsemen less than shown.

# %%
BONUSES = {"Ragnar": {"ragnar": True}, "Fort": {"fort": 1}, "Seidr": {"seidr": True},
           "Raven Banner": {"raven_banner": True}, "Northumbria (English)": {"northumbria": True}}
CASES = [(3, 3), (5, 5), (8, 8), (10, 10), (5, 8), (8, 5)] if not SMALL else [(3, 3), (5, 5), (5, 6)]
rows = []
for attacker in ("vikings", "english"):
    for v, e in CASES:
        o = {**vikings(v), **english(e), "attacker": attacker}
        base = p_win(o)
        for name, change in BONUSES.items():
            rows.append({"attacker": attacker, "battle": f"{v} v {e}", "bonus": name,
                         "p_base": base, "gain_pp": 100 * (p_win({**o, **change}) - base),
                         "worth_norsemen": norsemen_equivalent(o, change)})
bonus = pd.DataFrame(rows)
bonus["battle"] = pd.Categorical(bonus.battle, [f"{v} v {e}" for v, e in CASES], ordered=True)
bonus.pivot_table(index=["attacker", "battle"], columns="bonus", values="worth_norsemen",
                  observed=True).round(2)

# %%
bonus.pivot_table(index=["attacker", "battle"], columns="bonus", values="gain_pp",
                  observed=True).round(1)

# %% [markdown]
# ### 3b. Seidr at 10 v 10 by Monte Carlo
#
# The exact table gives Seidr a small negative gain at 10 v 10; two Monte Carlo arms of
# `N_SEIDR` battles each (with and without Seidr, seed 9) check the sign with a 95% interval
# for the difference (normal, two independent proportions).

# %%
N_SEIDR = 40_000 if SMALL else 400_000
K_SEIDR = 10 if not SMALL else max(SIZES)
rows = []
for attacker in ("vikings", "english"):
    o = {**vikings(K_SEIDR), **english(K_SEIDR), "attacker": attacker}
    a, b = (simulate("battle878", N_SEIDR, seed=9, options={**o, "seidr": sd}, threads=2).summary["p_vikings_win"]
            for sd in (False, True))
    se = np.sqrt(a * (1 - a) / N_SEIDR + b * (1 - b) / N_SEIDR)
    rows.append({"attacker": attacker, "battle": f"{K_SEIDR} v {K_SEIDR}", "n": N_SEIDR,
                 "gain_pp_mc": 100 * (b - a), "lo": 100 * (b - a - Z95 * se), "hi": 100 * (b - a + Z95 * se),
                 "gain_pp_exact": 100 * (p_win({**o, "seidr": True}) - p_win(o))})
seidr_mc = pd.DataFrame(rows)
seidr_mc.round(2)


# %% [markdown]
# ## 4. The Raven Banner by Monte Carlo, with 95% intervals
#
# The Raven Banner's start-of-battle Thegn die (SEED §5.4) makes it a gamble: a Hit (1/3) adds a
# Hit to every Viking roll, a Flee (1/3) makes a Norseman and a Berserker flee before every Viking
# roll. Monte Carlo (engine, default policy) with Wilson intervals; the difference's interval is
# the normal one for two independent proportions. The exact solver's value is shown as a check;
# Ragnar's gain is estimated the same way for comparison. The battles are not simulated here:
# they are cells of the study `experiments/battle878_ragnar.toml` (equal armies of 1 to 10
# units a side, with and without Ragnar and the Raven Banner, each side attacking), read from
# its dataset `results/battle878_ragnar/` (run at `N_MC` battles per cell if absent).

# %%
study = ensure_study("../experiments/battle878_ragnar.toml", games=N_MC, results="../results")
mc = study.summary().query("metric == 'p_vikings_win'")
mc = mc.assign(units_a_side=mc.norsemen + mc.berserkers).set_index(
    ["attacker", "units_a_side", "ragnar", "raven_banner"])
print(study.root, f"{int(mc.games.iloc[0]):,} battles per cell")


def mc_gain(attacker, k, change):
    """(base row, bonus row, gain and its normal 95% interval in pp) from two cells."""
    base = mc.loc[(attacker, k, False, False)]
    bonus = mc.loc[(attacker, k, change == "ragnar", change == "raven_banner")]
    d = bonus.value - base.value
    se = np.sqrt(base.value * (1 - base.value) / base.games + bonus.value * (1 - bonus.value) / bonus.games)
    return base, bonus, 100 * d, np.round([100 * (d - Z95 * se), 100 * (d + Z95 * se)], 2)


rows = []
for attacker in ("vikings", "english"):
    for v in [5, 8] if not SMALL else [5]:
        o = {**vikings(v), **english(v), "attacker": attacker}
        for name, change in (("Raven Banner", "raven_banner"), ("Ragnar", "ragnar")):
            arm0, arm1, gain, ci = mc_gain(attacker, v, change)
            rows.append({"attacker": attacker, "battle": f"{v} v {v}", "bonus": name,
                         "n": int(arm0.games), "p_base_mc": arm0.value,
                         "base_ci": np.round([arm0.lo, arm0.hi], 4), "p_bonus_mc": arm1.value,
                         "bonus_ci": np.round([arm1.lo, arm1.hi], 4), "gain_pp_mc": gain,
                         "gain_pp_ci95": ci,
                         "gain_pp_exact": 100 * (p_win({**o, change: True}) - p_win(o))})
mc_table = pd.DataFrame(rows)
mc_table

# %% [markdown]
# ### 4b. Ragnar over army sizes: the Monte Carlo study against the exact solver
#
# Ragnar's gain for every army size of the study (95% intervals) beside the exact gain of
# section 1: the two agree within the intervals.

# %%
rows = []
for attacker in ("vikings", "english"):
    for k in SIZES:
        _, _, gain, (lo, hi) = mc_gain(attacker, k, "ragnar")
        exact = equal[(equal.attacker == attacker) & (equal.units_a_side == k)].gain_pp.item()
        rows.append({"attacker": attacker, "units_a_side": k, "gain_pp_mc": gain, "lo": lo,
                     "hi": hi, "gain_pp_exact": exact, "inside": lo <= exact <= hi})
sizes = pd.DataFrame(rows)
print(f"exact gain inside the 95% interval: {sizes.inside.sum()} of {len(sizes)}")
sizes.round(2)

# %% [markdown]
# ## 5. Ragnar's real host
#
# Ragnar replaces Halfdan's Great Heathen Host (SEED §9.1); his army is not given, so the notes
# use Halfdan's 17 Norsemen + 8 Berserkers (878 §6.5). Against English garrisons of ten and
# sixteen units he wins almost surely with or without his ability (exact).

# %%
rows = []
for h, t in ((4, 6), (6, 10)):
    o = {"norsemen": 17, "berserkers": 8, "housecarls": h, "thegns": t}
    base, rag = p_win(o), p_win({**o, "ragnar": True})
    rows.append({"english": f"{h} Housecarls + {t} Thegns", "p_base": base, "p_ragnar": rag,
                 "gain_pp": 100 * (rag - base)})
pd.DataFrame(rows)

# %%
print(f"notebook ran in {time.perf_counter() - t0:.1f} s (SMALL={SMALL})")

# %% [markdown]
# ## Conclusion
#
# Rendered from the tables above (`equal`, `close`, `bonus`, `seidr_mc`, `mc_table`, `sizes` and
# the host table; nothing in it is typed by hand).

# %%
def rng(x, fmt="{:.2f}"):
    return f"{fmt.format(x.min())} to {fmt.format(x.max())}"


def per_attacker(df, col, attacker, k_min=None):
    d = df[df.attacker == attacker]
    return d[col] if k_min is None else d[d.units_a_side >= k_min][col]


K_FROM = 4 if max(SIZES) >= 4 else 1
worth = bonus.pivot_table(index=["attacker", "battle"], columns="bonus", values="worth_norsemen", observed=True)
gains = bonus.pivot_table(index=["attacker", "battle"], columns="bonus", values="gain_pp", observed=True)
north_share_n = -worth["Northumbria (English)"] / worth["Ragnar"]
north_share_pp = -gains["Northumbria (English)"] / gains["Ragnar"]
seidr_neg = worth.index[worth["Seidr"] < 0]
ctab = close.assign(gain_pp=100 * close.ragnar_gain).groupby("attacker").gain_pp
mc_half = ((mc_table.gain_pp_ci95.map(lambda c: c[1] - c[0])) / 2)
host_gain = pd.Series([100 * (p_win({"norsemen": 17, "berserkers": 8, "housecarls": h, "thegns": t,
                                      "ragnar": True})
                              - p_win({"norsemen": 17, "berserkers": 8, "housecarls": h, "thegns": t}))
                       for h, t in ((4, 6), (6, 10))])
rb = mc_table[mc_table.bonus == "Raven Banner"]
rb_inside = sum(lo <= ex <= hi for (lo, hi), ex in zip(rb.gain_pp_ci95, rb.gain_pp_exact))
below_fort = int((worth["Ragnar"] < worth["Fort"]).sum())
above_net_fort = int((worth["Ragnar"] > worth["Fort"] - 2).sum())
seidr_txt = "; ".join(f"{r.attacker} attack: {r.gain_pp_mc:+.2f} pp [{r.lo:+.2f}, {r.hi:+.2f}] "
                      f"(exact {r.gain_pp_exact:+.2f})" for r in seidr_mc.itertuples())
Markdown(f"""
* **Ragnar is worth about one Norseman per battle.** Exact odds over equal armies of
  {min(SIZES)}-{max(SIZES)} units a side (section 1): median
  {per_attacker(equal, 'worth_norsemen', 'vikings').median():.2f} extra Norsemen when he attacks
  ({rng(per_attacker(equal, 'worth_norsemen', 'vikings', K_FROM))} from {K_FROM} units a side
  up), median {per_attacker(equal, 'worth_norsemen', 'english').median():.2f} when he defends
  ({rng(per_attacker(equal, 'worth_norsemen', 'english', K_FROM))} from {K_FROM} units up);
  {rng(per_attacker(equal, 'gain_pp', 'vikings'), '{:+.1f}')} pp of Viking win chance in these
  even battles when he attacks, {rng(per_attacker(equal, 'gain_pp', 'english'), '{:+.1f}')} pp
  when he defends. Over every contested army pair (base odds 20-80%, section 2:
  {len(close)} of {len(grid)} cells) his gain is {ctab.min()['vikings']:+.1f} to
  {ctab.max()['vikings']:+.1f} pp (mean {ctab.mean()['vikings']:.1f}) attacking and
  {ctab.min()['english']:+.1f} to {ctab.max()['english']:+.1f} pp (mean
  {ctab.mean()['english']:.1f}) defending; the heatmaps put the gain on the band where the
  armies are even.
* **Compared with the other bonuses** (section 3, battles {', '.join(c for c in bonus.battle.cat.categories)},
  each side attacking): a Fort is worth {rng(worth['Fort'])} Norsemen (Ragnar
  {rng(worth['Ragnar'])}) but costs two units to build (SEED §1.4), so net of its cost it is
  worth {rng(worth['Fort'] - 2)} Norsemen: Ragnar is worth less than the Fort in {below_fort} of
  {len(worth)} battles, more than the Fort net of its cost in {above_net_fort} of {len(worth)}. Seidr is worth {rng(worth['Seidr'])} Norsemen, negative in
  {len(seidr_neg)} of {len(worth)} battles ({', '.join(f'{a} attack {b}' for a, b in seidr_neg) or 'none'});
  Monte Carlo at {K_SEIDR} v {K_SEIDR}, n = {N_SEIDR:,} per arm (section 3b): {seidr_txt}.
  Northumbria in English hands costs the Vikings {rng(-worth['Northumbria (English)'])} Norsemen,
  {rng(100 * north_share_n, '{:.0f}')}% of Ragnar's worth in Norsemen and
  {rng(100 * north_share_pp, '{:.0f}')}% of his gain in percentage points. The Raven Banner
  costs the Vikings {rng(-gains['Raven Banner'], '{:.1f}')} pp on average (exact, section 3);
  its Monte Carlo arms (section 4, n = {int(mc_table.n.iloc[0]):,} per arm, 95% half-widths
  {rng(mc_half[mc_table.bonus == 'Raven Banner'])} pp) hold the exact value inside their interval
  in {rb_inside} of {len(rb)} battles. The Monte
  Carlo study over army sizes (section 4b) puts the exact Ragnar gain inside its 95% interval
  for {int(sizes.inside.sum())} of {len(sizes)} army sizes.
* **In the campaign** Ragnar's host (assumed: Halfdan's 17 Norsemen + 8 Berserkers) is big
  enough that his ability rarely decides a battle (section 5: gain {rng(host_gain, '{:.3f}')} pp
  against garrisons of 10 and 16); it matters when his army has been worn down to an even
  fight.
* **Verdict:** strong for a free ability (a Leader swap with the same army), but not too
  strong: about one Norseman per battle (the medians above), less than a Fort before its cost
  ({below_fort} of {len(worth)} battles), more than a Fort net of its cost ({above_net_fort} of
  {len(worth)}), and partly undone by an English Northumbria. If the designers want him weaker, limiting the conversion to the
  battle he invades with, or to Thegn Commands only, are options to test with the same solver.

**Rests on:** the invented armies (30% Berserkers, 40% Housecarls, no Fyrd; Halfdan's host for
Ragnar), the DEFAULT 878 §4 readings and the default policy (no retreats); one battle, not a
campaign. All numbers except sections 3b and 4 are exact for these armies; those sections
report n and 95% intervals.
""")
