"""Ravenfeast ``mode=duel`` (rules notes ravenfeast.md §12.5): two figures in melee until one or
both are removed; exact odds by a Markov chain.

Files: ``rules.py`` (the ``a_*``/``b_*`` figure options and the compiled :class:`DuelSetup`),
``kernel.py`` (numba kernel), ``reference.py`` (plain-Python oracle, bit-identical, and the
trace), ``exact.py`` (exact odds). This module gives the package dispatcher the functions every
mode module exports: ``setup``, ``allocate``, ``play_block``, ``reference_block``, ``frame``,
``tally``, ``summarize``, ``summary``, ``trace``, ``invariants``.
"""
from __future__ import annotations

import numpy as np

from vikingsim.core.errors import InputError
from vikingsim.core.results import outcome_frame
from vikingsim.core.stats import histogram, put_fraction, put_mean_hist
from vikingsim.games.ravenfeast.duel.kernel import OUT_DTYPES, allocate, play_block
from vikingsim.games.ravenfeast.duel.reference import reference_block, trace
from vikingsim.games.ravenfeast.duel.rules import DuelSetup, setup_from_options
from vikingsim.games.ravenfeast.rules import OUTCOMES, Outcome, Rules, from_options

#: Summary keys of the outcome fractions; ``p_both_die`` (the duel's own name for a draw) is
#: kept beside ``p_draw``.
_FRACTIONS = (("p_a_win", Outcome.A_WIN), ("p_b_win", Outcome.B_WIN),
              ("p_both_die", Outcome.DRAW), ("p_draw", Outcome.DRAW),
              ("p_truncated", Outcome.TRUNCATED))


#: Policies a duel seat may play: ``default`` (the stance its options give) and ``optimal``
#: (the pure maximin stance, ``duel/optimal.py``, §12.7).
DUEL_POLICIES = ("default", "optimal")


def _seat_policy(text: str):
    """One seat's policy label -> None (``default``) or its ``OptimalPolicy``."""
    from vikingsim.core import policies as core_policies
    from vikingsim.games.ravenfeast.duel.optimal import OptimalPolicy

    name, _ = core_policies.parse(text)
    if name not in DUEL_POLICIES:
        raise InputError(f"mode=duel: policy {name} not allowed; allowed: "
                         f"{', '.join(DUEL_POLICIES)}")
    if name == "default":
        return None
    return core_policies.build("ravenfeast", {"optimal": OptimalPolicy}, text)


def setup(options: dict, policies: list, players: int) -> DuelSetup:
    """The compiled duel of resolved options; seat 0 is figure A, seat 1 figure B. A seat
    playing ``optimal`` picks its stance by the exact matrix game (``duel/optimal.py``)."""
    pols = list(policies) if len(policies) == 2 else list(policies[:1]) * 2
    seats = [_seat_policy(p) for p in pols] if pols else [None, None]
    base = setup_from_options(options, from_options(Rules, options))
    if all(p is None for p in seats):
        return base
    from vikingsim.games.ravenfeast.duel.optimal import play_optimal
    return play_optimal(base, seats)


def frame(setup: DuelSetup, out: dict) -> pd.DataFrame:
    """One row per duel: game_id, outcome name, truncated, turns, wounds left, Raven tokens."""
    return outcome_frame(out, OUTCOMES, Outcome.TRUNCATED)


def tally(setup: DuelSetup, out: dict) -> dict:
    """Additive reduction of a segment's duels (``core.results.add_tallies``)."""
    return {"outcome": np.bincount(out["outcome"].astype(np.int64), minlength=len(Outcome)),
            "turns_hist": histogram(out["turns"])}


def summarize(setup: DuelSetup, t: dict, n: int) -> dict:
    """Fractions of all n duels with Wilson 95% intervals; mean_turns with a normal interval
    (truncated duels count max_turns turns)."""
    s = {}
    for key, oc in _FRACTIONS:
        put_fraction(s, key, int(t["outcome"][oc]), n)
    put_mean_hist(s, "mean_turns", t["turns_hist"])
    s["a"], s["b"] = setup.names
    if any(setup.chosen):                                   # §12.7 the optimal seats' stances
        s["a_chosen"], s["b_chosen"] = (c or "(default policy)" for c in setup.chosen)
    return s


def summary(setup: DuelSetup, out: dict) -> dict:
    return summarize(setup, tally(setup, out), len(out["outcome"]))


def invariants(setup: DuelSetup, out: dict) -> list[str]:
    """Violations of the duel's invariants in per-duel arrays ``out`` (empty when sound):
    wounds left within [0, start] (never healed), 1 <= turns <= max_turns, the outcome read
    off the wounds left (§7.1, §6.5), truncation only at the cap, no Raven token without the
    §6.4 Free Attack."""
    wa, wb = out["a_wounds_left"].astype(np.int64), out["b_wounds_left"].astype(np.int64)
    oc, t = out["outcome"], out["turns"]
    checks = {
        "wounds left negative": (wa < 0) | (wb < 0),
        "wounds left above the start (healed)": (wa > setup.wounds[0]) | (wb > setup.wounds[1]),
        "turns outside [1, max_turns]": (t < 1) | (t > setup.max_turns),
        "a_win without A standing and B removed": (oc == Outcome.A_WIN) != ((wa > 0) & (wb == 0)),
        "b_win without B standing and A removed": (oc == Outcome.B_WIN) != ((wa == 0) & (wb > 0)),
        "draw without both removed": (oc == Outcome.DRAW) != ((wa == 0) & (wb == 0)),
        "truncated without both standing": (oc == Outcome.TRUNCATED) != ((wa > 0) & (wb > 0)),
        "truncated before max_turns": (oc == Outcome.TRUNCATED) & (t != setup.max_turns),
    }
    if not setup.free_attack:
        ravens = (out["a_ravens"] > 0) | (out["b_ravens"] > 0)
        checks["Raven token without the Free Attack"] = ravens
    return [f"{what}: {int(bad.sum())} duel(s), first game {int(np.argmax(bad))}"
            for what, bad in checks.items() if bad.any()]


__all__ = ["OUT_DTYPES", "allocate", "frame", "invariants", "play_block", "reference_block",
           "setup", "summarize", "summary", "tally", "trace"]
