"""Ravenfeast options (``--set name=value``): one table for every mode, derived from the rules
dataclasses (``rules.Rules``, ``warband.rules.WarbandRules``) with
:func:`~vikingsim.core.options.options_of`, plus the options that are no rule readings:
``mode``, the sides ``a``/``b``, the duel's per-figure ``a_*``/``b_*`` overrides and the
scenario played. Which modes each option applies to is data (:data:`OPTION_MODES`);
:func:`warn_inapplicable` warns about a non-default value in a mode that ignores it.
"""
from __future__ import annotations

from vikingsim.core.errors import warn
from vikingsim.core.options import Option, options_of, resolve
from vikingsim.games.ravenfeast.duel.rules import FIGURE_OPTIONS
from vikingsim.games.ravenfeast.profiles import PROFILE_NAMES
from vikingsim.games.ravenfeast.rules import Rules
from vikingsim.games.ravenfeast.warband.rules import SCENARIOS, WarbandRules

MODES = ("duel", "warband", "scenario")
AUTO = "auto"

#: What ``a=auto`` / ``b=auto`` mean in each mode: the issue's duel (Jarl v Berserker), a
#: ten-against-ten warband melee, and the Fight for Honor scenario's warbands.
SIDE_DEFAULTS = {"duel": ("jarl", "berserker"), "warband": ("hirdmen10", "hirdmen10"),
                 "scenario": ("fight_for_honor", "fight_for_honor")}

SIDE_OPTIONS = (
    Option("mode", "choice", "duel", "duel (§12.5), warband (§12.6) or scenario (§10.7)",
           choices=MODES),
    Option("a", "str", AUTO,
           "side A: duel: a unit type (" + ", ".join(PROFILE_NAMES) + "); "
           "warband/scenario: a preset, type list (jarl+hirdmen*5) or .toml path (warbands.py); "
           "auto = " + ", ".join(f"{v[0]} ({k})" for k, v in SIDE_DEFAULTS.items())),
    Option("b", "str", AUTO, "side B: as for a; auto = "
           + ", ".join(f"{v[1]} ({k})" for k, v in SIDE_DEFAULTS.items())),
)
RULE_OPTIONS = options_of(Rules)
#: ``WarbandRules.scenario`` is '' (none) in mode=warband; this option names the scenario
#: that mode=scenario plays, so its default differs from the field's by design.
SCENARIO_OPTION = Option("scenario", "choice", SCENARIOS[0],
                         "mode=scenario: which scenario (§10.7)", choices=SCENARIOS)
WARBAND_OPTIONS = options_of(WarbandRules)

OPTIONS: tuple[Option, ...] = (SIDE_OPTIONS + FIGURE_OPTIONS + RULE_OPTIONS
                               + (SCENARIO_OPTION,) + WARBAND_OPTIONS)

_WARBAND = ("warband", "scenario")
#: Modes each option applies to. The sides and the shared Rules readings apply to every mode
#: (but the §6.4 missile reading only to mode=warband), the per-figure options to the duel
#: only, the warband readings to warband and scenario, except that a scenario has no approach
#: volleys (§10.7: the Jarls duel at once), so the missile options apply to mode=warband only,
#: and the Fight for Honor options to mode=scenario only.
OPTION_MODES: dict[str, tuple[str, ...]] = {
    **{o.name: MODES for o in SIDE_OPTIONS + RULE_OPTIONS},
    **{o.name: ("duel",) for o in FIGURE_OPTIONS},
    **{o.name: _WARBAND for o in WARBAND_OPTIONS},
    "scenario": ("scenario",),
    "approach_turns": ("warband",),
    "cover_pieces": ("warband",),
    "free_attack_in_missile": ("warband",),
    "ffh_jarl_armor": ("scenario",),
    "ffh_duel_death_ends": ("scenario",),
}


def with_sides(options: dict) -> dict:
    """Resolved options with ``a``/``b`` = "auto" replaced by the mode's default sides."""
    out = dict(options)
    for i, side in enumerate(("a", "b")):
        if out[side] == AUTO:
            out[side] = SIDE_DEFAULTS[out["mode"]][i]
    return out


def full_options(options: dict | None) -> dict:
    """Partial options -> every option, validated and with the mode's sides filled in."""
    return with_sides(resolve("ravenfeast", OPTIONS, options))


def warn_inapplicable(options: dict) -> list[str]:
    """One ``vikingsim: warning:`` line on stderr per option set to a non-default value that does
    not apply to ``options["mode"]``; returns the names warned about. ``options`` are resolved
    (defaults filled in), so "set by the user" is read as "differs from its default"."""
    mode = options["mode"]
    names = []
    for o in OPTIONS:
        value = options[o.name]
        applies = OPTION_MODES[o.name]
        if value != o.default and mode not in applies:
            warn(f"option {o.name}={value!r} does not apply to mode={mode} (only to "
                 f"mode={'/'.join(applies)}); ignored")
            names.append(o.name)
    return names
