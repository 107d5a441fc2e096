"""Ravenfeast (Viking Age skirmish rules; rules notes ``ravenfeast.md``): duels, warband melees
and scenarios.

``mode=duel`` (this package: ``duel.py``, ``duel_reference.py``, ``exact.py``) plays two figures
in melee (§12.5). ``mode=warband`` / ``mode=scenario`` are delegated to ``warband.py`` (and
``warband_reference.py``), imported lazily: until it exists they raise InputError.

Hooks to the warband module (all optional, looked up by name):
``OPTIONS`` or ``WARBAND_OPTIONS`` (extra options; names owned here win), ``POLICIES`` or
``WARBAND_POLICIES`` (extra policy names), and the functions ``setup``, ``allocate``,
``play_block``, ``frame``, ``summary``, ``trace``, ``reference_block`` (the latter also in
``warband_reference.py``), each under its plain name or with a ``_warband`` suffix.

Examples
--------
>>> from vikingsim.core.runner import simulate
>>> r = simulate("ravenfeast", n=10_000, seed=1, options={"a": "jarl", "b": "berserker"})
>>> r.summary["p_a_win"]                      # doctest: +SKIP
>>> from vikingsim.games.ravenfeast import odds
>>> odds({"a": "jarl", "b": "berserker"})["p_a_win"]   # doctest: +SKIP
"""
from __future__ import annotations

import importlib
import inspect
from typing import Any, NamedTuple

from vikingsim.core.errors import InputError, warn
from vikingsim.core.game import GameSpec
from vikingsim.core.options import Option
from vikingsim.games.ravenfeast import duel, duel_reference, warbands
from vikingsim.games.ravenfeast.profiles import (PREDEFINED, PROFILE_NAMES, PROFILES, Profile,
                                                 Stat, compile_profile, compile_profiles,
                                                 get_profile, price, wounds_for)
from vikingsim.games.ravenfeast.rules import Outcome, Rules, Stance

MODES = ("duel", "warband", "scenario")
_TRI = ("profile", "true", "false")   # per-figure trait override: keep / force on / force off


def _figure_options(side: str) -> tuple[Option, ...]:
    who = side.upper()
    return (
        Option(f"{side}_attacks", "int", -1, f"duel: attacks of figure {who} (-1 = profile)", -1, 20),
        Option(f"{side}_melee", "int", -1, f"duel: Melee of figure {who} (-1 = profile)", -1, 5),
        Option(f"{side}_armor", "int", -1, f"duel: Armor of figure {who} (-1 = profile)", -1, 5),
        Option(f"{side}_wounds", "int", -1,
               f"duel: wounds of figure {who}, bypassing tough_reading (-1 = profile)", -1, 50),
        Option(f"{side}_mighty", "choice", "profile",
               f"duel: Mighty for figure {who} (§6.2)", choices=_TRI),
        Option(f"{side}_fated", "choice", "profile",
               f"duel: Fated for figure {who} (§10.3)", choices=_TRI),
        Option(f"{side}_rear", "bool", False,
               f"duel: figure {who} is attacked from the rear (Armor -1, no wall bonus; §6.2)"),
        Option(f"{side}_shield_wall", "bool", False,
               f"duel: figure {who} stands in a shield wall (+2 Armor max 5; §8.3)"),
        Option(f"{side}_outnumbered", "bool", False,
               f"duel: figure {who} is engaged by several enemies (Melee -1 unless in a wall; §6.2)"),
        Option(f"{side}_uphill", "bool", False,
               f"duel: figure {who} attacks across an obstacle or uphill (Melee -1; §6.2)"),
    )


#: What ``a=auto`` / ``b=auto`` mean in each mode: the issue's duel (Jarl v Berserker), a
#: ten-against-ten warband melee, and the Fight for Honor scenario's warbands.
SIDE_DEFAULTS = {"duel": ("jarl", "berserker"), "warband": ("hirdmen10", "hirdmen10"),
                 "scenario": ("fight_for_honor", "fight_for_honor")}


def _with_sides(options: dict) -> dict:
    """Options with ``a``/``b`` = "auto" replaced by the mode's default sides."""
    mode = options.get("mode", "duel")
    out = dict(options)
    for i, side in enumerate(("a", "b")):
        if out.get(side, "auto") == "auto":
            out[side] = SIDE_DEFAULTS[mode][i]
    return out


