"""Ravenfeast ``mode=warband`` and ``mode=scenario`` (rules notes ravenfeast.md §12.6, §10.7):
two warbands (``ravenfeast/warbands.py``) fight a non-spatial melee to the end; the scenario
mode plays Fight for Honor (the Jarls duel first).

Files: ``rules.py`` (``WarbandRules`` and the compiled ``WarbandSetup``), ``policies.py`` (the
seats' policies as data), ``kernel.py`` (numba kernel), ``reference.py`` (plain-Python oracle,
bit-identical, and the trace). This module gives the package dispatcher the functions every
mode module exports: ``setup``, ``allocate``, ``play_block``, ``reference_block``, ``frame``,
``tally``, ``summarize``, ``summary``, ``trace``, ``invariants``.
"""
from __future__ import annotations

import numpy as np

from vikingsim.core.errors import InputError
from vikingsim.core.results import outcome_frame
from vikingsim.core.stats import histogram, put_fraction, put_mean_hist
from vikingsim.games.ravenfeast.rules import OUTCOMES, Outcome, Rules, from_options
from vikingsim.games.ravenfeast.warband.kernel import OUT_DTYPES, allocate, play_block
from vikingsim.games.ravenfeast.warband.reference import reference_block, trace
from vikingsim.games.ravenfeast.warband.rules import (FigCol, WarbandRules, WarbandSetup,
                                                      compile_setup)

_MEANS = (("mean_turns", "turns"), ("mean_survivors_a", "a_survivors"),
          ("mean_survivors_b", "b_survivors"), ("mean_thralls_a", "a_thralls"),
          ("mean_thralls_b", "b_thralls"))
_DUEL = (("p_duel_a", Outcome.A_WIN), ("p_duel_b", Outcome.B_WIN),
         ("p_duel_both", Outcome.DRAW))


def rules_of(options: dict) -> tuple[Rules, WarbandRules]:
    """Both rules objects of resolved options; ``mode=scenario`` plays ``options["scenario"]``
    with no approach turns (§10.7: the Jarls duel at once)."""
    fixed = {"scenario": ""}
    if options["mode"] == "scenario":
        fixed = {"scenario": options["scenario"], "approach_turns": 0}
    return from_options(Rules, options), from_options(WarbandRules, options, **fixed)


def setup(options: dict, policies: list, players: int) -> WarbandSetup:
    """The compiled battle of resolved options: seat 0 plays warband ``a``, seat 1 warband
    ``b``; each policy is a text of ``policies.parse_policy`` (one for both seats allowed)."""
    if players != 2:
        raise InputError(f"ravenfeast warband battles take 2 players, got {players}")
    pols = list(policies) if len(policies) == 2 else [policies[0]] * 2
    duel_only = [p for p in pols if str(p).split("(")[0].strip() == "optimal"]
    if duel_only:
        raise InputError(f"policy {duel_only[0]} is a duel policy (mode=duel, §12.7); "
                         f"mode={options['mode']} takes the warband policies")
    rules, wrules = rules_of(options)
    return compile_setup(options["a"], options["b"], rules, wrules, tuple(pols))


def frame(setup: WarbandSetup, out: dict) -> pd.DataFrame:
    """One row per battle: game_id, outcome name, truncated, turns, per-side counts."""
    return outcome_frame(out, OUTCOMES, Outcome.TRUNCATED)


def tally(setup: WarbandSetup, out: dict) -> dict:
    """Additive reduction of a segment's battles (``core.results.add_tallies``)."""
    d = out["duel_result"]
    return {"outcome": np.bincount(out["outcome"].astype(np.int64), minlength=len(Outcome)),
            **{f"{col}_hist": histogram(out[col]) for _, col in _MEANS},
            "general_melee": np.array([int(out["general_melee"].sum())]),
            "duel_result": np.array([int((d == code).sum()) for _, code in _DUEL])}


def summarize(setup: WarbandSetup, t: dict, n: int) -> dict:
    """p_a_win, p_b_win, p_draw, p_truncated (fractions of all n, Wilson 95 %) and means with
    normal 95 % intervals; scenario runs add p_general_melee and the duel's results."""
    s = {"n": n}
    for o in Outcome:
        put_fraction(s, f"p_{o.name.lower()}", int(t["outcome"][o]), n)
    for key, col in _MEANS:
        put_mean_hist(s, key, t[f"{col}_hist"])
    if setup.wrules.scenario:
        put_fraction(s, "p_general_melee", int(t["general_melee"][0]), n)
        for k, (key, _) in enumerate(_DUEL):
            put_fraction(s, key, int(t["duel_result"][k]), n)
    s["a"], s["b"] = setup.names
    s["policies"] = list(setup.policies)
    return s


