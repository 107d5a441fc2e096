"""Level A, Giant economics (tev-ragnarok §4.2): expected VP of one action, exact and by
Monte Carlo.

The end position (§4.2, parameters ``[level_a]``, assumptions): each god's final Fury is
uniform on 0..``fury_max``, independently; the player holds ``islands[g]`` Island Runes and
``favors[g]`` Favor Runes of each god g. Scores follow §2.6 / §4.4: a Rune of a god of rank
1/2/3 scores the table's value, and tied gods all take the lower value (PUBLIC).

Three actions, each valued in that position:

- **slay** (§3.3 SEED): the Giant's VP (a token drawn without replacement from the pool of
  9: its marginal is the pool, whatever was drawn before, because the draws are exchangeable)
  plus the change of the player's Rune points caused by +1 Fury to the god of the card's
  Rune (uniform on the three Runes, as the card generator's base cards, §4.3);
- **island**: an extra Island Rune of a uniform god, scored after its +1 Fury (§2.4: taking
  an Island Rune raises its god's Fury), plus the shift that Fury causes on what is held;
- **favor**: a Favor card of a uniform Rune (the Favor deck has 6 of each), no Fury change.

``exact`` enumerates every Fury triple and Rune ((fury_max + 1)^3 x 3 cases) and the 9
tokens; ``monte_carlo`` samples the same experiment with numpy. ``odds`` is
``GameSpec.odds`` (``vikingsim odds tevragnarok``).
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from vikingsim.games.tevragnarok.rules import N_RUNES, Params, Rules


def rank_index(fury, g) -> int:
    """0 for rank 1 .. 2 for rank 3; tied gods take the lower value (§2.6 PUBLIC), i.e. the
    worst rank of their tie: the number of *other* gods with at least as much Fury."""
    return sum(1 for h in range(N_RUNES) if h != g and fury[h] >= fury[g])


def rune_points(p: Params, fury, islands, favors) -> int:
    """Island and Favor Rune points of a holding under these Furies (§2.6, §4.4)."""
    total = 0
    for g in range(N_RUNES):
        k = rank_index(fury, g)
        total += islands[g] * p.scoring_island[k] + favors[g] * p.scoring_favor[k]
    return total


def _bump(fury, g):
    return tuple(f + (1 if h == g else 0) for h, f in enumerate(fury))


def exact(p: Params) -> dict:
    """Expected VP per action by enumeration (see the module docstring)."""
    I, V = p.level_a_islands, p.level_a_favors
    furies = list(itertools.product(range(p.level_a_fury_max + 1), repeat=N_RUNES))
    shift = island = favor = 0.0
    for f in furies:
        base = rune_points(p, f, I, V)
        for g in range(N_RUNES):
            up = _bump(f, g)
            shift += rune_points(p, up, I, V) - base
            more = [x + (1 if h == g else 0) for h, x in enumerate(I)]
            island += rune_points(p, up, more, V) - base
            favor += p.scoring_favor[rank_index(f, g)]
    cases = len(furies) * N_RUNES
    giant = sum(p.giants_values) / len(p.giants_values)
    values = sorted(set(p.giants_values))
    out = {"ev_slay": giant + shift / cases, "ev_slay_giant": giant,
           "ev_slay_fury_shift": shift / cases, "ev_island": island / cases,
           "ev_favor": favor / cases,
           "sd_giant": math.sqrt(sum((v - giant) ** 2 for v in p.giants_values) / 9)}
    out["ev_slay_per_settler"] = out["ev_slay"] / 3          # §3.3: 3 Settlers sacrificed
    for v in values:
        out[f"p_giant_{v}"] = p.giants_values.count(v) / len(p.giants_values)
    return out


def giant_of_region_exact(p: Params, n_regions: int) -> float:
    """E[value of the Giant of a given region] by enumerating every ordered placement of the
    9 tokens into ``n_regions`` regions (§3.1: shuffled, one per region, rest unused): the
    pool mean, for any region and any earlier slays (exchangeability)."""
    total = count = 0
    for perm in itertools.permutations(range(len(p.giants_values)), n_regions):
        total += p.giants_values[perm[-1]]
        count += 1
    return total / count


def monte_carlo(p: Params, n: int, seed: int) -> dict:
    """The same experiment sampled ``n`` times: Furies, the card's Rune, a Giant placed by a
    shuffle of the 9 tokens. Returns the means and their standard errors (``*_se``)."""
    g = np.random.default_rng(seed)
    fury = g.integers(0, p.level_a_fury_max + 1, size=(n, N_RUNES))
    rune = g.integers(0, N_RUNES, size=n)
    giant = np.array(p.giants_values)[np.argsort(g.random((n, 9)), axis=1)[:, 0]]
    I, V = np.array(p.level_a_islands), np.array(p.level_a_favors)
    isl, fav = np.array(p.scoring_island), np.array(p.scoring_favor)

    def ranks(f):                                   # (n, 3): other gods at least as furious
        return (f[:, None, :] >= f[:, :, None]).sum(axis=2) - 1

    def points(f, islands):
        k = ranks(f)
        return (islands * isl[k] + V * fav[k]).sum(axis=1)

    up = fury + np.eye(N_RUNES, dtype=np.int64)[rune]
    base = points(fury, I)
    shift = points(up, I) - base
    island = points(up, I + np.eye(N_RUNES, dtype=np.int64)[rune]) - base
    favor = fav[ranks(fury)[np.arange(n), rune]]
    out = {}
    for key, x in (("ev_slay", giant + shift), ("ev_slay_giant", giant),
                   ("ev_slay_fury_shift", shift), ("ev_island", island), ("ev_favor", favor)):
        x = x.astype(np.float64)
        out[key] = float(x.mean())
        out[key + "_se"] = float(x.std(ddof=1) / math.sqrt(n))
    return out


def odds(options: dict) -> dict:
    """``GameSpec.odds``: Level A's exact expected VP per action under the ``params`` option."""
    return exact(Rules(**options).p)