OPTIONS: tuple[Option, ...] = (
    Option("mode", "choice", "duel", "duel (§12.5), warband (§12.6) or scenario (§10.7)",
           choices=MODES),
    Option("a", "str", "auto",
           "side A: duel: a unit type (" + ", ".join(PROFILE_NAMES) + "); "
           "warband/scenario: a preset, type list (jarl+hirdmen*5) or .toml path (warbands.py); "
           "auto = " + ", ".join(f"{v[0]} ({k})" for k, v in SIDE_DEFAULTS.items())),
    Option("b", "str", "auto", "side B: as for a; auto = "
           + ", ".join(f"{v[1]} ({k})" for k, v in SIDE_DEFAULTS.items())),
    *_figure_options("a"),
    *_figure_options("b"),
    Option("free_attack", "bool", True, "§6.4 Free Attack (Death Worthy of a Song) in play"),
    Option("free_attack_trigger", "choice", "armor_six",
           "§6.4 trigger: hit roll 1 and Armor roll 6 (armor_six) or any failed save",
           choices=("armor_six", "failed_save")),
    Option("mighty_armor_mod", "int", 1, "§6.2 Mighty: target Armor minus this", 0, 5),
    Option("tough_reading", "choice", "total_wounds",
           "§7.2/§13.1: Tough (N) = N wounds in all, or N beyond the first",
           choices=("total_wounds", "extra_wounds")),
    Option("rating_clamp", "bool", True, "§2.2: clamp modified ratings to 0..5"),
    Option("shield_wall_cap", "choice", "before_mighty",
           "assumption: wall max-5 cap before or after Mighty's -1",
           choices=("before_mighty", "after_mighty")),
    Option("fated_armor_roll", "bool", False,
           "§10.3: a Fated death-stroke allows an Armor roll (DEFAULT no, as §4.4)"),
    Option("max_turns", "int", 50, "§12.6 safety cap; longer fights are reported truncated",
           1, 30_000),
)


#: Modes each option applies to (data, not scattered ifs). Options owned here: the sides and
#: the shared Rules readings apply to every mode, the per-figure stances and overrides to the
#: duel only; the warband module's own options come from its ``WARBAND_OPTION_MODES``.
#: ``setup`` warns when an option differs from its default in a mode it does not apply to.
OPTION_MODES: dict[str, tuple[str, ...]] = {
    **{o.name: MODES for o in OPTIONS},
    **{o.name: ("duel",) for o in _figure_options("a") + _figure_options("b")},
}


def _option_modes() -> dict[str, tuple[str, ...]]:
    """OPTION_MODES plus the warband module's entries (names owned here win)."""
    extra = getattr(_warband_module(), "WARBAND_OPTION_MODES", {})
    return {**{k: v for k, v in extra.items() if k not in OPTION_MODES}, **OPTION_MODES}


def warn_inapplicable(options: dict) -> list[str]:
    """One ``vikingsim: warning:`` line on stderr per option set to a non-default value that does
    not apply to ``options["mode"]``; returns the names warned about. ``options`` are resolved
    (defaults filled in), so "set by the user" is read as "differs from its default"."""
    mode = options.get("mode", "duel")
    modes = _option_modes()
    names = []
    for o in GAME.options:
        value = options.get(o.name, o.default)
        applies = modes.get(o.name, MODES)
        if value != o.default and mode not in applies:
            warn(f"option {o.name}={value!r} does not apply to mode={mode} (only to "
                 f"mode={'/'.join(applies)}); ignored")
            names.append(o.name)
    return names


def _extra_options() -> tuple[Option, ...]:
    """Options declared by ``warband.py`` (``OPTIONS`` or ``WARBAND_OPTIONS``), if it exists,
    minus the names this module owns (``mode``, ``a``, ``b``, the Rules options, ...)."""
    mod = _warband_module()
    extra = getattr(mod, "OPTIONS", None) or getattr(mod, "WARBAND_OPTIONS", ())
    have = {o.name for o in OPTIONS}
    return tuple(o for o in extra if o.name not in have)


