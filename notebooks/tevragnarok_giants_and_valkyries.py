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
# # Tiny Epic Vikings: Ragnarok: are Giants worth it, and do Valkyries snowball?
#
# **Questions** (issue 11; `docs/rules/tevragnarok.md` §4.1): (1) is Slay a Giant worth a card
# and 2-3 Settlers? (2) do the linear Strength formulas (4 × Valkyries deployed, 4 × Giants
# slain, SEED §3.5) snowball: does the first slay or the first lost battle decide the game?
# (3) how far does the Giant Fury drain (SEED §3.4) reorder the gods? (4) how much luck do the
# hidden Giant values add?
#
# **Answer** (full run: 4 players, n = 20,000 games per configuration, seed 11; 95% intervals).
#
# 1. **A slay is worth a card, but not more than an Island Rune.** Level A (exact): a slay
#    yields 3.08 VP (the Giant's 3.00 plus a 0.08 Fury shift), an Island Rune 4.37, a Favor card
#    1.86; the slay loses to the Island Rune under all seven parameter sets (by 0.29 VP at mean
#    4 to 2.29 at mean 2) *before* its 2-3 Settlers are paid for, and beats a Favor card under
#    all seven. Level B: **never slaying costs 1.42 pp** of win rate (`no_giants` 23.6%
#    [23.3, 23.9] against three `greedy_vp`, paired gain −1.42 [−1.84, −1.00]), while **slaying
#    whenever legal gains nothing** (`giant_hunter` 24.8% [24.5, 25.1], −0.21 [−0.63, +0.22]),
#    though it scores +0.35 VP [0.29, 0.40] more. Only at Giant mean 4 does the hunter win more
#    (+1.11 [+0.69, +1.54]); at mean 2 it loses 2.02 [1.60, 2.44] and never slaying is no loss
#    (+0.22 [−0.21, +0.64]).
# 2. **No snowball through battles.** The first slayer wins 28.3% [27.7, 29.0] against its
#    seat's 24.8% (+3.5 pp [2.8, 4.1]; positive under all seven sets, +0.8 to +7.4) but wins
#    *no more battles* than the others (−0.02 [−0.04, −0.00]): its edge is the Giant's points,
#    not Einherjar Strength (mean Einherjar Strength in Era-3 battles 0.5). The first loser
#    (first Valkyrie) wins slightly *less* (−0.8 pp [−1.4, −0.2], and −0.2 to −1.3 under every
#    set) and wins fewer battles (−0.14).
# 3. **The Giant drain reorders the gods in about a third of games:** the final ranks with
#    and without the drain differ in 31.8% [31.1, 32.4] of games (28.7% to 41.3% over the seven
#    sets); it lifts the two-region god C to first place alone in 9.2% of games against 5.8%
#    with the drain off.
# 4. **The hidden Giant values change the winner in 4.3% [4.0, 4.6] of games** (against
#    scoring every Giant at the pool mean): 7.2% [6.8, 7.6] with the wide pool, 3.4% to 5.2%
#    under the other sets, and never with the flat pool (0 of 20,000, as it must be).
#
# Which survive every assumption: Level A's order Island > slay > Favor, the value of
# slaying *sometimes* over never (all but Giant mean 2), the first slayer's edge without a
# battle snowball, the first loser's lack of one, and the drain's reordering all hold under
# the seven sets; whether slaying *always* pays, and how much luck the Giants add, depend on
# the invented Giant values (section 5).
#
# **Every number here rests on invented values** (§4.3, §4.4: the Giant values, the Island
# table beyond rank 1 = 6, the Favor table, the card list, the board): the model is the stated
# abstraction of §4.7, game `tevragnarok`, DEFAULT readings. So every answer is shown under the
# seven parameter sets of §4.4 (the default file and the six shipped `params_*.toml`
# sensitivity runs), and the conclusion says which answers survive all of them.
#
# Method: Level A (§4.2) from the game's `odds` (exact enumeration) beside its Monte Carlo
# (`tevragnarok.economics.monte_carlo`); Level B (§4.3) by `vikingsim.core.runner.simulate`,
# 4 players, seed `SEED`, `N` games per configuration, the same seed for every configuration
# (common random numbers: the deck, Giant and Favor shuffles are the same game by game, so
# differences between configurations are paired). Intervals are 95%: Wilson for proportions,
# normal for paired differences (`vikingsim.core.stats`). The headline figures are re-computed
# by `tests/test_tevragnarok_notebook.py`. Set `VIKINGSIM_NB_SMALL=1` for a quick run.

