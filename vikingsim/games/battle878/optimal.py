"""Exact best play in one 878 battle (issue 21 §3): the maximin value of each side.

Two zero-sum games, one per side (878 §5): in the Viking game the Vikings maximise P(Viking
success) and the English minimise it; in the English game the roles swap. *Success* for the
Vikings is the outcome ``vikings_win`` or ``english_retreat`` (the Vikings hold the shire); for
the English ``english_win``, ``vikings_retreat`` or ``gods_peace``. ``both_eliminated`` is
success for nobody, so the two guarantees add up to 1 - P(both eliminated).

**Without Runes and Prayer** the only choice a side has besides hit assignment is a Command
retreat (878 §2.3, §5): after its own roll, each Command may move one of its units out (Linen
Clothes: two; Fyrd only with ``command_moves_fyrd``; none under Foul Weather, whose Commands are
banked). ``retreat_check`` proves from the exact solver's own value table (``exact._solve``, the
default policy: never retreat) that no retreat ever pays: at every state after a roll, removing
one more of the roller's units never raises the roller's success and never lowers the other
side's. Removing k units is k such single steps, so "never retreat" satisfies the Bellman
equation of both games at every decision point, and (every battle ending with probability 1
whatever is retreated, units only decreasing) the default value *is* the maximin value of each
game. ``retreat_check`` returns the largest gain found; a gain above ``GAIN_TOL`` somewhere means
this proof does not apply and ``optimal`` says so (InputError) instead of reporting a value.

**With Runes and Prayer** see ``runes_prayer_dp`` (the decisions it optimises are listed there
and in docs/rules/battle878.md §5.2).
"""
from __future__ import annotations

import numpy as np

from vikingsim.core.errors import InputError

#: a retreat "pays" when it raises a side's success chance by more than this (float rounding of
#: the solver's sums is ~1e-15)
GAIN_TOL = 1e-12

# value-table axes of exact._solve: (n, b, L, h, t, f, bank, pend, nu, side, key)
_AX_N, _AX_B, _AX_H, _AX_T, _AX_F = 0, 1, 3, 4, 5
_SIDE_AX = 9


def _step_gain(val: np.ndarray, axis: int, side_next: int, key: int, sign: float) -> float:
    """Largest ``sign * (val[unit - 1] - val[unit])`` along unit ``axis``, over states where
    ``side_next`` rolls next (i.e. just after the other side's roll, where it may retreat), for
    outcome ``key``. sign +1: the retreating side's own success (a gain if removing a unit
    raises it); -1: the other side's success (a gain for the retreating minimiser if it drops)."""
    if val.shape[axis] < 2:
        return -np.inf
    v = np.take(val[..., key], side_next, axis=_SIDE_AX)
    lo = np.take(v, np.arange(val.shape[axis] - 1), axis=axis)
    hi = np.take(v, np.arange(1, val.shape[axis]), axis=axis)
    return float(np.max(sign * (lo - hi)))


def retreat_check(val: np.ndarray, command_moves_fyrd: bool) -> dict:
    """Largest gain of one retreated unit in each game, from a value table of ``exact._solve``.

    Returns ``{"vikings_game": g1, "english_game": g2}``: the most one Command retreat (of
    either side, any unit type it may move) raises the retreater's objective in that game.
    Both <= ``GAIN_TOL`` proves "never retreat" optimal for both sides in both games.
    """
    from vikingsim.games.battle878.exact import _K_ENG, _K_VIK

    # after a Viking roll the English roll next (side 1): the Vikings may retreat N or B
    # (the Fort/Settlement never moves, SEED §1.4); after an English roll (side 0) the English
    # may retreat H, T (and F with command_moves_fyrd, 878 §2.3)
    eng_axes = (_AX_H, _AX_T) + ((_AX_F,) if command_moves_fyrd else ())
    vik = [_step_gain(val, a, 1, _K_VIK, +1.0) for a in (_AX_N, _AX_B)]      # Vikings max
    vik += [_step_gain(val, a, 0, _K_VIK, -1.0) for a in eng_axes]          # English min
    eng = [_step_gain(val, a, 0, _K_ENG, +1.0) for a in eng_axes]           # English max
    eng += [_step_gain(val, a, 1, _K_ENG, -1.0) for a in (_AX_N, _AX_B)]    # Vikings min
    return {"vikings_game": max(vik), "english_game": max(eng)}


def _tables(spec):
    """Value tables of ``exact._solve`` for each Raven Banner case (the mixture ``solve``
    averages); the Fyrd-draw mixture shares one table."""
    from vikingsim.games.battle878 import exact as X

    N0, B0, L0, H0, T0, F0 = spec.units
    Fmax = F0 + max(spec.fyrd_extra)
    vtab, etab = X._dice_tables(spec)
    for mode, w in spec.raven.items():
        if w <= 0.0:
            continue
        flags = spec.flags.copy()
        flags[X._P_RAVEN] = mode
        yield X._solve(N0, B0, L0, H0, T0, Fmax, int(spec.flags[X._P_VALH]), flags,
                       spec.max_dice, vtab, etab)[0]


def optimal_no_runes(rules) -> dict:
    """Maximin value of each game without Runes and Prayer (module docstring): the solver's
    default value, after ``retreat_check`` shows no retreat pays. InputError otherwise."""
    from vikingsim.games.battle878 import exact as X

    spec = X.spec_from_rules(rules)
    base = X.odds(rules)                      # also checks the truncation bound
    gains = {"vikings_game": -np.inf, "english_game": -np.inf}
    if not spec.flags[X._P_FOUL]:             # Foul Weather: Commands banked, no retreat
        for val in _tables(spec):
            g = retreat_check(val, rules.command_moves_fyrd)
            gains = {k: max(gains[k], g[k]) for k in gains}
    worst = max(gains.values())
    if worst > GAIN_TOL:
        raise InputError(f"a Command retreat pays in this battle (up to {worst:.3g}); the "
                         "retreat maximin for it is not built (see docs/battle878-exact-solver.md)")
    return {
        "vikings_guarantee": base["p_vikings_win"],      # + p_english_retreat = 0
        "english_guarantee": base["p_english_win"],      # + p_vikings_retreat + p_gods_peace
        "p_both_eliminated": base["p_both_eliminated"],
        "retreat_gain_vikings_game": float(max(gains["vikings_game"], 0.0)),
        "retreat_gain_english_game": float(max(gains["english_game"], 0.0)),
        "optimised": "Command retreats (never pays: the default policy is optimal)",
    }


def optimal(rules) -> dict:
    """Dispatch: ``optimal_no_runes`` without Runes and Prayer, else the DP of
    ``optimal_rp`` (its decision set: that module's docstring)."""
    if rules.runes_prayer:
        from vikingsim.games.battle878.optimal_rp import optimal_rp
        return optimal_rp(rules)
    return optimal_no_runes(rules)
