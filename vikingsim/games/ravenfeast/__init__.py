"""Ravenfeast (Viking Age skirmish rules; rules notes ``ravenfeast.md``): duels, warband melees
and scenarios.

Three modes, played by two mode packages with the same named functions (``setup``,
``allocate``, ``play_block``, ``reference_block``, ``frame``, ``tally``, ``summarize``,
``summary``, ``trace``, ``invariants``): ``mode=duel`` by :mod:`.duel` (two figures in melee,
§12.5, with exact odds), ``mode=warband`` (§12.6) and ``mode=scenario`` (Fight for Honor,
§10.7) by :mod:`.warband`. This module dispatches through the table :data:`MODE_MODULES`.
Shared by both: ``rules.py`` (``Rules``, ``Stance``, the outcome vocabulary), ``profiles.py``
(unit profiles), ``warbands.py`` (warband lists), ``options.py`` (the option table).

Examples
--------
>>> from vikingsim.core.runner import simulate
>>> r = simulate("ravenfeast", n=10_000, seed=1, options={"a": "jarl", "b": "berserker"})
>>> r.summary["p_a_win"]                      # doctest: +SKIP
>>> from vikingsim.games.ravenfeast import odds
>>> odds({"a": "jarl", "b": "berserker"})["p_a_win"]   # doctest: +SKIP
"""
from __future__ import annotations

from typing import Any, NamedTuple

from vikingsim.core.errors import InputError
from vikingsim.core.game import GameSpec
from vikingsim.core.options import resolve
from vikingsim.games.ravenfeast import duel, warband, warbands
from vikingsim.games.ravenfeast.duel.exact import odds_of
from vikingsim.games.ravenfeast.duel.optimal import OptimalPolicy
from vikingsim.games.ravenfeast.duel.rules import DuelSetup
from vikingsim.games.ravenfeast.options import (MODES, OPTION_MODES, OPTIONS, SIDE_DEFAULTS,
                                                full_options, warn_inapplicable, with_sides)
from vikingsim.games.ravenfeast.profiles import (PREDEFINED, PROFILE_NAMES, PROFILES, Profile,
                                                 Stat, compile_profile, compile_profiles,
                                                 get_profile, price, wounds_for)
from vikingsim.games.ravenfeast.rules import (BLOCK_GAMES, OUTCOMES, RULES_VERSION, Outcome,
                                              Rules, Stance)
from vikingsim.games.ravenfeast.warband.policies import POLICY_HELP, POLICY_TYPES
from vikingsim.games.ravenfeast.warband.rules import WarbandSetup

#: mode -> the module that plays it.
MODE_MODULES = {"duel": duel, "warband": warband, "scenario": warband}


class ModeSetup(NamedTuple):
    """What ``setup`` returns: the mode and its module's compiled setup."""

    mode: str
    inner: Any


def setup(options: dict, policies: list, players: int) -> ModeSetup:
    """Validate resolved options and compile the chosen mode (warns about options the mode
    ignores)."""
    options = with_sides(options)
    warn_inapplicable(options)
    mode = options["mode"]
    return ModeSetup(mode, MODE_MODULES[mode].setup(options, policies, players))


def allocate(s: ModeSetup, n_games: int) -> dict:
    return MODE_MODULES[s.mode].allocate(s.inner, n_games)


def play_block(s: ModeSetup, g0, g1, dice_rng, pol_rng, out) -> None:
    MODE_MODULES[s.mode].play_block(s.inner, g0, g1, dice_rng, pol_rng, out)


def reference_block(s: ModeSetup, g0, g1, dice_rng, pol_rng, out) -> None:
    MODE_MODULES[s.mode].reference_block(s.inner, g0, g1, dice_rng, pol_rng, out)


def frame(s: ModeSetup, out: dict):
    return MODE_MODULES[s.mode].frame(s.inner, out)


def summary(s: ModeSetup, out: dict) -> dict:
    return MODE_MODULES[s.mode].summary(s.inner, out)


def tally(s: ModeSetup, out: dict) -> dict:
    return MODE_MODULES[s.mode].tally(s.inner, out)


def summarize(s: ModeSetup, t: dict, n: int) -> dict:
    return MODE_MODULES[s.mode].summarize(s.inner, t, n)