# %%
# %matplotlib inline
import os
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from vikingsim import games
from vikingsim.core.runner import simulate
from vikingsim.core.stats import Z95, paired_diff, wilson
from vikingsim.games import tevragnarok

SMALL = os.environ.get("VIKINGSIM_NB_SMALL") == "1"
SEED = 11                                   # issue 11
N = 300 if SMALL else 20_000                # games per configuration (4 players)
N_LEVEL_A = 20_000 if SMALL else 1_000_000  # Level A Monte Carlo samples
PLAYERS = 4
PRESETS = ["default", "giants_flat", "giants_wide", "giants_mean2", "giants_mean4",
           "island_630", "island_654"]
GAME = games.get("tevragnarok")
pd.set_option("display.precision", 3)
pd.set_option("display.width", 160)
t0 = time.perf_counter()
print({o.name: o.default for o in GAME.options}, "| policies:", list(GAME.policies))
print("small run" if SMALL else "full run", f"N = {N:,} games per configuration")

_RUNS = {}


def run(policies, params, **opts):
    """One configuration (cached): ``policies`` one per seat, ``params`` a preset."""
    key = (tuple(policies), params, tuple(sorted(opts.items())))
    if key not in _RUNS:
        _RUNS[key] = simulate("tevragnarok", N, seed=SEED, players=PLAYERS,
                              policies=list(policies), options={"params": params, **opts})
    return _RUNS[key]


def greedy(params, **opts):
    return run(["greedy_vp"] * PLAYERS, params, **opts)


def one_seat(policy, seat):
    """``policy`` in ``seat``, ``greedy_vp`` in the other seats."""
    return ["greedy_vp"] * seat + [policy] + ["greedy_vp"] * (PLAYERS - 1 - seat)


def ci(lo, hi, scale=100, digits=1):
    return f"[{scale * lo:.{digits}f}, {scale * hi:.{digits}f}]"


# %% [markdown]
# ## 0. The sensitivity runs (§4.4)
#
# Each preset overrides only the keys it names; the rest is the default file. Giant pools: the
# default (mean 3), the same mean with no spread (`giants_flat`) or a wide one (`giants_wide`),
# means 2 and 4 (the default shape shifted); Island tables 6/3/0 and 6/5/4.

# %%
rows = []
for name in PRESETS:
    p = tevragnarok.load_params(name)
    v = np.array(p.giants_values)
    rows.append({"params": name, "giant_values": " ".join(map(str, v)), "giant_mean": v.mean(),
                 "giant_sd": v.std(), "island_table": "/".join(map(str, p.scoring_island)),
                 "favor_table": "/".join(map(str, p.scoring_favor))})
pd.DataFrame(rows).set_index("params")

# %% [markdown]
# ## 1. Is Slay a Giant worth a card and 2-3 Settlers?
#
# ### 1a. Level A: expected VP of one action (§4.2)
#
# In a fixed end position (each god's Fury uniform on 0..6, a modest holding of Runes, the
# `[level_a]` table): a slay is worth the Giant's value (a token drawn from the pool: its mean,
# by exchangeability) plus the shift that its +1 Fury causes in the player's Rune points; an
# Island Rune its rank-weighted value after its own +1 Fury; a Favor card its Rune's value.
# `exact` is the game's `odds` (enumeration); `mc` its Monte Carlo at `N_LEVEL_A` samples with
# the standard error; `z` = (mc − exact) / se. `settler_breakeven` = (slay − best other action)
# / 3: the VP a sacrificed Settler would have to be worth for a slay to be no better than the
# best alternative (/ 2 with an Einherjar card).

# %%
rows = []
for name in PRESETS:
    exact = GAME.odds({"params": name})
    mc = tevragnarok.economics.monte_carlo(tevragnarok.load_params(name), N_LEVEL_A, SEED)
    for action in ("slay", "island", "favor"):
        key = f"ev_{action}"
        rows.append({"params": name, "action": action, "exact": exact[key], "mc": mc[key],
                     "se": mc[key + "_se"], "z": (mc[key] - exact[key]) / mc[key + "_se"]})