def rules_from_options(options: dict) -> Rules:
    """The :class:`Rules` of a resolved options dict (unknown keys ignored)."""
    return Rules(free_attack=options.get("free_attack", True),
                 free_attack_trigger=options.get("free_attack_trigger", "armor_six"),
                 mighty_armor_mod=options.get("mighty_armor_mod", 1),
                 tough_reading=options.get("tough_reading", "total_wounds"),
                 rating_clamp=options.get("rating_clamp", True),
                 shield_wall_cap=options.get("shield_wall_cap", "before_mighty"),
                 fated_armor_roll=options.get("fated_armor_roll", False),
                 max_turns=options.get("max_turns", 50))


def _overrides(options: dict, side: str) -> dict:
    o = {}
    for k in ("attacks", "melee", "armor", "wounds"):
        v = options.get(f"{side}_{k}", -1)
        if v is not None and v >= 0:
            if k == "wounds" and v == 0:
                raise InputError(f"{side}_wounds=0: a figure needs at least 1 wound (or -1)")
            o[k] = v
    for k in ("mighty", "fated"):
        v = options.get(f"{side}_{k}", "profile")
        if v != "profile":
            o[k] = v == "true"
    return o


def _stance(options: dict, side: str) -> Stance:
    return Stance(rear=bool(options.get(f"{side}_rear", False)),
                  shield_wall=bool(options.get(f"{side}_shield_wall", False)),
                  outnumbered=bool(options.get(f"{side}_outnumbered", False)),
                  uphill=bool(options.get(f"{side}_uphill", False)))


def duel_setup(options: dict) -> duel.DuelSetup:
    """Validated, compiled duel from (possibly partial) options; defaults as in ``OPTIONS``."""
    full = {o.name: o.default for o in OPTIONS}
    full.update(options or {})
    full = _with_sides(full)
    rules = rules_from_options(full)
    rows, names = [], []
    for side in ("a", "b"):
        p = get_profile(full[side])
        rows.append(compile_profile(p, _overrides(full, side), tough_reading=rules.tough_reading))
        names.append(p.name)
    if names[0] == names[1]:
        names = [f"{names[0]} A", f"{names[1]} B"]
    return duel.compile_duel(rules, rows[0], rows[1], _stance(full, "a"), _stance(full, "b"),
                             names=tuple(names))


class ModeSetup(NamedTuple):
    """What ``setup`` returns: the mode, the module that plays it, and that module's setup."""

    mode: str
    impl: Any
    inner: Any


def _warband_module():
    try:
        return importlib.import_module("vikingsim.games.ravenfeast.warband")
    except ModuleNotFoundError as e:
        if e.name != "vikingsim.games.ravenfeast.warband":
            raise
        return None


class _DuelImpl:
    """mode=duel, with the same function names a warband module provides."""

    allocate = staticmethod(duel.allocate)
    play_block = staticmethod(duel.play_block)
    reference_block = staticmethod(duel_reference.reference_block)
    frame = staticmethod(duel.frame)
    summary = staticmethod(duel.summary)
    tally = staticmethod(duel.tally)
    summarize = staticmethod(duel.summarize)
    trace = staticmethod(duel_reference.trace)


def _find(mods, name):
    """``name`` or ``name_warband`` from the first module defining either (or None)."""
    for mod in mods:
        for n in (name, f"{name}_warband"):
            fn = getattr(mod, n, None)
            if fn is not None:
                return fn
    return None


class _WarbandImpl:
    """Adapter: the warband module's functions under the names the dispatcher calls."""

    def __init__(self, mod):
        try:
            ref = importlib.import_module("vikingsim.games.ravenfeast.warband_reference")
        except ModuleNotFoundError as e:
            if e.name != "vikingsim.games.ravenfeast.warband_reference":
                raise
            ref = None
        for name in ("allocate", "play_block", "frame", "summary", "tally", "summarize",
                     "trace"):
            setattr(self, name, _find([mod], name))
        self.reference_block = _find([mod, ref] if ref is not None else [mod], "reference_block")