def summary(setup: WarbandSetup, out: dict) -> dict:
    return summarize(setup, tally(setup, out), len(out["outcome"]))


def _fighters_left(setup: WarbandSetup, out: dict, side: str) -> np.ndarray:
    """Figures able to fight at the end (§12.6; fled Cowards count with end_rule no_figures)."""
    alive = out[f"{side}_survivors"].astype(np.int64)
    return alive if setup.wrules.end_rule == "no_figures" else alive - out[f"{side}_fled"]


def _won(setup: WarbandSetup, fight, held, geld, side: int) -> np.ndarray:
    """Per battle, whether ``side`` (0/1) may win: by §12.6 (fighters left against none), or in
    a tie by §10.6 (more captives held, reading tiebreak) or §10.1 (more Geld,
    geld_breaks_ties)."""
    me, you = side, 1 - side
    w = setup.wrules
    tie = (fight[0] == 0) & (fight[1] == 0)
    by_thralls = (w.thrall_victory == "tiebreak") & (held[me] > held[you])
    same_held = (w.thrall_victory != "tiebreak") | (held[me] == held[you])
    by_geld = w.geld_breaks_ties & same_held & (geld[me] > geld[you])
    return ((fight[me] > 0) & (fight[you] == 0)) | (tie & (by_thralls | by_geld))


def invariants(setup: WarbandSetup, out: dict) -> list[str]:
    """Violations of the warband invariants in per-battle arrays ``out`` (empty when sound):
    counts within the warbands' sizes, fled among the survivors, captives only Thralls,
    1 <= turns <= max_turns with truncation only at the cap, and every outcome the victory rule
    gives (§12.6 fighters, §10.6 Thralls held, §10.1 Geld); in Fight for Honor a battle decided
    by the Jarls' duel (no general melee) has the duel's result."""
    n, thralls = setup.nfig, setup.fig[:, :, FigCol.THRALL].sum(axis=1)
    oc, t, cap = out["outcome"], out["turns"], setup.rules.max_turns
    surv = (out["a_survivors"].astype(np.int64), out["b_survivors"].astype(np.int64))
    fled = (out["a_fled"].astype(np.int64), out["b_fled"].astype(np.int64))
    fight = (_fighters_left(setup, out, "a"), _fighters_left(setup, out, "b"))
    held = (out["a_thralls"].astype(np.int64), out["b_thralls"].astype(np.int64))
    geld = (out["a_geld"].astype(np.int64), out["b_geld"].astype(np.int64))
    won = [_won(setup, fight, held, geld, side) for side in (0, 1)]
    truncated = oc == Outcome.TRUNCATED
    by_duel = (out["general_melee"] == 0) & ~truncated
    by_rule = ~by_duel & ~truncated
    checks = {
        "survivors outside [0, warband size]": ((surv[0] < 0) | (surv[0] > n[0]) | (surv[1] < 0)
                                                | (surv[1] > n[1])),
        "more fled than survivors": (fled[0] > surv[0]) | (fled[1] > surv[1]),
        "captives that are no Thralls": (held[0] > thralls[1]) | (held[1] > thralls[0]),
        "turns outside [1, max_turns]": (t < 1) | (t > cap),
        "truncated before max_turns": truncated & (t != cap),
        "a_win against the victory rule": by_rule & (oc == Outcome.A_WIN) & ~won[0],
        "b_win against the victory rule": by_rule & (oc == Outcome.B_WIN) & ~won[1],
        "draw against the victory rule": by_rule & (oc == Outcome.DRAW) & (
            won[0] | won[1] | (fight[0] > 0) | (fight[1] > 0)),
        "decided by the Jarls' duel but not its result": by_duel & (oc != out["duel_result"]),
    }
    return [f"{what}: {int(bad.sum())} battle(s), first game {int(np.argmax(bad))}"
            for what, bad in checks.items() if bad.any()]


__all__ = ["OUT_DTYPES", "WarbandRules", "WarbandSetup", "allocate", "compile_setup", "frame",
           "invariants", "play_block", "reference_block", "rules_of", "setup", "summarize",
           "summary", "tally", "trace"]