level_a = pd.DataFrame(rows)
print(f"largest |z| of Monte Carlo against exact: {level_a.z.abs().max():.2f} "
      f"(of {len(level_a)} values)")
ev = level_a.pivot(index="params", columns="action", values="exact").loc[PRESETS]
ev["slay_minus_island"] = ev.slay - ev.island
ev["settler_breakeven"] = (ev.slay - ev[["island", "favor"]].max(axis=1)) / 3
ev["settler_breakeven_einherjar"] = (ev.slay - ev[["island", "favor"]].max(axis=1)) / 2
ev

# %%
level_a.set_index(["params", "action"])[["exact", "mc", "se", "z"]]

# %% [markdown]
# ### 1b. Level B: one Giant hunter, or one player who never slays, among three `greedy_vp`
#
# The policies of §4.5: `giant_hunter` slays whenever it can (its focus leans to Giant regions
# and its draft to Valkyrie and Einherjar cards); `greedy_vp` slays when the one-step value
# (next Giant's expected value + the Fury shift − 0.5 VP per sacrificed Settler) beats the
# other uses of the card; `no_giants` never slays. Each policy sits in each of the 4 seats in
# turn (N games each) against three `greedy_vp`, so seat effects cancel and the fair share is
# 25%. `gain_pp` is the paired difference of its seat's win indicator against the all-`greedy_vp`
# game with the same seed (same deal), in percentage points with its 95% interval;
# `score_gain` the same for the final score. `greedy_vp` in that design *is* the all-greedy
# game: its row is the check (exactly 25%, gain 0). The rotation is needed: seats are not equal
# in this model (next cell: in the all-`greedy_vp` game seat 1, which opens Era 1, wins about
# 30% under every set; seat 0 never opens an Era, §4.7), so a mirror's seat win rates say nothing about
# fairness of the policies.

# %%
pd.DataFrame({name: [f"{100 * w:.1f}% {ci(*c)}" for w, c in
                     zip(greedy(name).summary["win_rate"], greedy(name).summary["win_rate_ci"])]
              for name in PRESETS}, index=[f"seat {s}" for s in range(PLAYERS)]).T

# %%
def policy_row(policy, params, **opts):
    base = greedy(params, **opts).frame
    wins, d_win, d_score, slays, gpts = 0, [[], []], [[], []], 0.0, 0.0
    for s in range(PLAYERS):
        f = run(one_seat(policy, s), params, **opts).frame
        won = (f.winner.to_numpy() == s)
        wins += int(won.sum())
        d_win[0].append(won)
        d_win[1].append(base.winner.to_numpy() == s)
        d_score[0].append(f[f"score_{s}"].to_numpy())
        d_score[1].append(base[f"score_{s}"].to_numpy())
        slays += f[f"slays_{s}"].mean() / PLAYERS
        gpts += f[f"giant_points_{s}"].mean() / PLAYERS
    lo, hi = wilson(wins, PLAYERS * N)
    dw = paired_diff(np.concatenate(d_win[0]), np.concatenate(d_win[1]))
    ds = paired_diff(np.concatenate(d_score[0]), np.concatenate(d_score[1]))
    return {"params": params, "policy": policy, "win_rate": wins / (PLAYERS * N), "lo": lo,
            "hi": hi, "gain_pp": 100 * dw["diff"], "gain_lo": 100 * dw["ci"][0],
            "gain_hi": 100 * dw["ci"][1], "score_gain": ds["diff"], "score_gain_lo": ds["ci"][0],
            "score_gain_hi": ds["ci"][1], "slays": slays, "giant_points": gpts}


POLICIES = ["giant_hunter", "greedy_vp", "no_giants"]
level_b = pd.DataFrame([policy_row(pol, name) for name in PRESETS for pol in POLICIES])
level_b.set_index(["params", "policy"])

# %%
fig, ax = plt.subplots(figsize=(9, 3.6))
width = 0.38
x = np.arange(len(PRESETS))
for j, pol in enumerate(["giant_hunter", "no_giants"]):
    d = level_b[level_b.policy == pol].set_index("params").loc[PRESETS]
    ax.bar(x + (j - 0.5) * width, d.gain_pp, width, label=pol,
           yerr=[d.gain_pp - d.gain_lo, d.gain_hi - d.gain_pp], capsize=3)