def trace(s: ModeSetup, seed: int, game_id: int = 0) -> str:
    """Game ``game_id`` of a run with root ``seed``, told in words."""
    return MODE_MODULES[s.mode].trace(s.inner, seed, game_id)


def invariants(s: ModeSetup, out: dict) -> list[str]:
    """Violations of the mode's invariants in per-game arrays ``out`` (empty when sound)."""
    return MODE_MODULES[s.mode].invariants(s.inner, out)


def duel_setup(options: dict | None = None) -> DuelSetup:
    """The compiled duel of (possibly partial) options; defaults as in ``OPTIONS``."""
    return duel.setup(full_options({**(options or {}), "mode": "duel"}), ["default"], 2)


def warband_setup(options: dict | None = None, policies=("default", "default")) -> WarbandSetup:
    """The compiled battle of (possibly partial) options (``mode`` defaults to warband) and
    one policy text per seat."""
    return warband.setup(full_options({"mode": "warband", **(options or {})}), list(policies), 2)


def odds(options: dict) -> dict:
    """Exact duel odds (``duel/exact.py``); same keys as the duel summary (intervals [p, p])."""
    opts = resolve("ravenfeast", OPTIONS, options)          # unknown names raise InputError
    if opts["mode"] != "duel":
        raise InputError(f"odds: exact odds exist for mode=duel only, got mode={opts['mode']}")
    opts = with_sides(opts)
    warn_inapplicable(opts)                                 # e.g. wall_ranks in a duel
    return odds_of(duel.setup(opts, ["default"], 2))


def duel_game(options: dict | None = None, policies=("optimal", "default")):
    """The duel's matrix game (``duel/optimal.py``, §12.7) for (possibly partial) options and
    one policy text per seat (``default`` or ``optimal(choose=..., objective=...)``)."""
    from vikingsim.games.ravenfeast.duel import _seat_policy
    from vikingsim.games.ravenfeast.duel.optimal import solve_game

    base = duel_setup(options)
    return solve_game(base, [_seat_policy(p) for p in policies])


POLICIES = {
    "default": "duel: the stance the options give; warband: the DEFAULT policy (§12.6)",
    **{k: v for k, v in POLICY_HELP.items() if k != "default"},
    "optimal": "duel only: the pure maximin stance over the flags in choose (exact matrix "
               "game, §12.7): optimal(choose=shield_wall+foe_rear, objective=score|win)",
}

GAME = GameSpec(
    name="ravenfeast",
    title="Ravenfeast",
    summary_line="Viking Age skirmish: melee duels (exact odds), warband melees, scenarios",
    options=OPTIONS,
    policies=POLICIES,
    default_policy="default",
    players=(2, 2, 2),
    setup=setup,
    allocate=allocate,
    play_block=play_block,
    reference_block=reference_block,
    frame=frame,
    summary=summary,
    tally=tally,
    summarize=summarize,
    odds=odds,
    trace=trace,
    rules_version=RULES_VERSION,
    outcomes=OUTCOMES,
    policy_types={**POLICY_TYPES, "optimal": OptimalPolicy},
    invariants=invariants,
    bench_options={"mode": "duel", "a": "jarl", "b": "berserker"},
    bench_configs=({"mode": "duel", "a": "jarl", "b": "berserker"},
                   {"mode": "warband", "a": "hirdmen10", "b": "hirdmen10"},
                   {"mode": "scenario", "a": "fight_for_honor", "b": "fight_for_honor"}),
    block_games=BLOCK_GAMES,   # fast kernel: big RNG blocks keep per-block overhead small
    help_text=warbands.describe_presets_and_format(),
)

__all__ = ["GAME", "MODES", "MODE_MODULES", "OPTIONS", "OPTION_MODES", "Outcome", "PREDEFINED",
           "PROFILES", "PROFILE_NAMES", "Profile", "Rules", "SIDE_DEFAULTS", "Stance", "Stat",
           "compile_profile", "compile_profiles", "duel_game", "duel_setup", "get_profile", "invariants",
           "odds", "price", "warband_setup", "warn_inapplicable", "wounds_for"]