def setup(options: dict, policies: list, players: int) -> ModeSetup:
    """Validate options and compile the chosen mode (warns about options the mode ignores)."""
    options = _with_sides(options)
    mode = options.get("mode", "duel")
    warn_inapplicable(options)
    if mode == "duel":
        bad = sorted({p for p in policies if p != "default"})
        if bad:
            raise InputError(f"mode=duel makes no choices: policy {', '.join(bad)} not allowed; "
                             f"allowed: default")
        return ModeSetup("duel", _DuelImpl, duel_setup(options))
    mod = _warband_module()
    fn = _find([mod], "setup") if mod is not None else None
    if fn is None:
        raise InputError(f"mode={mode} not available (vikingsim/games/ravenfeast/warband.py "
                         f"missing or without setup); allowed now: duel")
    return ModeSetup(mode, _WarbandImpl(mod), fn(options, policies, players))


def allocate(s: ModeSetup, n_games: int) -> dict:
    return s.impl.allocate(s.inner, n_games)


def play_block(s: ModeSetup, g0, g1, dice_rng, pol_rng, out) -> None:
    s.impl.play_block(s.inner, g0, g1, dice_rng, pol_rng, out)


def reference_block(s: ModeSetup, g0, g1, dice_rng, pol_rng, out) -> None:
    if s.impl.reference_block is None:
        raise InputError(f"no reference engine for mode={s.mode} yet")
    s.impl.reference_block(s.inner, g0, g1, dice_rng, pol_rng, out)


def frame(s: ModeSetup, out: dict):
    return s.impl.frame(s.inner, out)


def summary(s: ModeSetup, out: dict) -> dict:
    return s.impl.summary(s.inner, out)


def tally(s: ModeSetup, out: dict) -> dict:
    return s.impl.tally(s.inner, out)


def summarize(s: ModeSetup, t: dict, n: int) -> dict:
    return s.impl.summarize(s.inner, t, n)


def trace(s: ModeSetup, seed: int, game_id: int = 0) -> str:
    """Game ``game_id`` of a run with root ``seed``, told in words."""
    if s.impl.trace is None:
        raise InputError(f"trace is not available for mode={s.mode}")
    if game_id and len(inspect.signature(s.impl.trace).parameters) < 3:
        raise InputError(f"mode={s.mode} traces only game 0 of a seed; drop --game-id")
    if game_id:
        return s.impl.trace(s.inner, seed, game_id)
    return s.impl.trace(s.inner, seed)


def odds(options: dict) -> dict:
    """Exact duel odds (``exact.py``); same keys as ``summary`` (intervals are [p, p])."""
    from vikingsim.games.ravenfeast.exact import odds as _odds

    return _odds(options)


POLICIES = {
    "default": "duel: no choices; warband: the warband module's DEFAULT policy (§12.6)",
}


def _extra_policies() -> dict:
    """Policies declared by ``warband.py`` as ``POLICIES`` (name -> help), if it exists."""
    mod = _warband_module()
    extra = getattr(mod, "POLICIES", None) or getattr(mod, "WARBAND_POLICIES", {})
    return {k: v for k, v in extra.items() if k not in POLICIES}

GAME = GameSpec(
    name="ravenfeast",
    title="Ravenfeast",
    summary_line="Viking Age skirmish: melee duels (exact odds), warband melees, scenarios",
    options=OPTIONS + _extra_options(),
    policies={**POLICIES, **_extra_policies()},
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
    bench_options={"mode": "duel", "a": "jarl", "b": "berserker"},
    bench_configs=({"mode": "duel", "a": "jarl", "b": "berserker"},
                   {"mode": "warband", "a": "hirdmen10", "b": "hirdmen10"},
                   {"mode": "scenario", "a": "fight_for_honor", "b": "fight_for_honor"}),
    block_games=16384,   # fast kernel: big RNG blocks keep per-block overhead small
    help_text=warbands.describe_presets_and_format(),
)

__all__ = ["GAME", "MODES", "OPTIONS", "OPTION_MODES", "Outcome", "PREDEFINED", "PROFILES",
           "PROFILE_NAMES", "Profile", "Rules", "Stance", "Stat", "compile_profile",
           "compile_profiles", "duel_setup", "get_profile", "odds", "price", "rules_from_options",
           "warn_inapplicable", "wounds_for"]