ax.axhline(0, color="k", lw=0.8)
ax.set_xticks(x, PRESETS, rotation=20)
ax.set_ylabel("win rate − greedy_vp's (pp)")
ax.set_title(f"One seat against three greedy_vp, averaged over seats (95% CI, {PLAYERS * N:,} games)")
ax.legend()
plt.tight_layout()

# %% [markdown]
# ## 2. Do the linear Strength formulas snowball?
#
# In the all-`greedy_vp` games: the **first slayer** (first Giant slain, which makes its
# Einherjar cards 4 Strength) and the **first loser** (first lost battle, which deploys its
# first Valkyrie and makes its Valkyrie cards 4 Strength). `p_win` is how often that player
# wins the game; `expected` is what its seat wins in the same games (seat win rates over the
# games where the event happened, at that player's seat), so `lift_pp` = p_win − expected is
# the edge beyond the seat. `battles_diff` = that player's battles won in the game minus the
# mean of the other three: the frame counts battles over the whole game (it has no time of
# each battle), so for the first slayer it also counts battles before the slay, an upper
# bound on a snowball through battles. Intervals: Wilson for `p_win`, normal for paired
# differences (the seat rates are treated as known: their own error is about ±0.6 pp at full
# n). Both are
# associations, not causes: a player who is ahead may also be the one who slays first.

# %%
def snowball(f, who):
    g = f[f[who] >= 0]
    seat = g[who].to_numpy().astype(int)
    won = (g.winner.to_numpy() == seat).astype(float)
    seat_rate = np.bincount(g.winner.to_numpy().astype(int), minlength=PLAYERS) / len(g)
    lift = paired_diff(won, seat_rate[seat])
    W = g[[f"won_battles_{s}" for s in range(PLAYERS)]].to_numpy().astype(float)
    own = W[np.arange(len(g)), seat]
    battles = paired_diff(own, (W.sum(axis=1) - own) / (PLAYERS - 1))
    lo, hi = wilson(int(won.sum()), len(g))
    return {"games_with_event": len(g) / len(f), "p_win": won.mean(), "lo": lo, "hi": hi,
            "expected": seat_rate[seat].mean(), "lift_pp": 100 * lift["diff"],
            "lift_lo": 100 * lift["ci"][0], "lift_hi": 100 * lift["ci"][1],
            "battles_diff": battles["diff"], "battles_lo": battles["ci"][0],
            "battles_hi": battles["ci"][1]}


snow = pd.DataFrame([{"params": name, "event": who, **snowball(greedy(name).frame, who)}
                     for name in PRESETS for who in ("first_slayer", "first_loser")])
snow.set_index(["params", "event"])

# %% [markdown]
# ### 2b. Win rate by Giants slain and by Valkyries deployed (default parameters)
#
# Every seat of every all-`greedy_vp` game, pooled: the win rate of a player by how many Giants
# it slew and how many Valkyries it deployed, with Wilson intervals. A rising staircase is what
# a snowball looks like (again an association). The mean Strength of Valkyrie and Einherjar
# cards played in battle, by Era, shows the formulas growing over the game.

# %%
def by_count(f, column):
    rows = []
    k = np.concatenate([f[f"{column}_{s}"].to_numpy() for s in range(PLAYERS)])
    w = np.concatenate([f.winner.to_numpy() == s for s in range(PLAYERS)])
    for v in np.unique(k):
        m = k == v
        lo, hi = wilson(int(w[m].sum()), int(m.sum()))
        rows.append({column: int(v), "share_of_players": m.mean(), "win_rate": w[m].mean(),
                     "lo": lo, "hi": hi})
    return pd.DataFrame(rows).set_index(column)


f_default = greedy("default").frame
display(by_count(f_default, "slays"))
display(by_count(f_default, "valkyries"))
s = greedy("default").summary
pd.DataFrame({k: s[f"mean_{k}_strength_by_era"] for k in ("valkyrie", "einherjar")})

# %% [markdown]
# ## 3. How far does the Giant drain reorder the gods?
#
# Two measures. **In-game**: the game also counts each god's Fury without the Cleanup drain
# (`fury_nodrain_*`); `p_ranks_changed_in_game` is how often the final ranks with and without
# the drain differ in the same game (`p_god_ranks_changed_by_drain`). **Option on/off**: the
# same seeds played with `giant_drain=false` (the play itself then differs);
# `p_ranks_differ_on_off` is how often the final rank triple of game *i* differs between the two
# runs (this includes the knock-on changes of play, so it is an upper measure), `p_first_X` how
# often god X ranks first alone, and `score_shift` the paired change of the mean final score.

