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
# # 878 Vikings: what do Runes and Prayer dice do to a battle, and how should they be spent?
#
# **Question.** With the Runes and Prayer expansion (SEED §4) each faction may roll one Runes
# (Vikings) or Prayer (English) die with its battle dice and spend the faces on effects. How do
# the battle odds move, and which spending policy is best for each side?
#
# **Answer** (base battle: 6 Norsemen + 2 Berserkers attack 3 Housecarls + 4 Thegns; n = 200,000
# battles per cell, seed 878, 95% Wilson intervals; "win" = the Vikings clear the shire, God's
# Peace counts as no Viking win):
#
# - Without the dice the Vikings win **80.8% [80.7, 81.0]**. With the dice and the best policy
#   for each side (maximin on P(Vikings win)) the battle is close to a coin flip: Vikings
#   `cautious` vs English `greedy` gives **55.4% [55.1, 55.6]**. The English gain far more than
#   the Vikings: Prayer faces are all useful to them, a third of Runes faces are Conversions
#   handed to the English card (Convert, God's Peace).
# - **English: pray every time.** `greedy` keeps the Vikings at or below 55.7% whatever they do
#   (best Viking reply `smart`: 55.7% [55.5, 56.0]); `smart` (God's Peace only when losing) is
#   deadly against Runes-greedy Vikings (36.4%, God's Peace 41.4%) but lets careful Vikings reach
#   58.9% [58.7, 59.1] (`cautious`).
# - **Vikings: roll Runes only while the Prayer card holds no Conversion** (`cautious`): worst
#   case 55.4% (vs greedy English). `smart` (stop at two Conversions) is best against greedy or
#   non-praying English (55.7%, 88.9%) but falls to 53.7% against smart English; rolling Runes
#   greedily is the worst choice (36.4% against smart English, below never rolling: 58.3%).
# - In a bigger battle (12 N + 4 B vs 6 H + 8 T: 97.4% without dice) God's Peace dominates:
#   the English should play `smart` (Vikings at most 49.1%), and the Vikings' best reply is to
#   **never roll Runes** (49.1% [48.9, 49.3]; `cautious` 44.5%, `smart` 33.3%, `greedy` 7.4%).
#
# Numbers are recomputed below (with `VIKINGSIM_NB_SMALL=1` at n = 20,000, so they move within
# their intervals).

# %%
import itertools
import os

import matplotlib.pyplot as plt
import pandas as pd

from vikingsim.core.runner import simulate
from vikingsim.games.battle878 import GAME

SMALL = os.environ.get("VIKINGSIM_NB_SMALL") == "1"
N = 20_000 if SMALL else 200_000
SEED = 878
V_POLICIES = ["never", "greedy", "smart", "cautious"]
E_POLICIES = ["never", "greedy", "smart"]
BASE = {"norsemen": 6, "berserkers": 2, "housecarls": 3, "thegns": 4}
BIG = {"norsemen": 12, "berserkers": 4, "housecarls": 6, "thegns": 8}
print("battles per cell:", N)


# %%
def grid(army):
    rows = []
    for v, e in itertools.product(V_POLICIES, E_POLICIES):
        opts = {**army, "runes_prayer": not (v == "never" and e == "never")}
        s = simulate(GAME, N, seed=SEED, options=opts, policies=[v, e], threads=2).summary
        rows.append({
            "vikings": v, "english": e,
            "p_vikings_win": s["p_vikings_win"], "lo": s["p_vikings_win_ci"][0],
            "hi": s["p_vikings_win_ci"][1],
            "p_english_win": s["p_english_win"], "p_gods_peace": s["p_gods_peace"],
            "mean_rolls": s["mean_rolls"], "omens": s["mean_omens"],
            "battle_rage": s["mean_battle_rage"], "ragnarok": s["mean_ragnarok"],
            "convert": s["mean_convert"], "defend_the_faith": s["mean_defend_the_faith"],
            "martyrdom": s["mean_martyrdom"]})
    return pd.DataFrame(rows)


base = grid(BASE)
base.round(4)

# %% [markdown]
# P(Vikings win) by policy pair (rows: Viking policy, columns: English policy):

# %%
base.pivot(index="vikings", columns="english", values="p_vikings_win").round(4)

# %%
fig, ax = plt.subplots(figsize=(8, 4))
for i, e in enumerate(E_POLICIES):
    d = base[base.english == e].set_index("vikings").loc[V_POLICIES]
    x = [j + (i - 1) * 0.25 for j in range(len(V_POLICIES))]
    ax.bar(x, d.p_vikings_win, width=0.25, label=f"English {e}",
           yerr=[d.p_vikings_win - d.lo, d.hi - d.p_vikings_win], capsize=3)
ax.set_xticks(range(len(V_POLICIES)), [f"Vikings {v}" for v in V_POLICIES])
ax.set_ylabel("P(Vikings win)")
ax.set_title("Base battle: 6 N + 2 B vs 3 H + 4 T (95% Wilson intervals)")
ax.legend()
plt.show()


# %% [markdown]
# **Best responses.** For each English policy, the Viking policy with the highest P(Vikings
# win); for each Viking policy, the English policy with the lowest. Intervals above say whether
# a gap is real (non-overlapping intervals at this n).

# %%
def best_responses(df):
    v = df.loc[df.groupby("english").p_vikings_win.idxmax(), ["english", "vikings", "p_vikings_win", "lo", "hi"]]
    e = df.loc[df.groupby("vikings").p_vikings_win.idxmin(), ["vikings", "english", "p_vikings_win", "lo", "hi"]]
    return v.rename(columns={"vikings": "best_viking_policy"}), e.rename(columns={"english": "best_english_policy"})


bv, be = best_responses(base)
display(bv.round(4))
display(be.round(4))


# %% [markdown]
# **Maximin.** Treating P(Vikings win) as a zero-sum payoff: the Viking policy whose worst case
# is highest, and the English policy whose worst case (for them) is lowest.

# %%
def maximin(df):
    m = df.pivot(index="vikings", columns="english", values="p_vikings_win")
    return {"viking_policy": m.min(axis=1).idxmax(), "viking_guarantee": m.min(axis=1).max(),
            "english_policy": m.max(axis=0).idxmin(), "english_guarantee": m.max(axis=0).min()}


maximin(base)

# %% [markdown]
# The same grid for a bigger battle (12 N + 4 B vs 6 H + 8 T):

# %%
big = grid(BIG)
display(big.pivot(index="vikings", columns="english", values="p_vikings_win").round(4))
display(big.pivot(index="vikings", columns="english", values="p_gods_peace").round(4))
bv, be = best_responses(big)
display(bv.round(4))
display(be.round(4))
maximin(big)

# %% [markdown]
# **Reading.** Prayer dice help the English much more than Runes help the Vikings: every
# Prayer face is useful to the English (Faith builds to Defend the Faith, Conversions to Convert
# or God's Peace; Martyrdom only blocks English Commands, harmless when nobody retreats), while
# a third of Runes faces are Conversions handed to the English. The `smart` Vikings therefore
# stop rolling once the Prayer card holds two Conversions. Policies are defined in
# `vikingsim/games/battle878/policies.py`; the effect counts per battle are in the table above
# (`omens`, `battle_rage`, ...).