# %%
def first_alone(f, g):
    return float((f[f"rank_{g}"] == 1).mean())


rows = []
for name in PRESETS:
    on, off = greedy(name), greedy(name, giant_drain=False)
    fo, ff = on.frame, off.frame
    ro = fo[["rank_A", "rank_B", "rank_C"]].to_numpy()
    rf = ff[["rank_A", "rank_B", "rank_C"]].to_numpy()
    k = int((ro != rf).any(axis=1).sum())
    score_on = fo[[f"score_{s}" for s in range(PLAYERS)]].mean(axis=1)
    score_off = ff[[f"score_{s}" for s in range(PLAYERS)]].mean(axis=1)
    sh = paired_diff(score_on.to_numpy(), score_off.to_numpy())
    row = {"params": name, "p_ranks_changed_in_game": on.summary["p_god_ranks_changed_by_drain"],
           "in_game_ci": ci(*on.summary["p_god_ranks_changed_by_drain_ci"]),
           "p_ranks_differ_on_off": k / N, "on_off_ci": ci(*wilson(k, N)),
           "score_shift": sh["diff"], "score_shift_ci": ci(*sh["ci"], scale=1, digits=2)}
    for g in "ABC":
        row[f"p_first_{g}_on"] = first_alone(fo, g)
        row[f"p_first_{g}_off"] = first_alone(ff, g)
    rows.append(row)
drain = pd.DataFrame(rows).set_index("params")
drain

# %% [markdown]
# ### 3b. How much of a slay's worth is the drain? (default parameters)
#
# A slain Giant stops draining its region's god, so slaying is also a lever on the ranks. The
# Giant hunter of section 1b again, with the drain switched off (against its own all-greedy
# baseline with the drain off).

# %%
hunter_drain = pd.DataFrame([policy_row("giant_hunter", "default"),
                             {**policy_row("giant_hunter", "default", giant_drain=False),
                              "params": "default, giant_drain=false"}]).set_index("params")
hunter_drain

# %% [markdown]
# ## 4. How much luck do the hidden Giant values add?
#
# `p_winner_changed` is how often the winner would change if every slain Giant scored the pool
# mean instead of its hidden value (the frame's `winner_at_mean`, same tie-breakers), with its
# Wilson interval; in the all-`greedy_vp` games and in the games with one Giant hunter (its 4
# seat runs pooled). With the flat pool every Giant *is* the mean, so it must be exactly 0.
# `sd_score` is the spread of a player's final score, `giant_share` the Giants' share of all
# points.

# %%
rows = []
for name in PRESETS:
    on = greedy(name)
    hunt = [run(one_seat("giant_hunter", s), name).frame for s in range(PLAYERS)]
    kh = sum(int((f.winner != f.winner_at_mean).sum()) for f in hunt)
    sm = on.summary
    rows.append({"params": name, "p_winner_changed": sm["p_winner_changed_by_giant_values"],
                 "ci": ci(*sm["p_winner_changed_by_giant_values_ci"], digits=2),
                 "p_winner_changed_hunter": kh / (PLAYERS * N),
                 "ci_hunter": ci(*wilson(kh, PLAYERS * N), digits=2),
                 "sd_score": float(np.mean(sm["sd_score"])), "giant_share": sm["giant_share"],
                 "slays_per_game": float(np.sum(sm["mean_slays"]))})
luck = pd.DataFrame(rows).set_index("params")
luck

# %% [markdown]
# ## 5. Which answers survive every assumption?
#
# One line per answer and parameter set: `True` where the statement holds there (for
# Monte Carlo answers: where the 95% interval says so).

# %%
hb = level_b.set_index(["params", "policy"])
sn = snow.set_index(["params", "event"])
survive = pd.DataFrame({
    "A: slay beats an Island Rune": ev.slay > ev.island,
    "A: slay beats a Favor card": ev.slay > ev.favor,
    "B: giant_hunter beats greedy_vp": [hb.loc[(n, "giant_hunter"), "gain_lo"] > 0 for n in PRESETS],
    "B: no_giants loses to greedy_vp": [hb.loc[(n, "no_giants"), "gain_hi"] < 0 for n in PRESETS],
    "snowball: first slayer lift > 0": [sn.loc[(n, "first_slayer"), "lift_lo"] > 0 for n in PRESETS],
    "snowball: first loser lift > 0": [sn.loc[(n, "first_loser"), "lift_lo"] > 0 for n in PRESETS],
    "drain reorders ranks in > 20% of games": drain.p_ranks_changed_in_game > 0.2,
    "Giant values change > 2% of winners": luck.p_winner_changed > 0.02,
}, index=PRESETS)
survive.T

# %%
print(f"notebook ran in {time.perf_counter() - t0:.1f} s (SMALL={SMALL}, N={N:,})")

# %% [markdown]
# ## Conclusion
#
# * **Is a slay worth a card and 2-3 Settlers?** In Level A's end position a slay (3.08 VP
#   at the default values, 2.08 to 4.08 over the sets) is always worth more than a Favor card
#   (1.86) and always less than an Island Rune (3.54 to 5.20), even with free Settlers: the
#   break-even price of a Settler is negative under all seven sets (section 1a). Level A does
#   not count what an Island costs to take and keep, and Level B does: there, the greedy
#   player who slays when the one-step value says so (0.36 slays a game) beats one who never
#   slays by 1.42 pp [1.00, 1.84] (1.0 to 2.6 pp under six of seven sets; not at Giant mean 2,
#   +0.22 [−0.21, +0.64]), while slaying at every chance (0.67 slays) is no better than greedy
#   at mean 3 (−0.21 [−0.63, +0.22]), better only at mean 4 (+1.11 [+0.69, +1.54]) and worse at
#   mean 2 (−2.02) and under both other Island tables (−1.22 at 6/3/0, −0.55 at 6/5/4). The
#   hunter's extra 0.35 VP a game [0.29, 0.40] does not turn into wins.
#   **Survives:** slaying sometimes beats never slaying (6 of 7 sets: it fails when Giants
#   average 2); **does not survive:** "always slay".
# * **Snowball?** No snowball through the Strength formulas under any set. The first slayer's
#   edge (+3.5 pp [2.8, 4.1] at default; +0.8 to +7.4 pp, growing with the Giant mean) comes
#   without extra battle wins (−0.08 to +0.02 battles against the other players), and the
#   Einherjar cards hardly fight at strength (mean Strength in battle 0.005 / 0.16 / 0.52 by
#   Era): it is the Giant's points. The first lost battle deploys a Valkyrie but its player
#   wins the game slightly less often (−0.2 to −1.3 pp) and wins 0.10 to 0.15 fewer
#   battles than the others; Valkyrie cards grow with the game (mean Strength 5.5 / 10.0 /
#   11.4 by Era), but almost everyone deploys all three (86% of players), so they do not
#   separate players. The
#   staircase of section 2b (win rate 23.3% with no slay, 28.2% with one, 32.3% with two) is
#   the Giants' VP again. **Survives** every set.
# * **Giant drain:** it changes the final god ranks in 28.7% to 41.3% of games (31.8% [31.1,
#   32.4] at default; most with the 6/3/0 Island table), pushes the god with fewer regions (C)
#   to first place more often (9.2% against 5.8% without the drain at default; 8.8% to 10.3%
#   against 4.9% to 5.8% over the sets) and lowers the mean score by 0.11 to 0.21 VP. Turning
#   it off barely changes what slaying is worth (`giant_hunter` −0.15 [−0.57, +0.28] pp
#   without it, section 3b). **Survives** every set.
# * **Luck of the hidden values:** the winner would change in 4.3% [4.0, 4.6] of games if every
#   Giant scored the pool mean; 7.2% [6.8, 7.6] with the wide pool, 3.9% at mean 2, 5.2% at mean
#   4, 3.4% and 4.9% under the other Island tables, slightly more with a Giant hunter at the
#   table, and 0 with the flat pool. The Giants make 5% to 13% of all points. **Depends** on the
#   spread of the invented pool: a few percent of winners for any pool with a spread like the
#   default's or wider, none without spread.
#
# Every figure is the abstract model of `docs/rules/tevragnarok.md` §4.7 with invented numbers
# (§4.3, §4.4): read them as the direction and size of effects under stated assumptions, not
# as the printed game's. Level A's Monte Carlo agrees with the exact values (largest |z| 0.54
# at 1,000,000 samples); `tests/test_tevragnarok_notebook.py` re-computes the headline.
